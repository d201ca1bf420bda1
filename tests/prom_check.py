#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr's -o prometheus output read by a real parser (the Prometheus Python client's,
# Debian's python3-prometheus-client) and compared with what the same run wrote as JSON.
# The whole output must be valid UTF-8 (node_exporter drops a textfile with one invalid byte); a
# label from a name with bytes that are not UTF-8 must read back with each such byte spelled \xff
# (Python's "backslashreplace"). awr_partitions_misaligned must count the JSON's partitions with
# aligned false, per disk.
#
#   prom_check.py list METRICS LIST.json SYSFS_BLOCK   (awr list -o prometheus, -o json; /sys/block)
#   prom_check.py qualify METRICS REPORT.json    (awr qualify -o prometheus --report REPORT.json)
# Every family must be a gauge with a HELP text; exit 0 when every check holds, 1 otherwise.
import json
import os
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    # a python3 of its own ahead of Debian's in PATH: Debian's has the package (scripts/deps.sh)
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
    print('SKIP: python3-prometheus-client is not installed (scripts/deps.sh installs it)')
    sys.exit(77)

fails = 0


def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print('FAIL: %s' % what)


def label(s):
    """a name from awr's JSON (read with surrogateescape) as awr writes it in a label"""
    return s.encode('utf-8', 'surrogateescape').decode('utf-8', 'backslashreplace')


def load_json(path):
    """awr's JSON as it is, bytes that are not UTF-8 kept (as surrogates)"""
    with open(path, 'rb') as f:
        return json.loads(f.read().decode('utf-8', 'surrogateescape'))


def parse(path):
    with open(path, 'rb') as f:
        raw = f.read()
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        check(False, 'the output is not UTF-8: byte 0x%02x at offset %d (%r)' % (
            raw[e.start], e.start, raw[max(e.start - 30, 0):e.start + 10]))
        text = raw.decode('utf-8', 'replace')   # the other checks go on
    fams = {}
    for f in text_string_to_metric_families(text):
        fams[f.name] = f
    return text, fams


def samples(fams, name):
    f = fams.get(name)
    check(f is not None, 'no metric family %s' % name)
    return [] if f is None else f.samples


def families_are_gauges(text, fams):
    check(len(fams) > 0, 'no metric families')
    for name, f in fams.items():
        check(f.type == 'gauge', '%s is of type %s, not gauge' % (name, f.type))
        check(bool(f.documentation), '%s has no HELP' % name)
        check('# TYPE %s gauge' % name in text, '%s has no TYPE line' % name)


