#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr list on sysfs trees built here (AWR_SYSFS_ROOT): every disk one line, its queue limits, partitions with their alignment to max(unit_min, boundary), holders and the one-word verdict; a misaligned partition turns the verdict to "misaligned" (negative control: the same tree with the partition moved to an aligned start says "atomic").
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from checks import check, finish  # noqa: E402

awr = sys.argv[1]


def put(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('%s\n' % value)


def disk(root, name, devno, queue, parts=(), holders=(), device=None):
    d = os.path.join(root, 'block', name)
    for k, v in (device or {}).items():	# the driver's device: model, serial, firmware_rev
        put(os.path.join(d, 'device', k), v)
    put(os.path.join(d, 'dev'), devno)
    put(os.path.join(d, 'size'), 131072)
    for k, v in queue.items():
        put(os.path.join(d, 'queue', k), v)
    os.makedirs(os.path.join(d, 'holders'), exist_ok=True)
    for h in holders:
        os.makedirs(os.path.join(d, 'holders', h), exist_ok=True)
    os.makedirs(os.path.join(root, 'dev', 'block'), exist_ok=True)
    os.symlink(d, os.path.join(root, 'dev', 'block', devno))
    for pname, pdev, start in parts:
        p = os.path.join(d, pname)
        put(os.path.join(p, 'partition'), 1)
        put(os.path.join(p, 'start'), start)
        put(os.path.join(p, 'dev'), pdev)
        put(os.path.join(p, 'size'), 2048)
        os.symlink(p, os.path.join(root, 'dev', 'block', pdev))


def queue(lbs, umin, umax, maxb, bnd):
    return {'logical_block_size': lbs, 'physical_block_size': lbs, 'max_segments': 128, 'max_hw_sectors_kb': 512,
            'atomic_write_unit_min_bytes': umin, 'atomic_write_unit_max_bytes': umax,
            'atomic_write_max_bytes': maxb, 'atomic_write_boundary_bytes': bnd}


def listing(root):
    env = dict(os.environ, AWR_SYSFS_ROOT=root)
    p = subprocess.run([awr, 'list', '-o', 'json'], capture_output=True, text=True, env=env)
    check(p.returncode == 0, 'awr list exited %d: %s' % (p.returncode, p.stderr))
    j = json.loads(p.stdout) if p.returncode == 0 else {}
    check(j.get('schema_version') == 2, 'schema_version: %s' % j.get('schema_version'))
    return {d['name']: d for d in j.get('devices', [])}, env


RIGHT = {'LBS', 'UNIT_MIN', 'UNIT_MAX', 'MAX', 'BOUNDARY'}	# numbers, right-aligned under their name


def columns_line_up(lines):
    """Each header word stands over its column: a left-aligned value starts where its name starts, a
    right-aligned one ends where its name ends (a header one column off its rows fails here)."""
    hdr = lines[0]
    words = [(m.group(), m.start(), m.end()) for m in re.finditer(r'\S+', hdr)]
    for row in lines[1:]:
        row = row.ljust(len(hdr) + 1)
        for word, start, end in words:
            if word in RIGHT:
                ok = row[end - 1] != ' ' and row[end] == ' '
            else:
                ok = row[start] != ' ' and (start == 0 or row[start - 1] == ' ')
            check(ok, 'column %s (%d-%d) is not over its value in %r\n%r' % (word, start, end, row, hdr))


for start, verdict in ((2049, 'misaligned'), (4096, 'atomic')):
    with tempfile.TemporaryDirectory() as root:
        disk(root, 'awrt9n1', '259:901', queue(4096, 4096, 65536, 65536, 0),
             parts=[('awrt9n1p1', '259:902', 2048), ('awrt9n1p2', '259:903', start)], holders=['dm-77'])
        disk(root, 'awrt9n2', '259:904', queue(4096, 4096, 4096, 4096, 0))
        disk(root, 'awrt9n3', '259:905', queue(512, 0, 0, 0, 0))
        disk(root, 'awrt9n4', '259:906', queue(4096, 8192, 1048576, 33554432, 0),
             device={'model': 'Tree Disk 4', 'serial': 'SN 4 with blanks', 'firmware_rev': 'FW4.2'})
        got, env = listing(root)
        check(sorted(got) == ['awrt9n1', 'awrt9n2', 'awrt9n3', 'awrt9n4'], 'devices: %s' % sorted(got))
        # model, serial and firmware as the driver's device publishes them; none without one (null),
        # and a disk without a device below it is virtual
        d4 = got.get('awrt9n4', {})
        check([d4.get(k) for k in ('model', 'serial', 'firmware', 'virtual')] ==
              ['Tree Disk 4', 'SN 4 with blanks', 'FW4.2', False], 'awrt9n4 identity: %s' % d4)
        check([got.get('awrt9n3', {}).get(k, 0) for k in ('model', 'serial', 'firmware', 'virtual')] ==
              [None, None, None, True], 'awrt9n3 identity: %s' % got.get('awrt9n3'))
        a = got.get('awrt9n1', {})
        check((a.get('logical_block_size'), a.get('unit_min'), a.get('unit_max'), a.get('max_bytes'),
               a.get('boundary')) == (4096, 4096, 65536, 65536, 0), 'awrt9n1 limits: %s' % a)
        parts = [(p['name'], p['start'], p['aligned']) for p in a.get('partitions', [])]
        check(parts == [('awrt9n1p1', 2048 * 512, True), ('awrt9n1p2', start * 512, start % 8 == 0)],
              'partitions: %s' % parts)
        check(a.get('holders') == ['dm-77'], 'holders: %s' % a.get('holders'))
        check(a.get('verdict') == verdict, 'awrt9n1 verdict %s, expected %s' % (a.get('verdict'), verdict))
        check(a.get('transport') == 'virtual' and a.get('nvme') is None and a.get('scsi') is None,
              'no device data in a tree: %s' % a)
        # JSON spells the verdict snake_case, the normal output in words
        check(got.get('awrt9n2', {}).get('verdict') == 'single_block', 'awrt9n2: %s' % got.get('awrt9n2'))
        check(got.get('awrt9n3', {}).get('verdict') == 'none', 'awrt9n3: %s' % got.get('awrt9n3'))
        check(got.get('awrt9n4', {}).get('verdict') == 'atomic', 'awrt9n4: %s' % got.get('awrt9n4'))
        # normal output: one line per device after the header
        p = subprocess.run([awr, 'list'], capture_output=True, text=True, env=env)
        lines = p.stdout.splitlines()
        check(p.returncode == 0 and len(lines) == 5 and lines[0].split()[0] == 'NAME', 'normal output: %r' % lines)
        row = [ln.split() for ln in lines if ln.startswith('awrt9n1 ')]
        check(bool(row) and verdict in row[0] and ('1/2' if verdict == 'misaligned' else '2/2') in row[0] and
              row[0][5:9] == ['4096', '4', 'KiB', '64'], 'awrt9n1 row: %s' % row)
        check(any(ln.startswith('awrt9n2 ') and ' single-block ' in ln for ln in lines),
              'awrt9n2 row says single-block: %r' % lines)
        columns_line_up(lines)
        r4 = [ln for ln in lines if ln.startswith('awrt9n4 ')]
        hdr = lines[0]
        check(bool(r4) and r4[0][hdr.index('SERIAL'):hdr.index('FIRMWARE')].strip() == 'SN 4 with blanks' and
              r4[0][hdr.index('FIRMWARE'):].split()[0] == 'FW4.2', 'awrt9n4 row: %s' % r4)
        # -o prometheus leaves the virtual disks out unless --all; --no-virtual does so in JSON
        p = subprocess.run([awr, 'list', '-o', 'prometheus'], capture_output=True, text=True, env=env)
        check(p.returncode == 0 and 'device="awrt9n4"' in p.stdout and 'awrt9n1' not in p.stdout,
              'prometheus without the virtual disks: %r' % p.stdout[:300])
        p = subprocess.run([awr, 'list', '-o', 'prometheus', '--all'], capture_output=True, text=True, env=env)
        check(p.returncode == 0 and 'device="awrt9n1"' in p.stdout, 'prometheus --all: %r' % p.stdout[:300])
        p = subprocess.run([awr, 'list', '-o', 'json', '--no-virtual'], capture_output=True, text=True, env=env)
        names = [d['name'] for d in json.loads(p.stdout)['devices']] if p.returncode == 0 else p.stderr
        check(names == ['awrt9n4'], 'json --no-virtual: %s' % names)
p = subprocess.run([awr, 'list', '/dev/sda'], capture_output=True, text=True)
check(p.returncode == 2 and 'takes no path' in p.stderr, 'an operand: %d %r' % (p.returncode, p.stderr))
finish('cli_list_tree')
