#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The finding catalogue (lib/findings.def) read once, written three ways.

  gen-findings.py header DEF OUT    findings_gen.h: the keys and the printf templates
  gen-findings.py man DEF OUT       awr-findings.7: every id, its severity, sentence, what to do
  gen-findings.py check DEF SRCDIR [FILE...]
                                    exit 1 when an emitter names no entry, an entry is never
                                    emitted, or a warn/error entry has no what to do; FILEs
                                    (relative to SRCDIR) may still emit outside the catalogue
"""
import os
import re
import sys

TOKEN = re.compile(r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"|\w+|.', re.S)
SEVERITIES = ('INFO', 'WARN', 'ERROR')
# PRIu32 and friends in a template stand for a number
PRI = re.compile(r'PRI[diouxX](8|16|32|64|PTR|MAX)')


def tokens(text):
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if not t.isspace() and not t.startswith(('/*', '//')):
            yield t


def entries(path):
    """[{key, id, sev, tmpl: [literal or PRI token], todo: str}] in file order"""
    toks = list(tokens(open(path, encoding='utf-8').read()))
    out, i = [], 0
    while i < len(toks):
        macro = toks[i]
        if macro not in ('FINDING', 'VARIANT') or toks[i + 1] != '(':
            sys.exit(f'{path}: expected FINDING( or VARIANT( at {" ".join(toks[i:i + 3])}')
        args, cur, i = [], [], i + 2
        while toks[i] != ')':
            if toks[i] == ',':
                args.append(cur)
                cur = []
            else:
                cur.append(toks[i])
            i += 1
        args.append(cur)
        i += 1
        if macro == 'FINDING':
            args.insert(1, ['"%s"' % args[0][0]])
        if len(args) != 5:
            sys.exit(f'{path}: {macro} {args[0]} takes {4 if macro == "FINDING" else 5} arguments')
        key, ident, sev, tmpl, todo = args
        if sev[0] not in SEVERITIES:
            sys.exit(f'{path}: {key[0]}: severity {sev[0]} is none of {SEVERITIES}')
        out.append({'key': key[0], 'id': unquote(ident), 'sev': sev[0], 'tmpl': tmpl,
                    'todo': unquote(todo)})
    keys = [e['key'] for e in out]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        sys.exit(f'{path}: keys twice: {sorted(dup)}')
    return out


def unquote(parts):
    s = ''
    for p in parts:
        if not p.startswith('"'):
            sys.exit(f'not a string literal: {p}')
        s += bytes(p[1:-1], 'utf-8').decode('unicode_escape')
    return s


def header(defs, out):
    lines = ['/* Generated from lib/findings.def by lib/gen-findings.py: do not edit. */',
             '#ifndef AWR_FINDINGS_GEN_H', '#define AWR_FINDINGS_GEN_H', '',
             '#include <inttypes.h>', '', 'enum awr__finding_key {']
    lines += [f'\tAWR__F_{e["key"]},' for e in defs]
    lines += ['\tAWR__F_NR', '};', '']
    for e in defs:
        lines.append(f'#define AWR__FMT_{e["key"]} \\')
        lines.append('\t' + ' '.join(e['tmpl']))
    lines += ['', '/* the key and its template, as the first arguments of an emitter */',
              '#define AWR_FIND(key) AWR__F_##key, AWR__FMT_##key', '',
              '#endif /* AWR_FINDINGS_GEN_H */', '']
    write(out, '\n'.join(lines))


def readable(tmpl):
    """a template as a reader sees it: each conversion a placeholder"""
    s = ''
    for p in tmpl:
        if PRI.fullmatch(p):
            s = re.sub(r'%[-+ #0]*\d*$', '', s) + '\0'
        else:
            s += unquote([p])
    s = re.sub(r'%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxX]', '\0', s)
    s = re.sub(r'%[-+ #0]*\d*(?:\.\d+)?s', '...', s)
    return s.replace('%%', '%').replace('\0', 'N')


def roff(s):
    s = s.replace('\\', '\\e').replace('-', '\\-')
    return ('\\&' + s) if s.startswith(('.', "'")) else s


MAN_HEAD = """.\\" SPDX-License-Identifier: MIT
.\\" Generated from lib/findings.def by lib/gen-findings.py: do not edit.
.TH AWR-FINDINGS 7 "" "libatomicwr" "libatomicwr"
.SH NAME
awr-findings \\- the findings awr probe, awr decode and the library report
.SH DESCRIPTION
A finding is one fact about a path or a device that explains its atomic
write limits: an id (stable, snake_case), a severity and one sentence with
the numbers. Findings of severity
.B warn
and
.B error
also say what to do. The library returns them in
.B struct awr_finding
(\\fBawr_probe_finding\\fP(3), \\fBawr_device_finding\\fP(3),
\\fBawr_fs_findings\\fP(3)); \\fBawr\\fP(1) prints them under
.B findings:
and, with
.BR "\\-o json" ,
as objects with the keys
.BR id ,
.BR severity ,
.B message
and, for warn and error,
.BR what_to_do .
.PP
This list is generated from the library's catalogue, so it names every id
the library can emit. In a sentence, N stands for a number and ... for a
name or a phrase. Some ids have more than one sentence.
.SH FINDINGS
"""

MAN_TAIL = """.SH SEE ALSO
.BR awr (1),
.BR awr_probe_path (3),
.BR awr_fs_findings (3),
.BR libatomicwr (7)
"""


def man(defs, out):
    names = {'INFO': 'info', 'WARN': 'warn', 'ERROR': 'error'}
    text, seen = MAN_HEAD, {}
    for e in defs:
        seen.setdefault(e['id'], []).append(e)
    for ident, es in seen.items():
        sevs = sorted({names[e['sev']] for e in es}, key=['info', 'warn', 'error'].index)
        text += f'.TP\n.B {roff(ident)}\n({"/".join(sevs)})'
        for n, e in enumerate(es):
            text += ('\n.br\n' if n else '\n') + f'{roff(readable(e["tmpl"]))}.'
            if e['todo']:
                text += f'\n.br\nWhat to do: {roff(e["todo"])}'
        text += '\n'
    write(out, text + MAN_TAIL)


def write(out, text):
    with open(out + '.tmp', 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(out + '.tmp', out)


# an emitter through the catalogue, and the legacy form (a string id and a severity)
USE = re.compile(r'AWR_FIND\((\w+)\)')
LEGACY = re.compile(r'"([a-z0-9_]+)",\s*AWR_SEV_(INFO|WARN|ERROR)')


def check(defs, srcdir, pending):
    keys = {e['key'] for e in defs}
    used, legacy, bad = set(), [], []
    for root, _, files in os.walk(srcdir):
        for name in files:
            if not name.endswith('.c'):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, srcdir)
            text = open(path, encoding='utf-8').read()
            for m in USE.finditer(text):
                if m.group(1) == 'key':
                    continue
                used.add(m.group(1))
                if m.group(1) not in keys:
                    bad.append(f'{rel}: AWR_FIND({m.group(1)}) is not in the catalogue')
            for m in LEGACY.finditer(text):
                legacy.append(f'{rel}: "{m.group(1)}" emitted outside the catalogue')
                if rel not in pending:
                    bad.append(legacy[-1])
    if legacy:
        print(f'{len(legacy)} emitters still outside the catalogue, in: '
              f'{" ".join(sorted({x.split(":")[0] for x in legacy}))}')
    bad += [f'findings.def: {k} is never emitted' for k in sorted(keys - used)]
    bad += [f'findings.def: {e["key"]} ({e["sev"]}) has no what to do'
            for e in defs if e['sev'] != 'INFO' and not e['todo'].strip()]
    bad += [f'findings.def: {e["key"]}: what to do is not one sentence ending in "."'
            for e in defs if e['todo'] and not e['todo'].rstrip().endswith('.')]
    for b in bad:
        print(b)
    print(f'{len(defs)} entries, {len({e["id"] for e in defs})} ids, '
          f'{len(used & keys)} emitted through the catalogue, {len(bad)} problems')
    return 1 if bad else 0


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('header', 'man', 'check'):
        sys.exit(__doc__)
    defs = entries(sys.argv[2])
    if sys.argv[1] == 'header':
        header(defs, sys.argv[3])
    elif sys.argv[1] == 'man':
        man(defs, sys.argv[3])
    else:
        sys.exit(check(defs, sys.argv[3], set(sys.argv[4:])))


if __name__ == '__main__':
    main()