def check_list(metrics, listing, sysblock):
    text, fams = parse(metrics)
    families_are_gauges(text, fams)
    devs = {label(d['name']): d for d in load_json(listing)['devices']}
    keys = {'awr_atomic_unit_min_bytes': ('unit_min', 'atomic_write_unit_min_bytes'),
            'awr_atomic_unit_max_bytes': ('unit_max', 'atomic_write_unit_max_bytes'),
            'awr_atomic_max_bytes': ('max_bytes', 'atomic_write_max_bytes'),
            'awr_atomic_boundary_bytes': ('boundary', 'atomic_write_boundary_bytes'),
            'awr_logical_block_size_bytes': ('logical_block_size', 'logical_block_size')}
    for metric, (key, attr) in keys.items():
        got = {s.labels['device']: s for s in samples(fams, metric)}
        check(set(got) == set(devs),
              '%s: devices %s, awr list -o json has %s' % (metric, sorted(got), sorted(devs)))
        for name, s in got.items():
            if name not in devs:
                continue
            d = devs[name]
            check(s.value == d[key],
                  '%s{device="%s"} %s, JSON %s %s' % (metric, name, s.value, key, d[key]))
            check(s.labels.get('model') == label(d['model'] or ''),
                  '%s: model label %r, JSON %r' % (name, s.labels.get('model'), d['model']))
            p = os.path.join(sysblock, d['name'], 'queue', attr)
            if os.path.exists(p):
                v = int(open(p).read().split()[0])
                check(s.value == v,
                      '%s{device="%s"} %s, sysfs %s %s' % (metric, name, s.value, attr, v))
    verdicts = {}
    for s in samples(fams, 'awr_atomic_verdict'):
        verdicts.setdefault(s.labels['device'], []).append((s.labels['verdict'], s.value))
    for name, d in devs.items():
        ones = [v for v, x in verdicts.get(name, []) if x == 1]
        check(ones == [d['verdict']],
              '%s: verdict gauges at 1 %s, JSON verdict %s' % (name, ones, d['verdict']))
    for metric, field in (('awr_nvme_awupf', 'awupf'), ('awr_nvme_nawupf', 'nawupf')):
        got = {s.labels['device']: s.value for s in samples(fams, metric)}
        want = {n: d['nvme'][field] for n,
                d in devs.items() if d['nvme'] and d['nvme'][field] is not None}
        check(got == want, '%s: %s, JSON %s' % (metric, got, want))
    got = {s.labels['device']: s.value for s in samples(fams, 'awr_partitions_misaligned')}
    want = {n: sum(not p['aligned'] for p in d['partitions']) for n, d in devs.items()}
    check(got == want, 'awr_partitions_misaligned: %s, JSON partitions with aligned false %s'
          % (got, want))
    got = {s.labels['device']: s.value
           for s in samples(fams, 'awr_scsi_max_atomic_transfer_length_blocks')}
    want = {n: d['scsi']['max_atomic_transfer_length'] for n, d in devs.items() if d['scsi']}
    check(got == want, 'awr_scsi_max_atomic_transfer_length_blocks: %s, JSON %s' % (got, want))
    info = samples(fams, 'awr_info')
    check(len(info) == 1 and info[0].labels.get('kernel') == os.uname().release,
          'awr_info: %s' % [(s.labels, s.value) for s in info])
    print('list: %d families, %d devices, read by the Prometheus parser' % (len(fams), len(devs)))


def check_qualify(metrics, report):
    text, fams = parse(metrics)
    families_are_gauges(text, fams)
    rep = load_json(report)
    v = samples(fams, 'awr_qualify_verdict')
    check(len(v) == 1 and v[0].value == (1 if rep['verdict'] == 'pass' else 0),
          'awr_qualify_verdict %s, report verdict %s' % ([s.value for s in v], rep['verdict']))
    scope = [s.labels['scope'] for s in samples(fams, 'awr_qualify_scope') if s.value == 1]
    check(scope == [rep['scope']],
          'awr_qualify_scope at 1 %s, report scope %s' % (scope, rep['scope']))
    res = {}
    targets = {s.labels.get('target') for f in fams.values() for s in f.samples
               if 'target' in s.labels}
    check(targets == {label(rep['path'])},
          'target labels %r, report path %r' % (targets, rep['path']))
    for s in samples(fams, 'awr_qualify_check'):
        if s.value == 1:
            res.setdefault(s.labels['check'], []).append(s.labels['result'])
    want = {c['name']: [c['result']] for c in rep['checks']}
    check(res == want, 'checks at 1 %s, report %s' % (res, want))
    secs = {s.labels['check']: s.value for s in samples(fams, 'awr_qualify_check_seconds')}
    for c in rep['checks']:
        check(abs(secs.get(c['name'], -1) - c['seconds']) < 1e-3,
              '%s seconds %s, report %s' % (c['name'], secs.get(c['name']), c['seconds']))
    umax = samples(fams, 'awr_qualify_atomic_unit_max_bytes')
    check(len(umax) == 1 and umax[0].value == rep['limits']['unit_max'],
          'unit_max %s, report %s' % ([s.value for s in umax], rep['limits'].get('unit_max')))
    print('qualify: %d families, %d checks, read by the Prometheus parser' % (len(fams), len(want)))


if sys.argv[1] == 'list':
    check_list(*sys.argv[2:5])
elif sys.argv[1] == 'qualify':
    check_qualify(*sys.argv[2:4])
else:
    sys.exit('usage: prom_check.py list|qualify ...')
sys.exit(1 if fails else 0)
