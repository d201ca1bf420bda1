#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: turn one `meson test` run into "RESULT<TAB>name<TAB>reason" lines (PASS/FAIL/SKIP),
# strictly: every line of meson-logs/testlog.json must be a complete JSON result, every test that
# `meson test --list` selects must have exactly one result, and a non-zero exit of `meson test`
# must be explained by a failing result. Anything else is printed as a FAIL line.
#
#   meson-results.py [--expected FILE] BUILD MESON_TEST_EXIT [SELECTION...]
#
# SELECTION is the suite selection given to `meson test` (e.g. --no-suite vm); the expected
# names come from `meson test -C BUILD --list --no-rebuild SELECTION`, or from FILE (one name
# a line) with --expected. Exit status: 0 when every line printed is PASS or SKIP, 1 when a
# FAIL line was printed, 2 on a usage error.
import collections
import json
import os
import subprocess
import sys

# meson's TestResult values (mesonbuild/mtest.py) and what the summary makes of them
RESULTS = {
    'OK': 'PASS',
    'EXPECTEDFAIL': 'PASS',
    'SKIP': 'SKIP',
    'FAIL': 'FAIL',
    'UNEXPECTEDPASS': 'FAIL',
    'TIMEOUT': 'FAIL',
    'ERROR': 'FAIL',
    'INTERRUPT': 'FAIL',
}
STAGE = 'meson-test'        # the name of FAIL lines that belong to the run, not to one test

failures = 0


def emit(res, name, reason=''):
    global failures
    if res == 'FAIL':
        failures += 1
    # one line per result: no tabs or newlines inside a field
    name = ' '.join(str(name).split())
    reason = ' '.join(str(reason).split())
    print(f"{res}\t{name}\t{reason}", flush=True)


def excerpt(text, n=80):
    text = text.strip()
    return text if len(text) <= n else text[:n] + '...'


def expected_names(build, selection, listfile):
    """The test names the run should have produced, or None (after a FAIL line)."""
    if listfile:
        try:
            with open(listfile, encoding='utf-8') as f:
                return [l.strip() for l in f if l.strip()]
        except OSError as e:
            emit('FAIL', STAGE, f"cannot read the expected test list {listfile}: {e.strerror}")
            return None
    cmd = ['meson', 'test', '-C', build, '--list', '--no-rebuild'] + selection
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        emit('FAIL', STAGE, f"cannot run meson test --list: {e.strerror}")
        return None
    if p.returncode != 0:
        emit('FAIL', STAGE, f"`{' '.join(cmd[1:])}` exited {p.returncode}: "
             + excerpt(p.stderr or p.stdout or 'no output'))
        return None
    return [l.strip() for l in p.stdout.splitlines() if l.strip()]


def failed_line_before_skip(t):
    """The first line of a skipped test's output that reports a failure, if any."""
    for stream in ('stdout', 'stderr'):
        for l in (t.get(stream) or '').splitlines():
            if l.startswith('FAIL ') or l.startswith('FAIL:'):
                return l
    return None


def parse_log(path):
    """Yield (lineno, record or None, error) for every line of testlog.json."""
    with open(path, 'rb') as f:
        data = f.read()
    if not data:
        yield 0, None, 'the log is empty'
        return
    lines = data.split(b'\n')
    last_complete = data.endswith(b'\n')
    if last_complete:
        lines.pop()             # the empty string after the final newline
    for i, raw in enumerate(lines, 1):
        if i == len(lines) and not last_complete:
            yield i, None, f"line {i} is truncated (no newline at the end of the log): {excerpt(raw.decode('utf-8', 'replace'))}"
            continue
        try:
            t = json.loads(raw.decode('utf-8'))
        except (UnicodeDecodeError, ValueError) as e:
            yield i, None, f"line {i} is not a JSON result ({e}): {excerpt(raw.decode('utf-8', 'replace'))}"
            continue
        if not isinstance(t, dict):
            yield i, None, f"line {i} is not a JSON object: {excerpt(raw.decode('utf-8', 'replace'))}"
            continue
        if not isinstance(t.get('name'), str) or not t['name'].strip():
            yield i, None, f"line {i} has no test name"
            continue
        if t.get('result') not in RESULTS:
            yield i, t, f"line {i}: test {t['name']} has result {t.get('result')!r}, not one meson reports for a finished test"
            continue
        yield i, t, None


def main(argv):
    listfile = None
    if argv[:1] == ['--expected']:
        if len(argv) < 2:
            return usage()
        listfile = argv[1]
        argv = argv[2:]
    if len(argv) < 2:
        return usage()
    build, rc, selection = argv[0], argv[1], argv[2:]
    try:
        meson_rc = int(rc)
    except ValueError:
        return usage()

    expected = expected_names(build, selection, listfile)
    log = os.path.join(build, 'meson-logs', 'testlog.json')
    seen = collections.Counter()
    log_read = False
    if not os.path.exists(log):
        emit('FAIL', STAGE, f"{log} is missing: no test result to count (meson test exited {meson_rc}"
             + (f", {len(expected)} test(s) selected)" if expected is not None else ")"))
    else:
        try:
            for lineno, t, err in parse_log(log):
                if err:
                    emit('FAIL', t['name'] if t else STAGE, f"testlog.json: {err}")
                    if t:
                        seen[t['name']] += 1
                    continue
                name, res = t['name'], RESULTS[t['result']]
                seen[name] += 1
                reason = ''
                if res == 'SKIP':
                    bad = failed_line_before_skip(t)
                    if bad:
                        res, reason = 'FAIL', f"skipped after reporting a failure: {excerpt(bad)}"
                    else:
                        skips = [l for l in (t.get('stdout') or '').splitlines() if l.startswith('SKIP')]
                        reason = skips[-1].split(':', 1)[-1].strip() if skips else 'skipped without a reason'
                elif res == 'FAIL':
                    reason = t['result'].lower()
                    rcode = t.get('returncode')
                    if isinstance(rcode, int) and rcode < 0:
                        reason += f" (killed by signal {-rcode})"
                    elif isinstance(rcode, int) and rcode not in (0, 1):
                        reason += f" (exit {rcode})"
                emit(res, name, reason)
            log_read = True
        except OSError as e:
            emit('FAIL', STAGE, f"cannot read {log}: {e.strerror}")

    if expected is not None and log_read:
        want = collections.Counter(expected)
        if not want:
            emit('FAIL', STAGE, "meson test --list selects no test")
        for name in sorted(want):
            if seen[name] < want[name]:
                emit('FAIL', name, "no result in testlog.json, but meson test --list selects it")
            elif seen[name] > want[name]:
                emit('FAIL', name, f"{seen[name]} results in testlog.json for {want[name]} test(s) of that name")
        for name in sorted(set(seen) - set(want)):
            emit('FAIL', name, "a result in testlog.json for a test meson test --list does not select")

    if meson_rc != 0 and failures == 0:
        emit('FAIL', STAGE, f"meson test exited {meson_rc}, yet no test result failed")
    return 1 if failures else 0


def usage():
    print("usage: meson-results.py [--expected FILE] BUILD MESON_TEST_EXIT [SELECTION...]", file=sys.stderr)
    return 2


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:      # an internal error must never look like a clean run
        emit('FAIL', STAGE, f"meson-results.py: internal error: {type(e).__name__}: {e}")
        sys.exit(1)
