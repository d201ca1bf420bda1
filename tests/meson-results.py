#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: turn meson's testlog.json into "RESULT<TAB>name<TAB>reason" lines (PASS/FAIL/SKIP).
import json
import sys

for line in open(sys.argv[1]):
    t = json.loads(line)
    res = t['result']
    reason = ''
    if res == 'OK':
        res = 'PASS'
    elif res == 'SKIP':
        skips = [l for l in (t.get('stdout') or '').splitlines() if l.startswith('SKIP')]
        reason = skips[-1].split(':', 1)[-1].strip() if skips else 'skipped without a reason'
    else:
        reason = res.lower()
        res = 'FAIL'
    print(f"{res}\t{t['name']}\t{reason}")
