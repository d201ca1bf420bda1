#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: the dated results file of a bench script, built from the `awr bench -o json`
# documents of its runs: NAME-YYYY-MM-DD-COMMIT.md (the runs' figures, the script's own table)
# and NAME-YYYY-MM-DD-COMMIT.json (every document as awr printed it, the target's "path" cut to
# its file name) in DIR; prints the one summary line a README keeps.
#
#   bench/results.py NAME --runs RUNS.jsonl [--dir DIR] [--body FILE.md] [--about TEXT]
#                    [--summary TEXT]
#
# RUNS.jsonl holds one line per run, {"label": "...", "bench": DOCUMENT} (lib.sh's
# results_add writes it). DIR defaults to bench/results/ of the source tree; COMMIT is the
# tree's short commit (with -dirty when it has changes); a file of that name already there
# gets -HHMM after the date. The summary line is "NAME DATE COMMIT: SUMMARY (FILE)", SUMMARY
# by default each ratio's median over the runs ("atomic/plain 0.093 (median of 4 runs), ...").
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
MODES = ('atomic', 'plain', 'doublewrite', 'pages')
RATIOS = (('atomic_to_doublewrite', 'atomic/doublewrite'), ('atomic_to_plain', 'atomic/plain'),
          ('pages_to_doublewrite', 'pages/doublewrite'))


def sig3(v, unit):
    """Three significant digits, as the platform layer's awr__human_usec()."""
    digits = 2 if v < 9.995 else 1 if v < 99.95 else 0
    return '%.*f %s' % (digits, v, unit)


def human_usec(us):
    """A duration for people: "850 us", "72.9 ms", "1.25 s" (awr__human_usec())."""
    if us is None:
        return ''
    if not us > 0:
        return '0 us'
    if us < 999.5:
        return sig3(us, 'us')
    if us < 999.5e3:
        return sig3(us / 1e3, 'ms')
    return sig3(us / 1e6, 's')


def commit():
    def git(*args):
        return subprocess.run(['git', '-C', TOP] + list(args), capture_output=True,
                              text=True).stdout.strip()
    head = git('rev-parse', '--short', 'HEAD') or 'unknown'
    return head + ('-dirty' if git('status', '--porcelain', '--untracked-files=no') else '')


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def load_runs(path):
    runs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            run = json.loads(line)
            doc = run.get('bench')
            if not isinstance(doc, dict) or not isinstance(doc.get('modes'), dict):
                sys.exit('results.py: %s line %d: not an awr bench -o json document' % (path, n))
            runs.append(run)
    if not runs:
        sys.exit('results.py: %s holds no runs' % path)
    return runs


def mode_rows(runs):
    yield '| run | mode | pages/s | MB/s | p50 | p99 | p99.9 | CPU/page | error |'
    yield '|---|---|---:|---:|---:|---:|---:|---:|---|'
    for run in runs:
        for name, m in run['bench']['modes'].items():
            lat = m.get('latency_us') or {}
            cpu = m.get('cpu_ns_per_write')
            yield '| %s | %s | %.0f | %.1f | %s | %s | %s | %s | %s |' % (
                run['label'], name, m.get('pages_per_s') or 0, m.get('mb_per_s') or 0,
                human_usec(lat.get('p50')), human_usec(lat.get('p99')),
                human_usec(lat.get('p99_9')), human_usec(cpu / 1e3 if cpu else None),
                m.get('error') or '')


def ratio_text(doc):
    r = doc.get('ratios') or {}
    return ', '.join('%s %.3f' % (name, r[key]) for key, name in RATIOS if r.get(key))


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def median_ratios(runs):
    """Each ratio's median over the runs that have it: "atomic/plain 0.093 (median of 4 runs)"."""
    parts = []
    for key, name in RATIOS:
        v = [run['bench']['ratios'][key] for run in runs
             if (run['bench'].get('ratios') or {}).get(key)]
        if v:
            parts.append('%s %.3f' % (name, median(v)) +
                         (' (median of %d runs)' % len(v) if len(v) > 1 else ''))
    return ', '.join(parts) or 'no ratios'


def ratio_rows(runs):
    rows = [(run['label'], ratio_text(run['bench'])) for run in runs]
    rows = [r for r in rows if r[1]]
    if rows:
        yield '| run | ratios of pages/s |'
        yield '|---|---|'
        for label, text in rows:
            yield '| %s | %s |' % (label, text)


def target_name(directory, name, date, head):
    path = os.path.join(directory, '%s-%s-%s' % (name, date, head))
    if os.path.exists(path + '.md'):
        path = os.path.join(directory, '%s-%s-%s-%s' % (
            name, date, datetime.datetime.now(datetime.timezone.utc).strftime('%H%M'), head))
    return path


def main():
    ap = argparse.ArgumentParser(description='write the dated results file of a bench script')
    ap.add_argument('name')
    ap.add_argument('--runs', required=True)
    ap.add_argument('--dir', default=os.path.join(HERE, 'results'))
    ap.add_argument('--body')
    ap.add_argument('--about', default='')
    ap.add_argument('--summary')
    a = ap.parse_args()
    runs = load_runs(a.runs)
    date = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')
    head = commit()
    os.makedirs(a.dir, exist_ok=True)
    stem = target_name(a.dir, a.name, date, head)
    first = runs[0]['bench']
    lines = ['# %s: bench/%s results, %s, commit %s' % (a.name, a.name, date, head), '',
             'Machine: %d CPUs, %s, kernel %s. Target of the first run: %s (%s).' % (
                 os.cpu_count() or 0, cpu_model(), platform.release(),
                 os.path.basename(first.get('path') or ''),
                 first.get('layout'))]
    if a.about:
        lines += ['', a.about]
    if a.body:
        with open(a.body) as f:
            lines += ['', f.read().rstrip('\n')]
    lines += ['', '## The awr bench runs', '',
              'From `awr bench -o json` (the documents are in %s.json); latencies and CPU time'
              % os.path.basename(stem), 'per page in human units, the JSON keeps them exact.', '']
    lines += list(mode_rows(runs))
    ratios = list(ratio_rows(runs))
    if ratios:
        lines += [''] + ratios
    for run in runs:	# the target by name only: its folder is a scratch path of this machine
        run['bench']['path'] = os.path.basename(run['bench'].get('path') or '')
    with open(stem + '.json.tmp', 'w') as f:
        json.dump({'name': a.name, 'date': date, 'commit': head, 'kernel': platform.release(),
                   'cpus': os.cpu_count(), 'runs': runs}, f, indent=1)
        f.write('\n')
    with open(stem + '.md.tmp', 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.replace(stem + '.json.tmp', stem + '.json')
    os.replace(stem + '.md.tmp', stem + '.md')
    summary = a.summary or median_ratios(runs)
    shown = os.path.relpath(stem + '.md', TOP) if stem.startswith(TOP + os.sep) else stem + '.md'
    print('%s %s %s: %s (%s)' % (a.name, date, head, summary, shown))


if __name__ == '__main__':
    main()
