#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: a finding of severity warn or error says what to do, from the catalogue: awr probe
# of a file on tmpfs (no atomic writes there: fs_no_atomic, warn) prints "what to do:" under the
# finding in text and a what_to_do sentence in JSON; an info finding has none (null). Every id
# probe printed is listed in the generated awr-findings(7).
#
#   cli_findings_what_to_do.sh AWR AWR_FINDINGS_7
set -u
awr=$1 page=$2
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"
[ "$(id -u)" = 0 ] || skip "mounting tmpfs needs root"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-todo.XXXXXX") || exit 2
trap 'umount "$w/t" 2>/dev/null; rm -rf "$w"' EXIT
mkdir "$w/t" && mount -t tmpfs -o size=4m tmpfs "$w/t" || skip "tmpfs mount failed"
truncate -s 1M "$w/t/data"

text=$("$awr" probe "$w/t/data")
if grep -A1 '^  \[warn\] fs_no_atomic:' <<<"$text" | grep -q '^      what to do: [A-Z].*\.$'; then
	ok "text: the warn finding is followed by what to do"
else
	fail "text: no 'what to do:' line under [warn] fs_no_atomic: $text"
fi
if grep -A1 '^  \[info\] ' <<<"$text" | grep -q 'what to do:'; then
	fail "text: an info finding has a what to do line: $text"
else
	ok "text: info findings have no what to do"
fi
"$awr" probe "$w/t/data" -o json >"$w/p.json" || fail "probe -o json exited $?"
python3 - "$w/p.json" "$page" <<'PY' || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read().replace('\\_', '_')
bad = []
fs = doc['findings'] + ((doc.get('fs') or {}).get('findings') or [])
for f in fs:
    todo = f.get('what_to_do', 'absent')
    if f['severity'] in ('warn', 'error') and not (isinstance(todo, str) and todo.endswith('.')):
        bad.append('%s (%s): what_to_do %r' % (f['id'], f['severity'], todo))
    if f['severity'] == 'info' and todo is not None:
        bad.append('%s (info): what_to_do %r, not null' % (f['id'], todo))
    if '.B ' + f['id'] not in page:
        bad.append('%s: not listed in awr-findings(7)' % f['id'])
if not any(f['id'] == 'fs_no_atomic' and f['severity'] == 'warn' for f in fs):
    bad.append('no fs_no_atomic warn on tmpfs: %s' % [f['id'] for f in fs])
for b in bad:
    print('FAIL: json:', b)
print('ok: json: %d findings, what_to_do as their severity asks' % len(fs) if not bad else '')
sys.exit(1 if bad else 0)
PY
[ "$fails" = 0 ] || { echo "$fails failed"; exit 1; }
