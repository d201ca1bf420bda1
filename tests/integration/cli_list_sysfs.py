#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr list -o json against this machine's sysfs, read here independently, for every block device present (loop devices, vda, ...), and a loop device of its own with two partitions (added with BLKPG), one holding a mounted XFS: partitions, their starts, the mount, and the holder of a dm-linear device over the other partition when the kernel has device-mapper.
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from checks import check, finish, skip  # noqa: E402

awr = sys.argv[1]


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


if os.geteuid() != 0:
    skip('needs root (loop devices, mount, dmsetup)')
for tool in ('losetup', 'addpart', 'delpart', 'mkfs.xfs'):
    if not shutil.which(tool):
        skip('%s is not installed' % tool)

signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
signal.signal(signal.SIGHUP, lambda *_: sys.exit(1))
work = tempfile.mkdtemp(prefix='awr-list-')
img, mnt = os.path.join(work, 'img'), os.path.join(work, 'mnt')
loop = dm = None
mounted = False
try:
    # two partitions added with BLKPG (addpart): no partition table parser is needed in the kernel
    with open(img, 'wb') as f:
        f.truncate(400 << 20)
    loop = sh('losetup', '-f', '--show', '-P', img)
    name = os.path.basename(loop)
    sh('addpart', loop, '1', '2048', '655360')
    sh('addpart', loop, '2', '657408', '65536')
    if shutil.which('udevadm'):
        subprocess.run(['udevadm', 'settle'], capture_output=True)
    nodes = []
    for part in (name + 'p1', name + 'p2'):
        sysdir = '/sys/block/%s/%s' % (name, part)
        if not os.path.isdir(sysdir):
            skip('addpart made no partition %s on %s' % (part, loop))
        node = '/dev/' + part
        if not os.path.exists(node):	# /dev without devtmpfs (a container): a node of our own
            major, minor = (int(x) for x in read(sysdir + '/dev').split(':'))
            node = os.path.join(work, part)
            os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
        nodes.append(node)
    p1, p2 = nodes
    sh('mkfs.xfs', '-f', '-q', p1)
    os.mkdir(mnt)
    sh('mount', p1, mnt)
    mounted = True
    # a dm-linear device over the second partition is its holder (when this kernel has device-mapper)
    dmname = None
    if shutil.which('dmsetup') and subprocess.run(['dmsetup', 'version'], capture_output=True).returncode == 0:
        dm = 'awr-list-%d' % os.getpid()
        sh('dmsetup', 'create', dm, '--table', '0 65536 linear %s 0' % p2)
        dmname = os.path.basename(os.path.realpath('/dev/mapper/' + dm))
    else:
        print('note: this kernel has no device-mapper: holders are compared with sysfs only (no holder of our own)')

    before = set(os.listdir('/sys/block'))
    p = subprocess.run([awr, 'list', '-o', 'json'], capture_output=True, text=True)
    after = set(os.listdir('/sys/block'))
    check(p.returncode == 0, 'awr list exited %d: %s' % (p.returncode, p.stderr))
    j = json.loads(p.stdout)
    check(j.get('schema_version') == 2, 'schema_version')
    got = {d['name']: d for d in j['devices']}
    # every device present before and after the listing is listed (others come and go on a shared machine)
    for n in sorted(before & after):
        check(n in got, '%s is in /sys/block but not in awr list' % n)
    q = {'logical_block_size': 'logical_block_size', 'unit_min': 'atomic_write_unit_min_bytes',
         'unit_max': 'atomic_write_unit_max_bytes', 'max_bytes': 'atomic_write_max_bytes',
         'boundary': 'atomic_write_boundary_bytes'}
    compared = 0
    for n, d in sorted(got.items()):
        base = '/sys/block/%s' % n
        if not os.path.isdir(base):
            continue
        for key, attr in q.items():
            v = read('%s/queue/%s' % (base, attr))
            check(v is not None and d[key] == int(v), '%s %s: awr %s, sysfs %s' % (n, key, d[key], v))
        model = read(base + '/device/model')
        check(d['model'] == (model or None), '%s model: awr %r, sysfs %r' % (n, d['model'], model))
        # serial and firmware as the driver publishes them (loop, zram: none, null); virtual: no driver
        serial = read(base + '/device/serial') or read(base + '/serial')
        firmware = read(base + '/device/firmware_rev') or read(base + '/device/rev')
        if serial is not None or not os.path.exists(base + '/device/vpd_pg80'):
            check(d['serial'] == (serial or None), '%s serial: awr %r, sysfs %r' % (n, d['serial'], serial))
        check(d['firmware'] == (firmware or None), '%s firmware: awr %r, sysfs %r' % (n, d['firmware'], firmware))
        virtual = not os.path.exists(base + '/device') and not n.startswith(('dm-', 'md'))
        check(d['virtual'] is virtual, '%s virtual: awr %s, sysfs %s' % (n, d['virtual'], virtual))
        parts = sorted(e for e in os.listdir(base) if os.path.exists('%s/%s/partition' % (base, e)))
        check(sorted(x['name'] for x in d['partitions']) == parts, '%s partitions: %s vs %s' % (n, d['partitions'], parts))
        for x in d['partitions']:
            check(x['start'] == int(read('%s/%s/start' % (base, x['name']))) * 512, '%s start' % x['name'])
        holders = sorted(os.listdir(base + '/holders') + [h for e in parts for h in os.listdir('%s/%s/holders' % (base, e))])
        check(sorted(d['holders']) == holders, '%s holders: %s vs %s' % (n, d['holders'], holders))
        umax = int(read(base + '/queue/atomic_write_unit_max_bytes') or 0)
        check(d['verdict'] == ('none' if not umax else d['verdict']), '%s verdict %s with unit_max 0' % (n, d['verdict']))
        compared += 1
    check(compared >= 3, 'compared %d devices' % compared)
    print('compared %d devices with sysfs: %s' % (compared, ' '.join(sorted(got))))

    # the loop device of this test
    d = got.get(name, {})
    check([x['name'] for x in d.get('partitions', [])] == [name + 'p1', name + 'p2'], 'own partitions: %s' % d)
    check([x['start'] for x in d.get('partitions', [])] == [2048 * 512, 657408 * 512], 'own starts')
    check(all(x['aligned'] for x in d.get('partitions', [])), 'a disk without atomics has nothing to align to')
    check(d.get('transport') == 'loop' and d.get('verdict') == 'none', 'own loop: %s' % d)
    check([d.get(k, 0) for k in ('model', 'serial', 'firmware', 'virtual')] == [None, None, None, True],
          'a loop device has no model, serial or firmware, and is virtual: %s' % d)
    # -o prometheus leaves the virtual devices out (series churn: a loop device comes and goes), --all
    # brings them back; -o json --no-virtual leaves them out too
    p = subprocess.run([awr, 'list', '-o', 'prometheus'], capture_output=True, text=True)
    check(p.returncode == 0 and 'device="%s"' % name not in p.stdout, 'prometheus lists the loop device')
    p = subprocess.run([awr, 'list', '-o', 'prometheus', '--all'], capture_output=True, text=True)
    check(p.returncode == 0 and 'awr_atomic_unit_max_bytes{device="%s",' % name in p.stdout,
          'prometheus --all leaves the loop device out')
    p = subprocess.run([awr, 'list', '-o', 'json', '--no-virtual'], capture_output=True, text=True)
    shown = [x['name'] for x in json.loads(p.stdout)['devices']] if p.returncode == 0 else []
    check(p.returncode == 0 and name not in shown and all(not got[x]['virtual'] for x in shown if x in got),
          'json --no-virtual: %s' % shown)
    check(d.get('holders') == ([dmname] if dmname else []), 'own holders: %s, expected %s' % (d.get('holders'), dmname))
    want = [{'device': name + 'p1', 'mountpoint': os.path.realpath(mnt), 'fstype': 'xfs'}]
    check(d.get('mounts') == want, 'own mounts: %s, expected %s' % (d.get('mounts'), want))
    # normal output: the same devices, one line each
    p = subprocess.run([awr, 'list'], capture_output=True, text=True)
    rows = {ln.split()[0]: ln for ln in p.stdout.splitlines()[1:]}
    check(p.returncode == 0 and name in rows and rows[name].split()[-1].endswith(dmname or '(xfs)') and
          ' %sp1:%s(xfs)' % (name, os.path.realpath(mnt)) in rows[name], 'normal row: %r' % rows.get(name))
finally:
    if dm:
        subprocess.run(['dmsetup', 'remove', dm], capture_output=True)
    if mounted:
        subprocess.run(['umount', mnt], capture_output=True)
    if loop:
        # BLKPG partitions outlive the detach: remove them, or the next user of this loop device inherits them
        for n in ('2', '1'):
            subprocess.run(['delpart', loop, n], capture_output=True)
        subprocess.run(['losetup', '-d', loop], capture_output=True)
    shutil.rmtree(work, ignore_errors=True)
finish('cli_list_sysfs')
