#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: the README and the guides in docs/ cannot drift from the tool: every
# "awr CMD --option" they show (in `code`, in indented examples and in fenced ``` blocks) names a
# command that `awr help` lists and options that `awr CMD --help` lists, and no merge left its
# conflict markers in them. Negative controls first: a text with an unknown command and an
# unknown option, in each kind of code, and a text with conflict markers must be flagged by the
# same checks.
#
#   cli/readme_commands.py AWR README.md [DOCS_DIR]
import glob
import os
import re
import subprocess
import sys

awr, readme = sys.argv[1:3]
docs = sys.argv[3] if len(sys.argv) > 3 else None
fails = 0


def check(ok, what):
    global fails
    print('%s: %s' % ('ok' if ok else 'FAIL', what))
    fails += not ok


def commands():
    out = subprocess.run([awr, 'help'], capture_output=True, text=True).stdout
    return {m.group(1) for m in (re.match(r'\s+([a-z][a-z-]+)\s', l) for l in out.splitlines()) if m}


helps = {}


def options_of(cmd):
    if cmd not in helps:
        p = subprocess.run([awr, cmd, '--help'], capture_output=True, text=True)
        helps[cmd] = set(re.findall(r'--[a-z][a-z0-9-]*', p.stdout))
    return helps[cmd]


def fenced(text):
    """the lines inside fenced ``` blocks of @text"""
    inside = False
    for l in text.splitlines():
        if l.lstrip().startswith('```'):
            inside = not inside
        elif inside:
            yield l.strip()


def code_spans(text):
    """`inline code`, indented lines and fenced lines of @text, each a string"""
    outside = re.sub(r'^\s*```.*?^\s*```[^\n]*$', '', text, flags=re.S | re.M)
    return (re.findall(r'`([^`\n]+)`', outside) +
            [l.strip() for l in outside.splitlines() if l.startswith('    ')] + list(fenced(text)))


def uses(text):
    """(command word, [long options]) for every awr command line shown as code in @text"""
    spans = code_spans(text)
    for sp in spans:
        for part in re.split(r'\||&&|;|\$\(|\bthen\b', sp):
            toks = part.split()
            for i, t in enumerate(toks[:-1]):
                if t == 'awr' and re.match(r'[a-z-]+$', toks[i + 1]):
                    yield toks[i + 1], sorted(set(re.findall(r'--[a-z][a-z0-9-]*', ' '.join(toks[i + 2:]))))


def problems(text, known):
    bad = []
    for cmd, opts in uses(text):
        if cmd in ('--version', '--help'):
            continue
        if cmd not in known:
            bad.append('awr %s: no such command (awr help lists %s)' % (cmd, ', '.join(sorted(known))))
            continue
        for o in opts:
            if o not in options_of(cmd) and o not in ('--help', '--version'):
                bad.append('awr %s %s: awr %s --help has no such option' % (cmd, o, cmd))
    return sorted(set(bad))


known = commands()
check(len(known) >= 15 and 'qualify' in known and 'report' in known, 'awr help lists %d commands' % len(known))

# negative control: the check flags what does not exist
control = problems('Run `awr frobnicate /dev/x` or\n\n    # awr probe /dev/x --no-such-option\n', known)
check(len(control) == 2 and any('frobnicate' in c for c in control) and any('--no-such-option' in c for c in control),
      'the check flags an unknown command and an unknown option: %s' % control)
control = problems('Run\n\n```sh\nawr frobnicate-too /dev/x\nawr list --no-such-filter\n```\n', known)
check(len(control) == 2 and any('frobnicate-too' in c for c in control) and any('--no-such-filter' in c for c in control),
      'the check flags them in a fenced block too: %s' % control)

def conflicts(text):
    """lines of @text that a merge left behind (<<<<<<<, =======, >>>>>>>)"""
    return [l for l in text.splitlines() if re.match(r'(<{7}|={7}|>{7})( |$)', l)]


# negative control: a text with a merge's markers is flagged
control = conflicts('a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> 1234 (x)\n| a ======= b |\n')
check(len(control) == 3, 'the check flags the 3 lines a merge conflict leaves: %s' % control)

texts = [('README', readme)]
if docs:
    guides = sorted(glob.glob(os.path.join(docs, '*.md')))
    check(len(guides) >= 8, 'docs/ holds %d guides' % len(guides))
    texts += [('docs/' + os.path.basename(g), g) for g in guides]
total = 0
for name, path in texts:
    with open(path) as f:
        text = f.read()
    n = sum(1 for _ in uses(text))
    total += n
    if name == 'README':
        check(n >= 15, 'the README shows %d awr command lines' % n)
    for p in problems(text, known):
        check(False, '%s: %s' % (name, p))
    for l in conflicts(text):
        check(False, '%s: a merge conflict marker left in: %s' % (name, l))
check(total >= 40, 'the README and the guides show %d awr command lines' % total)
print('readme_commands: %d failure(s)' % fails)
sys.exit(1 if fails else 0)
