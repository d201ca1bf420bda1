#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: lib/ keeps the shape of the design: a stage folder uses only the folders before it
# in the flow (platform, lib/ shared helpers, device, discover, decide, write, pages, database,
# verify, bench, qualify). Checked twice: the includes in the sources, and the symbols each object of
# the static library takes from the others. A stage folder not made yet is left out. And who declares
# what: every awr__ function a private header lib/STAGE/*.h declares is defined in lib/STAGE/*.c.
#   check-layout.py LIBDIR LIBATOMICWR.A
#   check-layout.py --self-test       (a made-up upward reference must be found)
#   check-layout.py --tests TESTSDIR [BUILDDIR]  (the tests mirror the tree, and each meson test
#                     of BUILDDIR is named after its file: tests/README)
import json
import os
import re
import subprocess
import sys

ORDER = ['platform', '', 'device', 'discover', 'decide', 'write', 'pages', 'database', 'verify',
         'bench', 'qualify']   # '' = lib/ itself


def rank(stage):
    return ORDER.index(stage)


def include_violations(libdir):
    bad = []
    for stage in ORDER:
        folder = os.path.join(libdir, stage)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(('.c', '.h')):
                continue
            for n, line in enumerate(open(os.path.join(folder, name)), 1):
                m = re.match(r'\s*#\s*include\s+"(?:\.\./)?([a-z_]+)/', line)
                if m and m.group(1) in ORDER and rank(m.group(1)) > rank(stage):
                    bad.append(f'lib/{stage + "/" if stage else ""}{name}:{n} includes the later stage {m.group(1)}/')
                elif m and m.group(1) not in ORDER:
                    bad.append(f'lib/{stage + "/" if stage else ""}{name}:{n} includes an unknown folder {m.group(1)}/')
    return bad


def member_stage(member):
    # meson names an object of lib/STAGE/x.c "STAGE_x.c.o" inside the archive
    for stage in ORDER:
        if stage and member.startswith(stage + '_'):
            return stage
    return ''


def symbol_violations(rows):
    """rows: (member, kind, symbol) from nm -A."""
    defined, used = {}, []
    for member, kind, sym in rows:
        if kind == 'U':
            used.append((member, sym))
        elif kind in 'TDRBW':
            defined[sym] = member
    bad = []
    for member, sym in used:
        if sym not in defined:
            continue
        a, b = member_stage(member), member_stage(defined[sym])
        if rank(b) > rank(a):
            bad.append(f'{member} ({a or "lib"}) calls {sym} of {defined[sym]} ({b}): a later stage')
    return bad


