#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: an awr qualify HTML report opened in a real browser (Debian's chromium, headless,
# driven through chromedriver by python3-selenium) and checked against the JSON report it was
# drawn from: the verdict and its scope, every check with its result, sentence and what to do, as
# many chart points as the JSON has samples (size sweep, each mode's latency distribution and its
# p50/p99/p99.9 marks, the extent map's ranges), the findings, the embedded JSON equal to the
# file, and nothing loaded from outside (no resource requested, no src/href/url() off the page).
# Takes a screenshot.
# Negative controls go to the same browser (one start of Chromium): each --control page must
# fail, and one of its failures must begin with the expected text.
# --damaged AWR DIR: the report damaged as a saved one of another awr version, or a broken one,
# may be (tests/report_damaged.py's table: members deleted, of the wrong type, null, markup with an
# inline style injected into keys, mode names, paths); awr report draws each into DIR and must
# exit 0 (2, with its message, for JSON that is no report at all), never by a signal, and each page
# must be whole, list what its report lacks, hold the injected markup as text only and show the
# counts of its JSON. With AWR_REPORT_VALGRIND=1 each awr report runs under valgrind.
#
#   report_check.py REPORT.json REPORT.html SCREENSHOT.png [--control NAME PAGE.html EXPECTED]...
#                   [--damaged AWR DIR]
# Exit 0 when every check of REPORT.html holds, every control fails for its reason and every
# damaged report draws as it should; 1 otherwise.
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_damaged  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError:
    # a python3 of its own ahead of Debian's in PATH: Debian's has the package (scripts/deps.sh)
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
    print('SKIP: python3-selenium is not installed (scripts/deps.sh installs it)')
    sys.exit(77)

failed = []     # the failures of the page being checked
quiet = False   # a control page: its lines are not printed
terse = False   # the damaged reports: only their failures are printed


def check(ok, what):
    if not quiet and not (ok and terse):
        print('%s: %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failed.append(what)


def by_name(doc, name):
    return next((c for c in doc['checks'] if c['name'] == name), None)


report_json, report_html, shot = sys.argv[1:4]
controls, damaged, rest = [], None, sys.argv[4:]
while rest:
    if rest[0] == '--control' and len(rest) >= 4:
        controls += rest[:4]
        rest = rest[4:]
    elif rest[0] == '--damaged' and len(rest) >= 3:
        damaged, rest = rest[1:3], rest[3:]
    else:
        sys.exit('usage: report_check.py REPORT.json REPORT.html SCREENSHOT.png '
                 '[--control NAME PAGE.html EXPECTED]... [--damaged AWR DIR]')
with open(report_json) as f:
    doc = json.load(f)

opts = webdriver.ChromeOptions()
opts.binary_location = '/usr/bin/chromium'
for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
          '--hide-scrollbars',
          '--window-size=1000,1200', '--no-first-run', '--disable-extensions'):
    opts.add_argument(a)


COUNTS = (('passed', 'passed'), ('failed', 'failed'), ('skipped', 'skipped'),
          ('info', 'information only'))


def count_text(v):
    """A count as the page shows it: the JSON's number, or ? for anything else"""
    return '%d' % v if isinstance(v, (int, float)) and not isinstance(v, bool) else '?'


def check_counts(doc):
    """The run line's passed, failed, skipped and info: each the JSON's, under its own name."""
    run = driver.find_elements(By.ID, 'run')
    text = run[0].text if run else ''
    for k, label in COUNTS:
        sel = 'span.count[data-count="%s"]' % k
        got = [e.text for e in driver.find_elements(By.CSS_SELECTOR, sel)]
        want = count_text(doc.get(k))
        check(got == [want], 'count %s: page %s, JSON %s' % (k, got, doc.get(k)))
    want = ', '.join('%s %s' % (count_text(doc.get(k)), label) for k, label in COUNTS)
    check(want in text, 'the run line reads "%s" (page: "%s")' % (want, text))


