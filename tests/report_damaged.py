# SPDX-License-Identifier: MIT
# Description: damaged awr qualify reports for awr report --html, made from a real one: members
# deleted (a report of an older awr), of another type (a string where a number is, an object where
# an array is, null: a newer or a broken one), and markup with an inline style that would draw a
# "PASS" over the page injected into object keys, mode names, extent-map paths and strings.
# tests/report_check.py --damaged draws each with awr report and checks the page; the table is
# here.
#
# Each variant: name, the report (a dict, or the file's text as a str), rc (0: drawn; 2: refused as
# no report at all), lacks (the JSON paths the page must name in li.lack[data-key]), injected (the
# page must hold INJECT as text), says (for rc 2: words of the message on standard error).
import copy

# in an attribute the quote ends it and the style lands on the element; in text the div is one
INJECT = ('x" data-injected="1" style="position:fixed;top:0;left:0;font-size:160px;'
          'background:#2a9a3c"><div class="awr-injected" data-injected="1" '
          'style="position:fixed;top:0;left:0;font-size:160px;background:#2a9a3c;color:#fff">'
          'PASS</div>')


def by_name(doc, name):
    return next(c for c in doc['checks'] if isinstance(c, dict) and c.get('name') == name)


def fig(doc, name):
    return by_name(doc, name)['figures']


def drop_check(doc, name):
    doc['checks'] = [c for c in doc['checks'] if c.get('name') != name]


def rename_mode(doc, new, value=None):
    f = fig(doc, 'performance')
    f[new] = f.pop('atomic') if value is None else value


def older(doc):
    """a report as an older awr would have written it: no limits, extent map, notes, versions"""
    for k in ('limits', 'extent_map', 'notes', 'kernel', 'awr_version', 'date', 'info',
              'schema_version'):
        doc.pop(k, None)
    drop_check(doc, 'performance')


def setter(path, value):
    """a function that sets doc[path...] = value (a key of None deletes the last one)"""
    def f(doc):
        o = doc
        for k in path[:-1]:
            o = fig(o, k[1:]) if isinstance(k, str) and k.startswith('@') else o[k]
        if value is DELETE:
            del o[path[-1]]
        else:
            o[path[-1]] = value
    return f


DELETE = object()
P, S, K, C, T = '@performance', '@size_sweep', '@kernel_refusals', '@concurrent_torn', '@discovery'
PERF, SWEEP = 'checks[performance].figures', 'checks[size_sweep].figures'

