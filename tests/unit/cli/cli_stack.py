#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr probe -o json of a file whose disk is an md raid1 with atomic legs, in a sysfs fixture tree (AWR_SYSFS_ROOT): stack.{type, legs[], derived} as documented, derived naming this kernel, the stacked result against the disk's sysfs, and a leg without atomics named.
import json
import os
import shutil
import subprocess
import sys
import tempfile

awr = sys.argv[1]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print('FAIL: ' + what)


def put(root, rel, value):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('%s\n' % value)


def queue(root, disk, umin, umax, maxb, bnd=0, io_min=512):
    for name, v in (('atomic_write_unit_min_bytes', umin), ('atomic_write_unit_max_bytes', umax),
                    ('atomic_write_max_bytes', maxb), ('atomic_write_boundary_bytes', bnd),
                    ('logical_block_size', 4096), ('physical_block_size', 4096), ('max_segments', 128),
                    ('max_hw_sectors_kb', 512), ('chunk_sectors', 0), ('minimum_io_size', io_min)):
        put(root, os.path.join(disk, 'queue', name), v)


def kernel():
    rel = os.uname().release
    major, minor = rel.split('.')[:2]
    rest = rel.split('.')[2] if rel.count('.') >= 2 else '0'
    patch = ''.join(c for c in rest.split('-')[0].split('+')[0] if c.isdigit()) or '0'
    return (int(major), int(''.join(c for c in minor if c.isdigit()))), '%s.%s%s' % (
        major, ''.join(c for c in minor if c.isdigit()), '' if patch == '0' else '.' + patch)


tmp = tempfile.mkdtemp(prefix='awr-cli-stack.')
try:
    target = os.path.join(tmp, 'file')
    with open(target, 'wb') as f:
        f.write(b'\0' * 4096)
    st = os.stat(target)
    root = os.path.join(tmp, 'sys')
    queue(root, 'devices/virtual/block/md0', 4096, 32768, 32768)
    queue(root, 'devices/pci/nvme0n1', 4096, 32768, 32768)
    queue(root, 'devices/pci/nvme1n1', 4096, 32768, 32768)
    put(root, 'devices/virtual/block/md0/size', 2048)
    put(root, 'devices/virtual/block/md0/md/level', 'raid1')
    put(root, 'devices/virtual/block/md0/md/dev-nvme0n1/offset', 2048)
    put(root, 'devices/virtual/block/md0/md/dev-nvme1n1/offset', 2048)
    os.makedirs(os.path.join(root, 'devices/virtual/block/md0/slaves'))
    os.symlink('../../../../pci/nvme0n1', os.path.join(root, 'devices/virtual/block/md0/slaves/nvme0n1'))
    os.symlink('../../../../pci/nvme1n1', os.path.join(root, 'devices/virtual/block/md0/slaves/nvme1n1'))
    os.makedirs(os.path.join(root, 'block'))
    os.symlink('../devices/virtual/block/md0', os.path.join(root, 'block/md0'))
    os.makedirs(os.path.join(root, 'dev/block'))
    os.symlink('../../devices/virtual/block/md0',
               os.path.join(root, 'dev/block/%d:%d' % (os.major(st.st_dev), os.minor(st.st_dev))))
    env = dict(os.environ, AWR_SYSFS_ROOT=root)

    def probe():
        p = subprocess.run([awr, 'probe', target, '-o', 'json'], capture_output=True, text=True, env=env)
        check(p.returncode == 0, 'probe exited %d: %s' % (p.returncode, p.stderr))
        return json.loads(p.stdout) if p.returncode == 0 else {}

    (maj, mnr), kv = kernel()
    stacks = (maj, mnr) >= (6, 13)
    j = probe()
    s = j.get('stack') or {}
    check(j.get('sysfs', {}).get('disk') == 'md0', 'the file lies on md0 in the fixture: %s' % j.get('sysfs'))
    check(s.get('type') == 'md-raid1' and s.get('disk') == 'md0' and s.get('chunk_bytes') == 0, 'stack: %s' % s)
    check([l.get('name') for l in s.get('legs', [])] == ['nvme0n1', 'nvme1n1'], 'legs: %s' % s.get('legs'))
    check(all((l['unit_min'], l['unit_max'], l['max_bytes'], l['boundary'], l['start']) ==
              (4096, 32768, 32768, 0, 2048 * 512) for l in s.get('legs', [])), 'leg limits: %s' % s.get('legs'))
    d = s.get('derived') or {}
    check(d.get('kernel') == kv and d.get('this_kernel') is True, 'derived names this kernel %s: %s' % (kv, d))
    check(s.get('kernel_stacks') is stacks, 'kernel_stacks on %s' % kv)
    if stacks:
        check((d.get('unit_min'), d.get('unit_max'), d.get('max_bytes'), d.get('boundary')) == (4096, 32768, 32768, 0),
              'stacked result: %s' % d)
    ids = [f['id'] for f in j.get('findings', [])]
    check('stack_sysfs_mismatch' not in ids, 'the stacked result equals sysfs of md0: %s' % j.get('findings'))

    # a leg without atomics (a loop device, say): off, named; sysfs still says 32K -> mismatch named too
    queue(root, 'devices/pci/nvme1n1', 0, 0, 0)
    j = probe()
    s = j.get('stack') or {}
    ids = [f['id'] for f in j.get('findings', [])]
    check(s.get('derived', {}).get('supported') is False, 'a leg without atomics: off: %s' % s.get('derived'))
    if stacks:
        check('stack_leg_no_atomic' in ids and 'stack_sysfs_mismatch' in ids, 'findings: %s' % ids)
        check(s.get('why_off') == 'the leg has no atomic write support', 'why_off: %s' % s.get('why_off'))
    rc = subprocess.run([awr, 'probe', target], capture_output=True, text=True, env=env)
    check(rc.returncode == 0 and 'stack (md0): md-raid1 over 2 legs' in rc.stdout and 'nvme1n1' in rc.stdout,
          'text output: %r' % rc.stdout)
finally:
    shutil.rmtree(tmp)

print('cli_stack: %s' % ('ok' if not failures else '%d failure(s)' % failures))
sys.exit(1 if failures else 0)