def check_page(report_html, shot):
    """Every check of one page, against doc; the failures land in failed."""
    driver.get('file://' + os.path.abspath(report_html))
    q = driver.find_elements

    # the verdict and every check
    # the words people read: PASS, FAIL, SKIP, INFO for the JSON's pass, fail, skip, info
    v = q(By.ID, 'verdict')
    check(len(v) == 1 and v[0].text == doc['verdict'].upper(),
          'the verdict shown is the JSON\'s %s' % doc['verdict'])
    sc = q(By.ID, 'scope')
    check(len(sc) == 1 and sc[0].get_attribute('data-scope') == doc['scope'] and
          sc[0].text == doc['scope_text'],
          'the verdict\'s scope shown is the JSON\'s %s' % doc['scope'])
    rows = q(By.CSS_SELECTOR, 'tr.check')
    check(len(rows) == len(doc['checks']),
          '%d check rows for the JSON\'s %d checks' % (len(rows), len(doc['checks'])))
    for c in doc['checks']:
        r = q(By.CSS_SELECTOR, 'tr.check[data-check="%s"]' % c['name'])
        if not r:
            check(False, 'check %s is in the page' % c['name'])
            continue
        res = r[0].find_element(By.CSS_SELECTOR, 'td.res').text
        reason = r[0].find_element(By.CSS_SELECTOR, 'td.reason').text
        todo = r[0].find_element(By.CSS_SELECTOR, 'td.todo').text
        check(res == c['result'].upper() and reason == c['reason'].strip() and
              todo == (c['what_to_do'] or ''),
              'check %s: %s with its sentence and what to do (page: %s)' % (c['name'], c['result'],
                                                                            res))
    check(doc['kernel'] == driver.find_element(By.ID, 'kernel').text, 'the kernel is named')
    check_counts(doc)
    lacks = [e.get_attribute('data-key') for e in q(By.CSS_SELECTOR, 'li.lack')]
    check(lacks == [], 'the report lacks nothing (page: %s)' % lacks)

    # the size sweep: a point per write
    sweep = by_name(doc, 'size_sweep')['figures'].get('writes', [])
    pts = q(By.CSS_SELECTOR, 'svg.sweep-chart circle.sweep-pt')
    check(len(pts) == len(sweep) > 0,
          'size sweep: %d points for %d writes' % (len(pts), len(sweep)))
    check([int(p.get_attribute('data-size')) for p in pts] == [w['size'] for w in sweep],
          'size sweep: the points are the sizes written, in order')
    check(all(p.get_attribute('data-result') == w.get('read_back', w.get('write'))
              for p, w in zip(pts, sweep)),
          'size sweep: each point says what was read back')

    # the latency distributions: a point per CDF sample, three percentile marks per mode
    perf = by_name(doc, 'performance')['figures']
    modes = {m: x for m, x in perf.items() if isinstance(x, dict) and x.get('latency_cdf')}
    check(len(modes) >= 3,
          'performance: %d modes with a latency distribution (atomic, plain, doublewrite)'
          % len(modes))
    for m, x in modes.items():
        n = len(q(By.CSS_SELECTOR, 'svg.cdf-chart circle.cdf-pt[data-mode="%s"]' % m))
        check(n == len(x['latency_cdf']),
              'latency %s: %d points for %d samples' % (m, n, len(x['latency_cdf'])))
        marks = q(By.CSS_SELECTOR, 'svg.cdf-chart line.pct-mark[data-mode="%s"]' % m)
        got = {e.get_attribute('data-pct'): float(e.get_attribute('data-us')) for e in marks}
        want = {k: v for k, v in x['latency_us'].items() if v > 0}
        check(got.keys() == want.keys() and all(abs(got[k] - want[k]) < 0.06 for k in want),
              'latency %s: p50/p99/p99.9 marked at the JSON\'s values' % m)
        check(len(q(By.CSS_SELECTOR, 'tr.perf-mode[data-mode="%s"]' % m)) == 1,
              'latency %s: in the legend' % m)

    # the extent map: a bar per range
    em = doc.get('extent_map')
    bars = q(By.CSS_SELECTOR, 'svg.extent-chart rect.extent-range')
    if em:
        check(len(bars) == len(em['ranges']) > 0,
              'extent map: %d bars for %d ranges' % (len(bars), len(em['ranges'])))
        check([b.get_attribute('data-path') for b in bars] == [r['path'] for r in em['ranges']],
              'extent map: each bar is coloured by its range\'s path')
    else:
        check(not bars, 'no extent map in the JSON, none drawn')

    # the findings
    found = (by_name(doc, 'discovery')['figures'] or {}).get('findings', [])
    rows = q(By.CSS_SELECTOR, 'tr.finding')
    check([(r.get_attribute('data-finding'), r.get_attribute('data-severity')) for r in rows] ==
          [(x['id'], x['severity']) for x in found],
          'findings: %d rows with their severity' % len(found))

    # the embedded JSON is the report
    emb = driver.execute_script('return document.getElementById("awr-report").textContent')
    check(json.loads(emb) == doc, 'the JSON embedded in the page equals the report file')

    # nothing from outside: no resource fetched, nothing that names one
    res = driver.execute_script('return performance.getEntriesByType("resource").map(e => e.name)')
    check(res == [], 'no resource requested by the page (%s)' % res)
    refs = driver.execute_script('''return Array.from(document.querySelectorAll(
        "[src],[href],[srcset],link,iframe,object,embed,img"))
        .map(e => e.outerHTML.slice(0, 120))''')
    check(refs == [], 'no element that loads something (%s)' % refs)
    with open(report_html) as f:
        text = f.read()
    page = text.split('<script type="application/json"')[0]
    check(not re.search(r'url\(|@import|https?://', page),
          'no url(), @import or address in the page itself')
    check(driver.execute_script('return document.scripts.length') ==
          len(q(By.CSS_SELECTOR, 'script[type="application/json"]')),
          'no script but the JSON data block')

    # the screenshot: the whole page
    h = driver.execute_script('return document.documentElement.scrollHeight')
    driver.set_window_size(1000, min(max(h, 600), 6000))
    driver.save_screenshot(shot)
    with open(shot, 'rb') as f:
        png = f.read()
    ok = png[:8] == b'\x89PNG\r\n\x1a\n' and len(png) > 20000
    w, hh = struct.unpack('>II', png[16:24]) if ok else (0, 0)
    check(ok and w >= 900 and hh >= 600,
          'a screenshot of the page: %dx%d, %d bytes' % (w, hh, len(png)))


