#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: one source for --help and the man pages. Every command's --help (and awr help CMD,
# the same text) has its usage line, a one-line purpose (the one awr help lists), a synopsis whose
# options are the command's own (and name every option but the help and output ones), the options,
# and examples whose options exist; its built page awr-CMD(1) has NAME with that purpose, the
# synopsis, every option of the table in OPTIONS and every example of --help; awr(1) lists every
# command. Negative control: a --help without examples and a page without an option are flagged.
#   help_pages.py AWR MAN_BUILD_DIR
import os
import re
import subprocess
import sys

awr, mandir = sys.argv[1:3]
fails = 0


def check(ok, what):
    global fails
    print('%s: %s' % ('ok' if ok else 'FAIL', what))
    fails += not ok


def run(*args):
    return subprocess.run([awr] + list(args), capture_output=True, text=True).stdout


def table(cmd):
    """{--long or -s: argument} from awr help --complete CMD"""
    opts = {}
    for line in run('help', '--complete', cmd).splitlines():
        if line.startswith('operand '):
            continue
        long, short, arg = line.split()
        opts[long] = opts[short] = arg
    opts.pop('-', None)
    return opts


def roff_text(page):
    """the words of a page, escapes undone"""
    t = re.sub(r'\\f[BIRP]', '', page).replace('\\-', '-').replace('\\e', '\\').replace('\\&', '')
    return t


def help_problems(cmd, text, purpose, opts):
    lines = text.splitlines()
    bad = []
    if not lines or not lines[0].startswith('Usage: awr %s [OPTION...]' % cmd):
        bad.append('first line %r' % lines[:1])
    if len(lines) < 3 or lines[1] != purpose:
        bad.append('second line is not the purpose %r: %r' % (purpose, lines[1:2]))
    syn = lines[2].strip() if len(lines) > 2 else ''
    if not syn.startswith('awr ' + cmd):
        bad.append('third line is not the synopsis: %r' % syn)
    named = set(re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', syn))
    bad += ['synopsis names %s, not an option' % o for o in sorted(named - set(opts))]
    bad += ['synopsis lacks %s' % o for o in sorted(o for o in opts if o.startswith('--') and
                                                     o not in ('--help', '--usage', '--output') and
                                                     o not in named)]
    ex = text.split('\nExamples:\n', 1)
    examples = [l[2:] for l in ex[1].splitlines() if l.startswith('  awr ') or
                l.startswith('  ') and '| awr ' in l or '&& awr ' in l] if len(ex) == 2 else []
    if not examples:
        bad.append('no examples')
    for e in examples:
        bad += ['example %r: %s is no option of %s' % (e, o, cmd)
                for o in re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', e)
                if o not in opts and e != 'awr --version']
    return bad, syn, examples


def page_problems(cmd, page, purpose, syn, examples, opts):
    t = roff_text(page)
    bad = []
    if not re.search(r'^\.SH NAME\nawr-%s - %s$' % (re.escape(cmd), re.escape(purpose)), t, re.M):
        bad.append('NAME is not "awr-%s - %s"' % (cmd, purpose))
    for sec in ('SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXAMPLES', 'SEE ALSO'):
        if '\n.SH %s\n' % sec not in t:
            bad.append('no %s section' % sec)
    opt_sec = t.split('\n.SH OPTIONS\n', 1)[-1].split('\n.SH ', 1)[0]
    bad += ['OPTIONS lacks %s' % o for o in opts if o.startswith('--') and o not in opt_sec]
    if syn[len('awr ' + cmd):].strip() not in t:
        bad.append('synopsis not in the page')
    bad += ['example not in the page: %r' % e for e in examples if e not in t]
    return bad


commands = {}
for line in run('help').splitlines():
    m = re.match(r'  ([a-z][a-z-]+) +(.*)$', line)
    if m:
        commands[m.group(1)] = m.group(2)
check(len(commands) >= 17, 'awr help lists %d commands with their purposes' % len(commands))
check(run('help', '--help') == run('help') == run('--help'),
      'awr help --help, awr help and awr --help list the commands')
check(set(commands) == set(run('help', '--complete').split()),
      'awr help and awr help --complete name the same commands')
overview = roff_text(open(os.path.join(mandir, 'awr.1'), encoding='utf-8').read())
for cmd, purpose in sorted(commands.items()):
    if cmd == 'help':
        continue
    opts = table(cmd)
    text = run(cmd, '--help')
    check(text == run('help', cmd), 'awr help %s is awr %s --help' % (cmd, cmd))
    bad, syn, examples = help_problems(cmd, text, purpose, opts)
    check(not bad, 'awr %s --help: purpose, synopsis, options, %d examples %s' %
          (cmd, len(examples), bad))
    path = os.path.join(mandir, 'awr-%s.1' % cmd)
    page = open(path, encoding='utf-8').read() if os.path.exists(path) else ''
    bad = page_problems(cmd, page, purpose, syn, examples, opts)
    check(not bad, 'awr-%s(1): NAME, SYNOPSIS, OPTIONS and EXAMPLES as --help %s' % (cmd, bad))
    check('.BR awr-%s (1)\n' % cmd in overview, 'awr(1) lists awr-%s(1)' % cmd)

# negative controls: the same checks flag a --help without examples and a page without an option
opts = table('probe')
text = run('probe', '--help')
bad, syn, ex = help_problems('probe', text.split('\nExamples:')[0], commands['probe'], opts)
check('no examples' in bad, 'control: a --help without examples is flagged')
page = open(os.path.join(mandir, 'awr-probe.1'), encoding='utf-8').read()
_, syn, ex = help_problems('probe', text, commands['probe'], opts)
check('OPTIONS lacks --require' in page_problems('probe', page.replace('require', 'requir'),
                                                 commands['probe'], syn, ex, opts),
      'control: a page without an option is flagged')
print('help_pages: %d failure(s)' % fails)
sys.exit(1 if fails else 0)
