#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr list (run now) on a sysfs tree rebuilt from the guest capture (kernel 6.12: eight NVMe namespaces with controller- and namespace-level atomic fields, a scsi_debug disk and the 64 KiB-boundary namespace each with one misaligned and one aligned partition, a namespace with one aligned partition), the devices' own Identify and Block Limits pages under the tree's awr-device/: every disk's limits, model, transport, partitions and their alignment, holders against the guest's sysfs; the verdict against the rule applied here to sysfs; AWUPF, NAWUPF and the maximum atomic transfer length, in JSON and in the normal output's DEVICE column, against nvme-cli's and sg_vpd's text of the same devices; and the listing equal to what the static awr printed in the guest.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from checks import check, finish, skip  # noqa: E402

awr, fixtures = sys.argv[1], os.path.join(sys.argv[2], 'tools')
if not os.path.exists(os.path.join(fixtures, 'list-sysfs.txt')):
    skip('no guest capture of awr list in tests/fixtures/tools (tests/vm/capture-tool-output.sh makes it)')


def text(name):
    with open(os.path.join(fixtures, name)) as f:
        return f.read()


# list-sysfs.txt: "DISK key=value" lines (capture-tool-output.sh, sysdump)
sysfs = {}
for line in text('list-sysfs.txt').splitlines():
    name, _, kv = line.partition(' ')
    if kv.startswith('dev=') and ' size=' in kv:
        for word in kv.split():
            k, _, v = word.partition('=')
            sysfs.setdefault(name, {})[k] = v
        continue
    key, _, value = kv.partition('=')
    sysfs.setdefault(name, {})[key] = value.strip()
check(len(sysfs) == 9, 'the capture has 9 disks: %s' % sorted(sysfs))


def q(s, attr):
    return int(s['queue.' + attr])


def parts_of(s):	# [(name, start in bytes, size in sectors, dev)]
    out = []
    for k, v in s.items():
        if k.startswith('part.'):
            start, size, dev = v.split()
            out.append((k[5:], int(start) * 512, int(size), dev))
    return sorted(out, key=lambda p: p[1])