def run_report(awr, src, out):
    cmd = [awr, 'report', src, '--html', out, '--force']
    if os.environ.get('AWR_REPORT_VALGRIND') == '1':
        cmd = ['valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
               '--errors-for-leak-kinds=definite'] + cmd
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None


def reads_back(payload):
    """Does @payload stand in the page as text, or as an attribute's value, unchanged?"""
    return driver.execute_script('''const p = arguments[0];
        const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode(); n; n = w.nextNode())
            if (n.parentNode.nodeName !== 'SCRIPT' && n.data.includes(p)) return true;
        for (const e of document.querySelectorAll('*'))
            for (const a of e.attributes) if (a.value.includes(p)) return true;
        return false;''', payload)


def check_damaged(doc, awr, work):
    """Each damaged report of report_damaged.variants(), drawn by awr report and opened here."""
    global terse
    before, terse = len(failed), True
    for v in report_damaged.variants(doc):
        name, d = v['name'], v['doc']
        src, out = os.path.join(work, name + '.json'), os.path.join(work, name + '.html')
        with open(src, 'w') as f:
            f.write(d if isinstance(d, str) else json.dumps(d))
        p = run_report(awr, src, out)
        if p is None:
            check(False, 'damaged %s: awr report did not end in 60 s' % name)
            continue
        if p.returncode != v['rc']:
            check(False, 'damaged %s: awr report %s (want exit %d): %s' % (
                name, 'killed by signal %d' % -p.returncode if p.returncode < 0 else
                'exit %d' % p.returncode, v['rc'], p.stderr.strip()[-300:]))
            continue
        if v['rc']:
            check(all(w in p.stderr for w in v['says']) and not os.path.exists(out),
                  'damaged %s: refused (exit %d), saying %s: %s' % (
                      name, v['rc'], v['says'], p.stderr.strip()))
            continue
        driver.get('file://' + os.path.abspath(out))
        q = driver.find_elements
        whole = all(q(By.CSS_SELECTOR, 'section#' + s) for s in ('summary', 'checks', 'json'))
        emb = driver.execute_script(
            'var e = document.getElementById("awr-report"); return e && e.textContent')
        check(whole and emb is not None and json.loads(emb) == d,
              'damaged %s: the page is whole and embeds the report' % name)
        lacks = {e.get_attribute('data-key') for e in q(By.CSS_SELECTOR, 'li.lack')}
        check(set(v['lacks']) <= lacks, 'damaged %s: the page names what it lacks %s (page: %s)'
              % (name, sorted(set(v['lacks']) - lacks), sorted(lacks)[:8]))
        inj = q(By.CSS_SELECTOR, '[data-injected], .awr-injected')
        check(not inj, 'damaged %s: no element made of the injected markup (%s)' % (
            name, [e.get_attribute('outerHTML')[:100] for e in inj[:2]]))
        if v.get('injected'):
            check(reads_back(report_damaged.INJECT),
                  'damaged %s: the injected markup reads as text' % name)
        check_counts(d if isinstance(d, dict) else {})
        os.unlink(src)
        os.unlink(out)
    terse = False
    n = len(report_damaged.variants(doc))
    check(len(failed) == before, '%d damaged reports: drawn whole (or refused as no report), '
          'naming what they lack, injected markup as text only' % n)


driver = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=opts)
fails = 0
try:
    check_page(report_html, shot)
    if damaged:
        check_damaged(doc, *damaged)
    fails += len(failed)
    for i in range(0, len(controls), 4):
        name, page, want = controls[i + 1:i + 4]
        failed, quiet = [], True
        check_page(page, shot + '.control.png')
        quiet = False
        hit = [f for f in failed if f.startswith(want)]
        if hit:
            print('ok: control %s fails: %s' % (name, hit[0]))
        else:
            why = ('failed only for other reasons: %s' % failed[:3]) if failed else \
                'passed every check'
            print('FAIL: control %s: %s' % (name, why))
            fails += 1
    if os.path.exists(shot + '.control.png'):
        os.unlink(shot + '.control.png')
    print('report_check: %d failure(s)' % fails)
finally:
    driver.quit()
sys.exit(1 if fails else 0)