def declared_functions(text):
    """The functions a header declares (prototypes, not static inline definitions)."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
    text = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
    names, stmt, depth = [], '', 0
    for ch in text:
        stmt += ch
        depth += (ch == '{') - (ch == '}')
        if depth == 0 and ch in ';}':
            m = re.search(r'\b(awr__\w+)\s*\(', stmt)
            if ch == ';' and '{' not in stmt and m and not stmt.lstrip().startswith('typedef'):
                names.append(m.group(1))
            stmt = ''
    return names


def header_texts(libdir):
    """(stage, lib/STAGE/NAME.h, text) of every private header."""
    out = []
    for stage in ORDER:
        folder = os.path.join(libdir, stage)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith('.h'):
                rel = f'lib/{stage + "/" if stage else ""}{name}'
                out.append((stage, rel, open(os.path.join(folder, name)).read()))
    return out


def source_defines(libdir, stage, fn):
    """Does a source of lib/STAGE/ define @fn (one built into a program, not the library)?"""
    folder = os.path.join(libdir, stage)
    pattern = re.compile(r'^\w[^;]*\b' + fn + r'\s*\([^;]*?\)\s*\{', re.M)
    return any(pattern.search(open(os.path.join(folder, n)).read())
               for n in sorted(os.listdir(folder)) if n.endswith('.c'))


def declaration_violations(headers, rows, libdir=None):
    """headers: (stage, file, text); rows: (member, kind, symbol) from nm -A."""
    defined = {sym: member_stage(member) for member, kind, sym in rows if kind in 'TW'}
    bad = []
    for stage, rel, text in headers:
        for fn in declared_functions(text):
            if fn not in defined and libdir and source_defines(libdir, stage, fn):
                continue
            if fn not in defined:
                bad.append(f'{rel} declares {fn}, which no object of the library defines')
            elif defined[fn] != stage:
                bad.append(f'{rel} ({stage or "lib"}) declares {fn}, defined in '
                           f'{defined[fn] or "lib"}/: declare it in that stage\'s header')
    return bad


def nm_rows(archive):
    out = subprocess.run(['nm', '-A', archive], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r'[^:]+:([^:]+\.o):\s*(?:[0-9a-f]+)?\s+([A-Za-z])\s+(\S+)$', line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3)))
    return rows


def self_test():
    rows = [('device_device.c.o', 'T', 'awr_device_free'), ('discover_probe.c.o', 'T', 'awr_probe_path'),
            ('device_device.c.o', 'U', 'awr_probe_path'), ('discover_probe.c.o', 'U', 'awr_device_free')]
    bad = symbol_violations(rows)
    ok = len(bad) == 1 and 'awr_probe_path' in bad[0]
    print('self-test:', 'an upward call is found' if ok else f'FAIL: expected one violation, got {bad}')
    rows = [('device_device.c.o', 'T', 'awr__device_new'), ('discover_probe.c.o', 'T', 'awr__probe_x')]
    header = ('/* awr__probe_x(): not this */\nstatic inline int awr__inl(int a)\n{\n\treturn a;\n}\n'
              'struct awr__s { int (*awr__fp)(void); };\nstruct awr_device *awr__device_new(int t);\n'
              'void awr__probe_x(struct awr_device *d,\n\t\t  int f);\n')
    bad = declaration_violations([('device', 'lib/device/device.h', header)], rows)
    found = len(bad) == 1 and 'awr__probe_x' in bad[0]
    print('self-test:', 'a misplaced declaration is found' if found else
          f'FAIL: expected one misplaced declaration, got {bad}')
    return ok and found


# --- the tests mirror the tree (tests/README, "Where a test lives") -----------------------------
# tests/unit/STAGE/NAME.{c,py,sh}: STAGE a folder of lib/ ('lib' for lib/'s own files) or cli;
# tests/integration/CAPABILITY_what.{c,sh,py,h}: CAPABILITY one of these, or a helper shared by
# several capabilities.
UNIT_FOLDERS = [s or 'lib' for s in ORDER] + ['cli']
CAPABILITIES = ['bench', 'cli', 'db', 'discover', 'faults', 'journal', 'pages', 'prepare',
                'qualify', 'replay', 'stress', 'verify', 'write']
SHARED_HELPERS = ['with-scratch-xfs.sh', 'expect.sh', 'scratch_mounts.sh', 'xfs_shutdown.c']
TEST_SUFFIXES = ('.c', '.h', '.py', '.sh')


def test_violations(files):
    """files: paths under tests/, as 'unit/...' and 'integration/...'."""
    bad = []
    for rel in sorted(files):
        parts = rel.split('/')
        name = parts[-1]
        if name == 'meson.build' and len(parts) == 2:
            continue
        if parts[0] == 'unit':
            if len(parts) == 2 and name.endswith('.h'):
                continue        # a fixture helper shared by several stages' tests
            if len(parts) != 3 or parts[1] not in UNIT_FOLDERS or not name.endswith(TEST_SUFFIXES):
                bad.append(f'tests/{rel}: a unit test lives in tests/unit/STAGE/ (STAGE one of '
                           f'{", ".join(UNIT_FOLDERS)}) and ends in .c, .py, .sh or .h')
        elif parts[0] == 'integration':
            cap = name.split('_', 1)[0]
            if len(parts) == 2 and name in SHARED_HELPERS:
                continue
            if len(parts) != 2 or cap not in CAPABILITIES or '_' not in name or \
                    not name.endswith(TEST_SUFFIXES):
                bad.append(f'tests/{rel}: an integration test is '
                           f'tests/integration/CAPABILITY_what (.c, .sh, .py, .h) with '
                           f'CAPABILITY one of {", ".join(CAPABILITIES)}')
    return bad


def test_files(testsdir):
    out = []
    for top in ('unit', 'integration'):
        for root, dirs, names in os.walk(os.path.join(testsdir, top)):
            dirs[:] = [d for d in dirs if d != '__pycache__']
            for n in names:
                out.append(os.path.relpath(os.path.join(root, n), testsdir))
    return out


def tests_self_test():
    files = ['unit/meson.build', 'unit/sysfs_fixture.h', 'unit/decide/rules.c', 'unit/lib/size.c',
             'unit/cli/cli_stack.py', 'integration/meson.build', 'integration/db_verdict.sh',
             'integration/with-scratch-xfs.sh', 'integration/pages_stamp.h',
             'unit/size.c', 'unit/qualifying/x.c', 'integration/concurrency.c',
             'integration/sub/db_x.sh', 'integration/db_notes.txt']
    bad = test_violations(files)
    wrong = ['unit/size.c', 'unit/qualifying/x.c', 'integration/concurrency.c',
             'integration/sub/db_x.sh', 'integration/db_notes.txt']
    ok = len(bad) == len(wrong) and all(any(f'tests/{w}:' in b for b in bad) for w in wrong)
    print('self-test:', 'test files in the wrong place are found' if ok else
          f'FAIL: expected {wrong} found, got {bad}')
    return ok


# --- a test is named after its file (tests/README, "How a test is named") ----------------------
# NAME = the stem of the file the test runs ('-' written '_'), then each word argument the test gives
# that file (not a path; an option's dashes dropped), joined by '_'. A second build of one file adds
# a word of its executable's name (unit-mountinfo_builtin: mountinfo_builtin). The file is the first
# command word inside the source tree (a script, or the first source of a built executable), past an
# interpreter and the scratch-filesystem wrapper with its options.
WRAPPERS = ['with-scratch-xfs.sh']


def stem(path):
    return os.path.splitext(os.path.basename(path))[0].replace('-', '_')


def inside(path, root):
    return os.path.normpath(path).startswith(os.path.normpath(root) + os.sep)


def test_file(cmd, srcroot, exes):
    """(file, executable target name or None, the arguments after it) of one test's command."""
    for i, word in enumerate(cmd):
        path = os.path.normpath(word)
        if path in exes:
            return exes[path][0], exes[path][1], cmd[i + 1:]
        if inside(path, srcroot) and os.path.basename(path) not in WRAPPERS:
            return path, None, cmd[i + 1:]
    return None, None, []


