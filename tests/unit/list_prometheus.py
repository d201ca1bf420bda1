#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr list -o prometheus on a sysfs tree built here (AWR_SYSFS_ROOT), read by the
# Prometheus Python client's parser (tests/prom_check.py): every family a gauge with HELP and TYPE,
# each disk's limits equal to its sysfs files and to awr list -o json, one verdict gauge at 1 per
# disk, a model with a double quote and a backslash escaped so that the label reads back exactly.
# Negative control: the same text with that label's escaping undone must not read back as the model.
# Also: -o prometheus is refused (exit 2) by a command that does not write it.
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..'))
from checks import check, finish  # noqa: E402

awr = sys.argv[1]
prom = os.path.join(here, '..', 'prom_check.py')


def put(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('%s\n' % value)


def disk(root, name, devno, umin, umax, bnd, model, parts=()):
    d = os.path.join(root, 'block', name)
    put(os.path.join(d, 'dev'), devno)
    put(os.path.join(d, 'size'), 131072)
    put(os.path.join(d, 'device', 'model'), model)
    q = {'logical_block_size': 4096, 'physical_block_size': 4096, 'max_segments': 128, 'max_hw_sectors_kb': 512,
         'atomic_write_unit_min_bytes': umin, 'atomic_write_unit_max_bytes': umax,
         'atomic_write_max_bytes': umax, 'atomic_write_boundary_bytes': bnd}
    for k, v in q.items():
        put(os.path.join(d, 'queue', k), v)
    os.makedirs(os.path.join(d, 'holders'), exist_ok=True)
    os.makedirs(os.path.join(root, 'dev', 'block'), exist_ok=True)
    os.symlink(d, os.path.join(root, 'dev', 'block', devno))
    for pname, pdev, start in parts:
        p = os.path.join(d, pname)
        put(os.path.join(p, 'partition'), 1)
        put(os.path.join(p, 'start'), start)
        put(os.path.join(p, 'dev'), pdev)
        put(os.path.join(p, 'size'), 2048)
        os.symlink(p, os.path.join(root, 'dev', 'block', pdev))


model = 'Odd "Disk" \\ 7'
with tempfile.TemporaryDirectory() as root:
    disk(root, 'awrp0n1', '259:911', 4096, 65536, 0, model,
         parts=[('awrp0n1p1', '259:912', 2048), ('awrp0n1p2', '259:913', 2049)])
    disk(root, 'awrp1n1', '259:921', 4096, 16384, 0, 'Plain Disk')
    disk(root, 'awrp2', '8:930', 0, 0, 0, 'No Atomics')
    env = dict(os.environ, AWR_SYSFS_ROOT=root)
    out = {}
    for fmt in ('prometheus', 'json'):
        p = subprocess.run([awr, 'list', '-o', fmt], capture_output=True, text=True, env=env)
        check(p.returncode == 0, 'awr list -o %s exited %d: %s' % (fmt, p.returncode, p.stderr))
        out[fmt] = os.path.join(root, 'list.' + fmt)
        with open(out[fmt], 'w') as f:
            f.write(p.stdout)
    text = open(out['prometheus']).read()
    check('model="Odd \\"Disk\\" \\\\ 7"' in text, 'the model label is not escaped: %s' %
          [line for line in text.splitlines() if 'awrp0n1' in line][:1])
    p = subprocess.run([sys.executable, prom, 'list', out['prometheus'], out['json'], os.path.join(root, 'block')],
                       capture_output=True, text=True)
    print(p.stdout.strip())
    check(p.returncode == 0, 'prom_check list exited %d: %s %s' % (p.returncode, p.stdout, p.stderr))
    check('awr_atomic_verdict{device="awrp0n1",verdict="misaligned"} 1' in text, 'awrp0n1 (a partition at 2049) is not misaligned')
    check('awr_atomic_verdict{device="awrp2",verdict="none"} 1' in text, 'awrp2 is not "none"')
    # the control: with the label's escaping undone, the parser must not read the model back
    bad = os.path.join(root, 'bad.prom')
    with open(bad, 'w') as f:
        f.write(text.replace('Odd \\"Disk\\" \\\\ 7', model))
    p = subprocess.run([sys.executable, prom, 'list', bad, out['json'], os.path.join(root, 'block')],
                       capture_output=True, text=True)
    print('control:', (p.stdout.strip().splitlines() or ['(nothing)'])[0])
    check(p.returncode != 0, 'control: the unescaped label was read back as the model: %s' % p.stdout)
    p = subprocess.run([awr, 'probe', root, '-o', 'prometheus'], capture_output=True, text=True, env=env)
    check(p.returncode == 2 and 'written by awr list and awr qualify only' in p.stderr and not p.stdout,
          'probe -o prometheus: exit %d, %s' % (p.returncode, p.stderr))
finish("list_prometheus")