# name, change, lacks, injected
DRAWN = [
    ('no-limits', setter(['limits'], DELETE), ['limits'], False),
    ('limits-string', setter(['limits'], '4096'), ['limits'], False),
    ('limits-array', setter(['limits'], [4096, 65536]), ['limits'], False),
    ('limits-null', setter(['limits'], None), ['limits'], False),
    ('no-performance', lambda d: drop_check(d, 'performance'), ['checks[performance]'], False),
    ('no-size-sweep', lambda d: drop_check(d, 'size_sweep'), ['checks[size_sweep]'], False),
    ('perf-figures-array', lambda d: by_name(d, 'performance').update(figures=[]),
     ['checks[performance].figures'], False),
    ('perf-figures-null', lambda d: by_name(d, 'performance').update(figures=None),
     ['checks[performance].figures'], False),
    ('perf-cdf-object', setter([P, 'atomic', 'latency_cdf'], {'0': 1}),
     [PERF + '.atomic.latency_cdf'], False),
    ('perf-cdf-null', setter([P, 'atomic', 'latency_cdf'], None),
     [PERF + '.atomic.latency_cdf'], False),
    ('perf-cdf-point-string', setter([P, 'atomic', 'latency_cdf', 0], '12.5'),
     [PERF + '.atomic.latency_cdf[0]'], False),
    ('perf-cdf-point-half', setter([P, 'plain', 'latency_cdf', 1], [None, 'half']),
     [PERF + '.plain.latency_cdf[1]'], False),
    ('perf-latency-string', setter([P, 'atomic', 'latency_us'], 'fast'),
     [PERF + '.atomic.latency_us'], False),
    ('perf-p99-string', setter([P, 'atomic', 'latency_us', 'p99'], '1 ms'),
     [PERF + '.atomic.latency_us.p99'], False),
    ('sweep-writes-object', setter([S, 'writes'], {'size': 4096}), [SWEEP + '.writes'], False),
    ('sweep-size-string', setter([S, 'writes', 0, 'size'], '4096'),
     [SWEEP + '.writes[0].size'], False),
    ('sweep-write-number', setter([S, 'writes', 1], 7), [SWEEP + '.writes[1]'], False),
    ('sweep-latency-huge', setter([S, 'writes', 1, 'latency_us'], 1e308), [], False),
    ('checks-object', setter(['checks'], {'discovery': 'PASS'}), ['checks'], False),
    ('checks-null', setter(['checks'], None), ['checks'], False),
    ('check-string', setter(['checks', 0], 'discovery'),
     ['checks[0]', 'checks[discovery]'], False),
    ('check-name-number', setter(['checks', 1, 'name'], 7),
     ['checks[1].name', 'checks[size_sweep]'], False),
    ('check-reason-object', setter(['checks', 2, 'reason'], {'why': 'x'}),
     ['checks[kernel_refusals].reason'], False),
    ('passed-string', setter(['passed'], '4'), ['passed'], False),
    ('failed-null', setter(['failed'], None), ['failed'], False),
    ('counts-distinct', lambda d: d.update(passed=11, failed=22, skipped=33, info=44), [], False),
    ('verdict-number', setter(['verdict'], 1), ['verdict'], False),
    ('no-verdict', setter(['verdict'], DELETE), ['verdict'], False),
    ('findings-object', setter([T, 'findings'], {'id': 'x'}),
     ['checks[discovery].figures.findings'], False),
    ('torn-counts-array', setter([C, 'verify', 'counts'], [510, 0]),
     ['checks[concurrent_torn].figures.verify.counts'], False),
    ('refusal-cases-string', setter([K, 'cases'], 'none'),
     ['checks[kernel_refusals].figures.cases'], False),
    ('extent-map-string', setter(['extent_map'], 'none'), ['extent_map'], False),
    ('extent-ranges-object', setter(['extent_map', 'ranges'], {}), ['extent_map.ranges'], False),
    ('extent-range-path-number', setter(['extent_map', 'ranges', 0, 'path'], 3),
     ['extent_map.ranges[0].path'], False),
    ('notes-object', setter(['notes'], {'a': 'b'}), ['notes'], False),
    ('note-number', setter(['notes'], [1]), ['notes[0]'], False),
    ('older-awr', older,
     ['limits', 'kernel', 'awr_version', 'date', 'info', 'checks[performance]'], False),
    # markup in every place a string from the JSON reaches the page
    ('inject-limits-key', lambda d: d['limits'].update({INJECT: 1}), [], True),
    ('inject-mode', lambda d: rename_mode(d, INJECT), [], True),
    ('inject-mode-damaged', lambda d: rename_mode(d, INJECT, {'latency_cdf': 'x'}),
     [PERF + '.' + INJECT + '.latency_cdf'], True),
    ('inject-extent-path', setter(['extent_map', 'ranges', 0, 'path'], INJECT), [], True),
    ('inject-torn-key',
     lambda d: fig(d, 'concurrent_torn')['verify']['counts'].update({INJECT: 0}), [], True),
    ('inject-refusal-key',
     lambda d: fig(d, 'kernel_refusals')['cases'][0].update({INJECT: 1}), [], True),
    ('inject-check', lambda d: d['checks'][-1].update(result=INJECT, reason=INJECT), [], True),
    ('inject-finding', lambda d: fig(d, 'discovery')['findings'].append(
        {'id': INJECT, 'severity': INJECT, 'message': INJECT}), [], True),
    ('inject-note', setter(['notes'], [INJECT]), [], True),
    ('inject-top',
     lambda d: d.update(path=INJECT, target=INJECT, verdict=INJECT, date=INJECT), [], True),
    ('inject-nested',
     lambda d: d.update({INJECT: 1, 'limits': {INJECT: {INJECT: [INJECT]}}}), [], True),
]

# name, file text, words the refusal must say
REFUSED = [
    ('top-array', '[{"checks": [], "verdict": "PASS"}]',
     ['not an awr qualify report', 'top level']),
    ('top-string', '"PASS"', ['not an awr qualify report', 'top level']),
    ('list-json', '{"devices": [], "verdict": "PASS"}', ['not an awr qualify report', '"checks"']),
    ('empty-object', '{}', ['not an awr qualify report', 'give a report']),
]


def variants(doc):
    out = []
    for name, change, lacks, injected in DRAWN:
        d = copy.deepcopy(doc)
        change(d)
        out.append({'name': name, 'doc': d, 'rc': 0, 'lacks': lacks, 'injected': injected})
    for name, text, says in REFUSED:
        out.append({'name': name, 'doc': text, 'rc': 2, 'lacks': [], 'says': says})
    return out