def expected_name(cmd, srcroot, exes):
    """The name the rule gives a test's command, and the word its executable may add (or None)."""
    path, target, args = test_file(cmd, srcroot, exes)
    if path is None:
        return None, None
    words = [a.lstrip('-').replace('-', '_') for a in args if '/' not in a and a.strip('-')]
    return '_'.join([stem(path)] + words), target


def name_violations(tests, targets, srcroot):
    """tests, targets: meson's intro-tests.json and intro-targets.json (lists of dicts)."""
    exes = {}
    for t in targets:
        srcs = [s for ts in t.get('target_sources', []) for s in ts.get('sources', [])
                if inside(s, srcroot)]
        for f in t.get('filename', []):
            if srcs:
                exes[os.path.normpath(f)] = (os.path.normpath(srcs[0]), t['name'])
    bad, seen = [], {}
    for t in tests:
        name = t['name']
        want, target = expected_name(t['cmd'], srcroot, exes)
        extra = name[len(want) + 1:] if want and name.startswith(want + '_') else ''
        if want is None:
            bad.append(f'{name}: runs no file of the source tree ({" ".join(t["cmd"][:3])})')
        elif name != want and not (extra and target and extra in target.replace('-', '_')):
            bad.append(f'{name}: should be named {want} (its file and arguments)')
        if name in seen:
            bad.append(f'{name}: two tests of that name')
        seen[name] = True
    return bad


