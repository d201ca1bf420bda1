#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: the public headers, the version map and the shared library's exports agree, and
# NEWS states their number.
#   AWR_TEST_HOOKS_BUILD=true|false check-symbols.py INCLUDEDIR MAPFILE SOLIB MANDIR NEWS
# INCLUDEDIR holds the umbrella libatomicwr.h and the per-area headers libatomicwr/*.h; the
# umbrella includes every per-area header. The test seams (declared under #ifdef AWR_TEST_HOOKS)
# are exported only by a library built with -Dtest_hooks=true (AWR_TEST_HOOKS_BUILD "true"; in the
# environment, so that the meson test is named after this file alone: tests/README).
import os
import re
import subprocess
import sys

incdir, mapfile, solib, mandir, news = sys.argv[1:6]
hooks_build = os.environ.get('AWR_TEST_HOOKS_BUILD', 'false')

umbrella = open(os.path.join(incdir, 'libatomicwr.h')).read()
areas = sorted(os.listdir(os.path.join(incdir, 'libatomicwr')))
text = umbrella
bad = 0
for name in areas:
    if not name.endswith('.h'):
        continue
    text += open(os.path.join(incdir, 'libatomicwr', name)).read()
    if f'#include <libatomicwr/{name}>' not in umbrella:
        print(f'FAIL: libatomicwr.h does not include libatomicwr/{name}')
        bad += 1
text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
declared = set(re.findall(r'^[A-Za-z_][\w \*]*?\b(awr_\w+)\s*\(', text, flags=re.M))
hooks = set()
for block in re.findall(r'^#ifdef AWR_TEST_HOOKS\n(.*?)^#endif', text, flags=re.M | re.S):
    hooks |= set(re.findall(r'^[A-Za-z_][\w \*]*?\b(awr_\w+)\s*\(', block, flags=re.M))

mapped = set()
for block in re.findall(r'global:(.*?)(?:local:|\}[^;]*;)', open(mapfile).read(), flags=re.S):
    mapped |= set(re.findall(r'\b(awr_\w+)\s*;', block))

out = subprocess.run(['nm', '-D', '--defined-only', solib], capture_output=True, text=True, check=True)
exported = set(m.group(1) for m in re.finditer(r'\s[TW]\s+(awr_\w+)(@\S*)?$', out.stdout, flags=re.M))
if hooks_build != 'true':
    for n in sorted(hooks & exported):
        print(f'FAIL: the test seam {n} is exported by a library built without -Dtest_hooks=true')
        bad += 1
shipped = mapped if hooks_build == 'true' else mapped - hooks

for name, missing_from, source in ((declared - mapped, 'the version map', 'header'),
                                   (mapped - declared, 'the header', 'version map'),
                                   (shipped - exported, 'the library exports', 'version map'),
                                   (exported - mapped, 'the version map', 'library exports')):
    for n in sorted(name):
        print(f'FAIL: {n} is in the {source} but not in {missing_from}')
        bad += 1
man_index = open(os.path.join(mandir, 'meson.build')).read()
for n in sorted(mapped):
    if not os.path.exists(os.path.join(mandir, n + '.3')) and f"'{n}'" not in man_index:
        print(f'FAIL: {n} has no man page (man/{n}.3 or an alias in man/meson.build)')
        bad += 1
# NEWS says how many functions the release exports ("its 185 functions in version node"), a
# figure that changes with every export added or removed: it must be the map's, less the seams.
said = re.search(r'\bits (\d+) functions in version node', open(news).read())
if not said or int(said.group(1)) != len(mapped - hooks):
    print(f'FAIL: NEWS says "its {said.group(1) if said else "N"} functions in version node", '
          f'the version map has {len(mapped - hooks)} (less the test seams)')
    bad += 1
print(f'symbols: {len(declared)} declared, {len(mapped)} mapped, {len(exported)} exported, '
      f'{len(hooks)} test seam(s) {"in" if hooks_build == "true" else "out of"} the library')
sys.exit(1 if bad else 0)