def put(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('%s\n' % value)


def firmware(s):	# nvme-cli's "fr" of the controller of @s
    return re.search(r'^fr\s*:\s*(\S+)', text('nvme-%s-id-ctrl.txt' % s['serial']), re.M).group(1)


def field(name, key):	# a number from nvme-cli's normal output ("awupf     : 15", "nsfeat  : 0x36")
    return int(re.search(r'^%s\s*:\s*(\S+)' % key, text(name), re.M).group(1), 0)


# --- the tree: /sys/block/DISK with its queue, partitions, holders and device link; /sys/dev/block;
# ROOT/awr-device/DISK/ the device's own pages as the guest's tools read them (nvme id-ctrl -b / id-ns -b,
# sg_vpd -p bl -r of the same scsi_debug parameters)
root = tempfile.mkdtemp(prefix='awr-list-guest-')
try:
    for name, s in sysfs.items():
        d = os.path.join(root, 'block', name)
        put(os.path.join(d, 'dev'), s['dev'])
        put(os.path.join(d, 'size'), s['size'])
        for k, v in s.items():
            if k.startswith('queue.'):
                put(os.path.join(d, 'queue', k[6:]), v)
        os.makedirs(os.path.join(d, 'holders'))
        for h in s['holders'].split():
            os.makedirs(os.path.join(d, 'holders', h))
        if s['subsystem']:
            dev = os.path.join(root, 'devices', name)
            put(os.path.join(dev, 'model'), s['model'])
            put(os.path.join(dev, 'serial'), s['serial'])
            if s['subsystem'] == 'nvme':	# the firmware revision nvme-cli read (fr)
                put(os.path.join(dev, 'firmware_rev'), firmware(s))
            os.makedirs(os.path.join(root, 'bus', s['subsystem']), exist_ok=True)
            os.symlink(os.path.join(root, 'bus', s['subsystem']), os.path.join(dev, 'subsystem'))
            os.symlink(dev, os.path.join(d, 'device'))
        os.makedirs(os.path.join(root, 'dev', 'block'), exist_ok=True)
        os.symlink(d, os.path.join(root, 'dev', 'block', s['dev']))
        for pname, start, size, pdev in parts_of(s):
            p = os.path.join(d, pname)
            put(os.path.join(p, 'partition'), 1)
            put(os.path.join(p, 'start'), start // 512)
            put(os.path.join(p, 'size'), size)
            put(os.path.join(p, 'dev'), pdev)
            os.symlink(p, os.path.join(root, 'dev', 'block', pdev))
        pages = os.path.join(root, 'awr-device', name)
        os.makedirs(pages)
        if s['subsystem'] == 'nvme':
            for page in ('id-ctrl', 'id-ns'):
                shutil.copy(os.path.join(fixtures, 'nvme-%s-%s.bin' % (s['serial'], page)), pages)
        elif s['model'] == 'scsi_debug':
            shutil.copy(os.path.join(fixtures, 'sd-default-vpd-bl.bin'), pages)
    env = dict(os.environ, AWR_SYSFS_ROOT=root)
    p = subprocess.run([awr, 'list', '-o', 'json'], capture_output=True, text=True, env=env)
    check(p.returncode == 0, 'awr list -o json exited %d: %s' % (p.returncode, p.stderr))
    listing = json.loads(p.stdout) if p.returncode == 0 else {}
    p = subprocess.run([awr, 'list'], capture_output=True, text=True, env=env)
    check(p.returncode == 0, 'awr list exited %d: %s' % (p.returncode, p.stderr))
    rows = p.stdout.splitlines()
finally:
    shutil.rmtree(root, True)

got = {d['name']: d for d in listing.get('devices', [])}
check(listing.get('schema_version') == 2, 'schema_version')
check(sorted(got) == sorted(sysfs), 'listed %s, sysfs has %s' % (sorted(got), sorted(sysfs)))


def expected_verdict(s):	# the documented rule (awr_blockdev_verdict(3)), applied to the guest's sysfs
    if q(s, 'atomic_write_unit_max_bytes') == 0:
        return 'none'
    if q(s, 'atomic_write_unit_max_bytes') <= q(s, 'logical_block_size'):
        return 'single_block'
    align = max(q(s, 'atomic_write_unit_min_bytes'), q(s, 'atomic_write_boundary_bytes'))
    if any(start % align for _, start, _, _ in parts_of(s)):
        return 'misaligned'
    return 'atomic'


def expected_device(s):	# (nvme, scsi, DEVICE column) from the tools' own text of the same device
    if s['subsystem'] == 'nvme':
        ctrl, ns = 'nvme-%s-id-ctrl.txt' % s['serial'], 'nvme-%s-id-ns.txt' % s['serial']
        awupf = field(ctrl, 'awupf')
        nawupf = field(ns, 'nawupf') if field(ns, 'nsfeat') & 2 else None
        col = 'NAWUPF %d' % nawupf if nawupf is not None else 'AWUPF %d' % awupf
        return {'awupf': awupf, 'nawupf': nawupf}, None, col
    if s['model'] == 'scsi_debug':
        matl = int(re.search(r'Maximum atomic transfer length: (\S+)', text('sd-default-vpd-bl.txt')).group(1), 0)
        return None, {'max_atomic_transfer_length': matl}, 'MATL %d' % matl
    return None, None, '-'


hdr = rows[0] if rows else ''
# the last column shows JSON's mounts[] and holders[] both, and is named for both
check(hdr.split()[:1] == ['NAME'] and hdr.split()[-5:] == ['DEVICE', 'PARTS', 'VERDICT', 'CACHE', 'MOUNTS/HOLDERS'],
      'normal output header: %r' % hdr)
# the rows' columns start where the header's (left-aligned) names start (cli_list_tree checks the header
# stands over its values): DEVICE, PARTS, VERDICT, CACHE, then HOLDERS
cols = {w: hdr.find(' %s ' % w) + 1 for w in ('DEVICE', 'PARTS', 'VERDICT', 'CACHE')}
cols['HOLDERS'] = hdr.find(' MOUNTS/HOLDERS') + 1
check(all(v > 0 for v in cols.values()), 'header columns: %r' % hdr)
check(all(len(n) <= 10 for n in sysfs), 'every name fits its column')
text_rows = {r.split()[0]: r for r in rows[1:] if r.strip()}
check(sorted(text_rows) == sorted(sysfs), 'normal output rows: %s' % sorted(text_rows))
verdicts = set()
for name, s in sorted(sysfs.items()):
    d = got.get(name, {})
    for key, attr in (('logical_block_size', 'logical_block_size'), ('unit_min', 'atomic_write_unit_min_bytes'),
                      ('unit_max', 'atomic_write_unit_max_bytes'), ('max_bytes', 'atomic_write_max_bytes'),
                      ('boundary', 'atomic_write_boundary_bytes')):
        check(d.get(key) == q(s, attr), '%s %s: awr %s, sysfs %s' % (name, key, d.get(key), q(s, attr)))
    check((d.get('model') or '') == s['model'], '%s model %r, sysfs %r' % (name, d.get('model'), s['model']))
    check((d.get('serial') or '') == s['serial'], '%s serial %r, sysfs %r' % (name, d.get('serial'), s['serial']))
    fw = firmware(s) if s['subsystem'] == 'nvme' else None
    check(d.get('firmware') == fw, '%s firmware %r, nvme-cli %r' % (name, d.get('firmware'), fw))
    check(d.get('virtual') is (not s['subsystem']), '%s virtual: %s' % (name, d.get('virtual')))
    check(d.get('transport') == (s['subsystem'] or 'virtual'), '%s transport %s' % (name, d.get('transport')))
    align = max(q(s, 'atomic_write_unit_min_bytes'), q(s, 'atomic_write_boundary_bytes'))
    want_parts = [(pn, start, not align or start % align == 0) for pn, start, _, _ in parts_of(s)]
    check([(x['name'], x['start'], x['aligned']) for x in d.get('partitions', [])] == want_parts,
          '%s partitions %s, sysfs %s' % (name, d.get('partitions'), want_parts))
    check(sorted(d.get('holders', [])) == sorted(s['holders'].split()), '%s holders' % name)
    verdict = expected_verdict(s)
    verdicts.add(verdict)
    check(d.get('verdict') == verdict, '%s verdict %s, sysfs says %s' % (name, d.get('verdict'), verdict))
    nvme, scsi, col = expected_device(s)
    check(d.get('nvme') == nvme, '%s nvme %s, nvme-cli %s' % (name, d.get('nvme'), nvme))
    check(d.get('scsi') == scsi, '%s scsi %s, sg_vpd %s' % (name, d.get('scsi'), scsi))
    r = text_rows.get(name, '')
    cell = {c: r[cols[c]:nxt].strip() if nxt else r[cols[c]:].strip()
            for c, nxt in (('DEVICE', cols['PARTS']), ('PARTS', cols['VERDICT']), ('VERDICT', cols['CACHE']),
                           ('CACHE', cols['HOLDERS']))}
    aligned = sum(1 for x in want_parts if x[2])
    # the capture has no queue/write_cache or queue/fua: not read, said so (null, "-"), never guessed
    want_cell = {'DEVICE': col, 'PARTS': '%d/%d' % (aligned, len(want_parts)) if want_parts else '-',
                 'VERDICT': verdict.replace('_', '-'), 'CACHE': '-'}
    check([d.get(k, 0) for k in ('write_cache', 'write_cache_volatile', 'fua')] == [None] * 3,
          '%s write cache without queue/write_cache: %s' % (name, d))
    check(cell == want_cell, '%s normal output %s, expected %s (%r)' % (name, cell, want_cell, r))
# the capture holds every verdict but unknown, and devices where AWUPF and NAWUPF differ (a listing that
# takes one for the other shows it)
check(verdicts == {'atomic', 'single_block', 'none', 'misaligned'}, 'verdicts seen: %s' % sorted(verdicts))
check(any(expected_verdict(s) == 'atomic' and parts_of(s) for s in sysfs.values()),
      'a disk whose partitions are all aligned (verdict atomic with partitions)')
check(any((d.get('nvme') or {}).get('nawupf') not in (None, d['nvme']['awupf']) for d in got.values()),
      'a namespace with NAWUPF other than AWUPF')
check(any(start % q(s, 'atomic_write_unit_min_bytes') == 0 and start % q(s, 'atomic_write_boundary_bytes')
          for s in sysfs.values() if q(s, 'atomic_write_unit_min_bytes') and q(s, 'atomic_write_boundary_bytes')
          for _, start, _, _ in parts_of(s)), 'a partition aligned to unit_min but not to the boundary')

# awr decode of each NVMe device's own nvme-cli output (all three formats and the binary pages): model,
# serial and firmware as nvme-cli printed them (mn, sn, fr), and the one-word verdict awr list gives the
# device in the guest (6.12, with the queue's caps), unless a partition made it misaligned; a SCSI Block
# Limits page and READ CAPACITY hold none of the three: null, said so in text
decoded = 0
for name, s in sorted(sysfs.items()):
    if s['subsystem'] != 'nvme':
        continue
    ctrl = text('nvme-%s-id-ctrl.txt' % s['serial'])
    want = [re.search(r'^%s\s*:\s*(.*?)\s*$' % k, ctrl, re.M).group(1) for k in ('mn', 'sn', 'fr')]
    for suffix in ('.txt', '-H.txt', '.json', '.bin'):
        files = [os.path.join(fixtures, 'nvme-%s-id-%s%s' % (s['serial'], page, suffix)) for page in ('ctrl', 'ns')]
        p = subprocess.run([awr, 'decode', '-o', 'json', '--kernel', '6.12', '--max-segments', s['queue.max_segments'],
                            '--max-hw-bytes', str(q(s, 'max_hw_sectors_kb') * 1024)] + files,
                           capture_output=True, text=True)
        j = json.loads(p.stdout) if p.returncode == 0 else {}
        check([j.get(k) for k in ('model', 'serial', 'firmware')] == want,
              '%s decode%s: model/serial/firmware %s, nvme-cli %s' % (name, suffix, [j.get(k) for k in ('model', 'serial', 'firmware')], want))
        lv = got.get(name, {}).get('verdict')
        check(lv == 'misaligned' or j.get('verdict') == lv, '%s decode%s verdict %s, awr list %s' % (name, suffix, j.get('verdict'), lv))
        decoded += 1
check(decoded >= 8 * 4, 'decoded %d NVMe inputs' % decoded)
p = subprocess.run([awr, 'decode', '-o', 'json', os.path.join(fixtures, 'sd-default-vpd-bl.txt'),
                    os.path.join(fixtures, 'sd-default-readcap.txt')], capture_output=True, text=True)
j = json.loads(p.stdout) if p.returncode == 0 else {}
check([j.get(k, 0) for k in ('model', 'serial', 'firmware')] == [None] * 3 and j.get('verdict') == 'atomic',
      'scsi decode: %s' % {k: j.get(k, 0) for k in ('model', 'serial', 'firmware', 'verdict')})
p = subprocess.run([awr, 'decode', os.path.join(fixtures, 'sd-default-vpd-bl.txt'),
                    os.path.join(fixtures, 'sd-default-readcap.txt')], capture_output=True, text=True)
check('identity: model not in the input, serial not in the input, firmware not in the input' in p.stdout,
      'scsi decode text: %r' % p.stdout[:200])

# the listing the static awr printed in the guest itself (list.json, list.txt) is the one made here
# (captured before the document carried "outcome", "kernel" and "awr_version" and before schema_version 2:
# those keys are checked here and left out of the comparison; the guest ran another kernel anyway)
with open(os.path.join(fixtures, 'list.json')) as f:
    guest = json.load(f)
check(listing.pop('outcome', None) == 'ok', 'awr list -o json: "outcome" is not "ok"')
check(listing.pop('kernel', None) == os.uname().release and listing.pop('awr_version', None),
      'awr list -o json: "kernel" is not this kernel, or no "awr_version"')
for k in ('outcome', 'kernel', 'awr_version', 'schema_version'):
    guest.pop(k, None)
for d in guest.get('devices', []):
    d['verdict'] = d.get('verdict', '').replace('single-block', 'single_block')
listing.pop('schema_version', None)
for d in listing.get('devices', []):	# captured before awr list showed the write cache (checked above)
    for k in ('write_cache', 'write_cache_volatile', 'fua'):
        d.pop(k, None)
    # ... and a cloud provider's statement: none on QEMU's and scsi_debug's devices
    check(d.pop('provider', 0) is None, '%s: provider is not null' % d.get('name'))
    for k in ('serial', 'firmware', 'virtual'):	# ... and model, serial, firmware (checked above)
        d.pop(k, None)
check(guest == listing, 'awr list -o json in the guest differs from awr list on the rebuilt tree:\n%s\n%s'
      % (json.dumps(guest, sort_keys=True), json.dumps(listing, sort_keys=True)))
# the rows; the header only by its columns (the last one was renamed MOUNTS/HOLDERS since the capture)
# and the CACHE column, added since, taken out
# (the capture's header stood one column off after TRANSPORT, and it spelt the verdict single-block in
# JSON: compared by words, and single_block taken for single-block)
# the SERIAL and FIRMWARE columns, added since, taken out as well
serial_at, lbs_at = hdr.find(' SERIAL ') + 1, hdr.find(' FIRMWARE ') + 10
check([r.split() for r in text('list.txt').splitlines()[1:]] ==
      [(r[:serial_at] + r[lbs_at:cols['CACHE']] + r[cols['HOLDERS']:]).split() for r in rows[1:]] and
      text('list.txt').splitlines()[0].split()[:-1] ==
      [w for w in hdr.split()[:-1] if w not in ('CACHE', 'SERIAL', 'FIRMWARE')],
      'awr list in the guest differs from awr list on the rebuilt tree')
finish('list_guest')