def names_self_test():
    src, bld = '/s', '/s/b'
    targets = [{'name': 'short_pin', 'filename': [f'{bld}/tests/short_pin'],
                'target_sources': [{'sources': [f'{src}/tests/integration/qualify_short_pin.c']}]},
               {'name': 'unit-mountinfo_builtin', 'filename': [f'{bld}/tests/unit-mb'],
                'target_sources': [{'sources': [f'{src}/tests/unit/platform/mountinfo.c',
                                                f'{src}/lib/platform/mountinfo.c']}]}]
    wrap = f'{src}/tests/integration/with-scratch-xfs.sh'
    tests = [{'name': 'qualify_short_pin', 'cmd': [wrap, f'{bld}/tests/short_pin']},
             {'name': 'mountinfo_builtin', 'cmd': [f'{bld}/tests/unit-mb']},
             {'name': 'pages_crash_faults_auto',
              'cmd': [wrap, '--size', '1G', f'{src}/tests/integration/pages_crash.sh', 'faults',
                      'auto', f'{bld}/cli/awr']},
             {'name': 'check_layout_tests',
              'cmd': ['/usr/bin/python3', f'{src}/tests/check-layout.py', '--tests', f'{src}/t']},
             # deliberately misnamed: each must be found
             {'name': 'short_pin', 'cmd': [wrap, f'{bld}/tests/short_pin']},
             {'name': 'pages_crash_auto',
              'cmd': [wrap, f'{src}/tests/integration/pages_crash.sh', 'faults', 'auto']},
             {'name': 'cli-xfs', 'cmd': [wrap, f'{src}/tests/integration/cli_xfs.sh', '/awr']},
             {'name': 'mountinfo_extra', 'cmd': [f'{bld}/tests/unit-mb']},
             {'name': 'skipped', 'cmd': ['/bin/sh', '-c', 'exit 77']}]
    bad = name_violations(tests, targets, src)
    wrong = ['short_pin', 'pages_crash_auto', 'cli-xfs', 'mountinfo_extra', 'skipped']
    ok = len(bad) == len(wrong) and all(any(b.startswith(w + ':') for b in bad) for w in wrong)
    print('self-test:', 'tests named against the rule are found' if ok else
          f'FAIL: expected {wrong} found, got {bad}')
    return ok


def names_main(builddir, srcroot):
    info = os.path.join(builddir, 'meson-info')
    tests = json.load(open(os.path.join(info, 'intro-tests.json')))
    targets = json.load(open(os.path.join(info, 'intro-targets.json')))
    bad = name_violations(tests, targets, srcroot)
    for b in bad:
        print('FAIL:', b)
    print(f'test names: {len(tests)} meson tests of {builddir}, {len(bad)} named against the rule')
    return bad


def tests_main(testsdir, builddir=None):
    if not tests_self_test() or not names_self_test():
        return 1
    files = test_files(testsdir)
    bad = test_violations(files)
    for b in bad:
        print('FAIL:', b)
    print(f'test layout: {len(files)} files of tests/unit and tests/integration, '
          f'{len(bad)} misplaced')
    if builddir:
        bad += names_main(builddir, os.path.dirname(os.path.abspath(testsdir)))
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return 0 if self_test() and tests_self_test() and names_self_test() else 1
    if sys.argv[1:2] == ['--tests'] and len(sys.argv) in (3, 4):
        return tests_main(*sys.argv[2:])
    libdir, archive = sys.argv[1:3]
    if not self_test():
        return 1
    rows = nm_rows(archive)
    stages = {member_stage(m) for m, _, _ in rows}
    folders = {s for s in ORDER if os.path.isdir(os.path.join(libdir, s))}
    if folders - stages:
        print(f'FAIL: no object of {sorted(folders - stages)} in {archive}: the archive names changed?')
        return 1
    bad = include_violations(libdir) + symbol_violations(rows)
    bad += declaration_violations(header_texts(libdir), rows, libdir)
    for b in bad:
        print('FAIL:', b)
    print(f'layout: {len(rows)} symbol rows of {len({m for m, _, _ in rows})} objects, {len(bad)} violation(s)')
    return 1 if bad else 0


sys.exit(main())
