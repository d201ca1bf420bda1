#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr decode on identify/VPD fixtures, as hex text and as binary: values, findings, JSON keys, and clear errors (exit 2) for truncated or garbage dumps; cloud disks' own statements (AWS's NTWPU/NTWPG/NTWPB from fixtures built to its published layout: no such disk is reachable here) in decode and list, NSFEAT bit 6, and a transcript with nvme format in it read as readings of one controller.
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

awr, fixtures = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from checks import check, finish  # noqa: E402


def run(*args):
    p = subprocess.run([awr, 'decode'] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def fx(name):
    return os.path.join(fixtures, name)


def decode_json(*args):
    rc, out, err = run(*args, '-o', 'json')
    check(rc == 0, 'decode %s exited %d: %s' % (' '.join(args), rc, err))
    return json.loads(out) if rc == 0 else {}


spec = importlib.util.spec_from_file_location('gen', fx('gen-fixtures.py'))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

# NVMe: the QEMU values, both AWUPF interpretations, caps given on the command line
j = decode_json('--nvme-ctrl', fx('ctrl-qemu-awun31-awupf15.hex'), '--nvme-ns', fx('ns-qemu-nsfeat34-4k.hex'),
                '--max-segments', '128', '--max-hw-bytes', '512k', '--kernel', '6.18.15-1-pve')
n = j.get('nvme') or {}
for key in ('awun', 'awupf', 'acwu', 'nsfeat', 'nawun', 'nawupf', 'nacwu', 'nabsn', 'nabo', 'nabspf', 'lba_size'):
    check(key in n, 'nvme.%s missing' % key)
check(n.get('awupf') == 15 and n.get('awun') == 31 and n.get('nsfeat') == 0x34, 'raw fields: %s' % n)
d = n.get('derived') or {}
check((d.get('unit_min'), d.get('unit_max'), d.get('max_bytes'), d.get('boundary')) == (4096, 65536, 65536, 0),
      'nvme.derived: %s' % d)
check(d.get('block_caps_applied') is True, 'caps applied')
check((n.get('derived_without_awupf') or {}).get('unit_max') == 4096, 'derived_without_awupf')
check(j.get('scsi', 'absent') is None, 'scsi is null for NVMe')
ids = [f['id'] for f in j.get('findings', [])]
check('nvme_awupf_ignored' in ids and 'nvme_nsabp_clear' in ids, 'findings: %s' % ids)

# --kernel: what a release derives, said so, with every other range whose answer differs
AW = ('--nvme-ctrl', fx('ctrl-qemu-awun31-awupf15.hex'), '--nvme-ns', fx('ns-qemu-nsfeat34-4k.hex'))
check(d.get('kernel') == '6.18.15' and d.get('this_kernel') is (os.uname().release.split('-')[0].split('+')[0] == '6.18.15'),
      'derived names its kernel: %s' % d)
check(n.get('derived_by_kernel') == [{'kernels': '7.0+', 'supported': True, 'unit_min': 4096, 'unit_max': 4096,
                                      'max_bytes': 4096, 'boundary': 0}], 'derived_by_kernel on 6.18: %s' % n.get('derived_by_kernel'))
j7 = decode_json(*AW, '--kernel', '7.0')
n7 = j7.get('nvme') or {}
d7 = n7.get('derived') or {}
check((d7.get('unit_min'), d7.get('unit_max'), d7.get('max_bytes'), d7.get('kernel')) == (4096, 4096, 4096, '7.0'),
      'decode --kernel 7.0 of an AWUPF-only dump: one block: %s' % d7)
check(d7.get('this_kernel') is False or os.uname().release.startswith('7.0.0'), 'this_kernel false for 7.0: %s' % d7)
check([r.get('kernels') for r in n7.get('derived_by_kernel', [])] == ['6.11-6.19'] and
      n7['derived_by_kernel'][0]['unit_max'] == 65536, 'ranges beside 7.0: %s' % n7.get('derived_by_kernel'))
msgs = [f['message'] for f in j7.get('findings', []) if f['id'] == 'kernel_limits_change']
check(msgs == ['from 7.0 this namespace writes one block (4 KiB) atomically: AWUPF is ignored; 4 KiB..64 KiB before'],
      'the finding names 7.0: %s' % msgs)
ids7 = [f['id'] for f in j7.get('findings', [])]
check('nvme_single_block' in ids7, 'one block on 7.0: %s' % ids7)
jrun = decode_json(*AW)
check((jrun.get('nvme') or {}).get('derived', {}).get('this_kernel') is True, 'default: the running kernel')
rc, out, err = run(*AW, '--kernel', '7.0')
# the text lists only the ranges whose answer differs from the asked kernel's (as derived_by_kernel)
bk = out[out.find('by kernel'):out.find('with AWUPF')]
check(rc == 0 and 'derived (7.0)' in out and "where the answer differs from 7.0's" in bk and
      '6.11-6.19' in bk and '7.0+' not in bk and 'here 6.' in bk, 'text by kernel: %r' % out)
rc, out, err = run(*AW, '--kernel', '7.x')
check(rc == 2 and '--kernel 7.x is not a kernel release' in err and 'MAJOR.MINOR' in err and out == '',
      'bad --kernel: %d %r' % (rc, err))
j61 = decode_json(*AW, '--kernel', '6.1.0-28-cloud-amd64')
check((j61.get('nvme') or {}).get('derived', {}).get('supported') is False and
      'kernel_too_old' in [f['id'] for f in j61.get('findings', [])], '6.1 predates atomic writes: %s' % j61.get('findings'))
js = decode_json('--scsi-vpd', fx('vpd-bl-scsi-debug-default.hex'), '--lbs', '4096', '--kernel', '7.3.4+deb13-amd64')
ds = (js.get('scsi') or {}).get('derived') or {}
check(ds.get('kernel') == '7.3.4' and ds.get('unit_min') == 8192 and (js.get('scsi') or {}).get('derived_by_kernel') == [],
      'scsi.derived on 7.3.4, the same on every range: %s' % js.get('scsi'))

# the same pages as binary (what nvme id-ctrl -b / id-ns -b write) decode identically
with tempfile.TemporaryDirectory() as tmp:
    for name in ('ctrl-qemu-awun31-awupf15.hex', 'ns-qemu-nsfeat34-4k.hex', 'vpd-bl-scsi-debug-default.hex'):
        with open(os.path.join(tmp, name + '.bin'), 'wb') as f:
            f.write(bytes(gen.FIXTURES[name][1]))
    jb = decode_json('--nvme-ctrl', os.path.join(tmp, 'ctrl-qemu-awun31-awupf15.hex.bin'),
                     '--nvme-ns', os.path.join(tmp, 'ns-qemu-nsfeat34-4k.hex.bin'),
                     '--max-segments', '128', '--max-hw-bytes', '512k', '--kernel', '6.18.15-1-pve')
    check(jb == j, 'binary and hex dumps decode differently')
    js = decode_json('--scsi-vpd', os.path.join(tmp, 'vpd-bl-scsi-debug-default.hex.bin'), '--lbs', '4096')
    s = js.get('scsi') or {}
    check(s.get('max_atomic_transfer_length') == 8192 and s.get('atomic_granularity') == 2, 'scsi raw: %s' % s)
    check((s.get('derived') or {}).get('unit_min') == 8192, 'scsi derived: %s' % s.get('derived'))
    # truncated binary identify namespace: an error, not a crash
    short = os.path.join(tmp, 'short.bin')
    with open(short, 'wb') as f:
        f.write(bytes(gen.FIXTURES['ns-qemu-nsfeat34-4k.hex'][1])[:1000])
    rc, out, err = run('--nvme-ns', short)
    check(rc == 2 and '4096' in err and out == '', 'truncated namespace: exit %d, stderr %r' % (rc, err))
    garbage = os.path.join(tmp, 'garbage.txt')
    with open(garbage, 'w') as f:
        f.write('this is not a dump\n')
    rc, out, err = run('--scsi-vpd', garbage)
    check(rc == 2 and 'hex' in err, 'garbage: exit %d, stderr %r' % (rc, err))

# a short VPD page is a finding, not an error
js = decode_json('--scsi-vpd', fx('vpd-bl-short-page.hex'), '--lbs', '512')
ids = [f['id'] for f in js.get('findings', [])]
check('scsi_vpd_short' in ids, 'short page finding: %s' % ids)
check((js.get('scsi') or {}).get('max_atomic_transfer_length', 0) is None, 'no atomic fields in a short page')
rc, out, err = run('--scsi-vpd', fx('vpd-bl-truncated.hex'))
check(rc == 2 and 'truncated' in err, 'truncated VPD: exit %d, %r' % (rc, err))
rc, out, err = run('--scsi-vpd', fx('vpd-bl-short-page.hex'), '--nvme-ns', fx('ns-qemu-nsfeat34-4k.hex'))
check(rc == 2, 'mixed NVMe and SCSI dumps accepted')
rc, out, err = run('--nvme-ns', fx('ns-flbas-beyond-nlbaf.hex'))
check(rc == 2 and 'NLBAF' in err, 'invalid LBA format: exit %d, %r' % (rc, err))
rc, out, err = run('--nvme-ctrl', fx('ctrl-qemu-awun31-awupf15.hex'), '--nvme-ns', fx('ns-qemu-nsfeat34-4k.hex'))
check(rc == 0 and 'without AWUPF' in out and 'nvme_awupf_ignored' in out, 'text output: %r' % out)

# Cloud disks (fixtures built to AWS's published layout, tests/fixtures/cloud: no such disk is
# reachable here). nvme id-ctrl text and nvme id-ns -v text: NTWPU/NTWPG/NTWPB read, AWS's statement
# beside the kernel's derivation, which it does not change
CL = lambda name: fx(os.path.join('cloud', name))  # noqa: E731
j = decode_json(CL('aws-ebs-id-ctrl.txt'), CL('aws-ebs-id-ns-v.txt'))
n = j.get('nvme') or {}
p = n.get('provider') or {}
check((n.get('vid'), n.get('model'), n.get('ntwpu'), n.get('ntwpg'), n.get('ntwpb')) ==
      (0x1d0f, 'aws_ebs', 31, 7, 0), 'vendor fields from text: %s' % n)
check((p.get('provider'), p.get('read'), p.get('unit'), p.get('granularity'), p.get('boundary')) ==
      ('AWS', True, 16384, 4096, 0), 'provider from text: %s' % p)
check((n.get('derived') or {}).get('unit_max') == 512, 'the kernel view stays one block: %s' % n.get('derived'))
check('NTWPU' in (j.get('input') or {}).get('fields', []), 'NTWPU listed as read')
check('aws_torn_write_prevention' in [f['id'] for f in j.get('findings', [])], 'finding from text')
rc, out, err = run(CL('aws-ebs-id-ctrl.txt'), CL('aws-ebs-id-ns-v.txt'))
check(rc == 0 and 'provider       AWS states untorn writes of a multiple of 4 KiB up to 16 KiB' in out,
      'normal output: %r' % out[-600:])
# the same bytes as binary pages
jb = decode_json('--nvme-ctrl', CL('aws-ebs-id-ctrl.hex'), '--nvme-ns', CL('aws-ns-ntwp16k.hex'))
check((jb.get('nvme') or {}).get('provider') == n.get('provider'), 'binary pages: the same statement')
# -o json: nvme-cli prints vs[] as text up to its first zero byte: the fields cannot be read from it
jj = decode_json(CL('aws-ebs-id-ctrl-ns.json'))
pj = (jj.get('nvme') or {}).get('provider') or {}
check(pj.get('provider') == 'AWS' and pj.get('read') is False and 'json' in pj.get('source', ''),
      'json: Amazon known, NTWP not readable: %s' % pj)
check((jj.get('nvme') or {}).get('ntwpu', 0) is None, 'json: ntwpu null')
# another vendor's controller with the same namespace bytes: not read as AWS's
jo = decode_json('--nvme-ctrl', CL('other-vendor-id-ctrl.hex'), '--nvme-ns', CL('aws-ns-ntwp16k.hex'))
check((jo.get('nvme') or {}).get('provider', 0) is None and
      'nvme_vendor_bytes_not_amazon' in [f['id'] for f in jo.get('findings', [])], 'other vendor: %s' % jo.get('findings'))
# NSFEAT bit 6
jm = decode_json('--nvme-ns', CL('ns-nsfeat-mam.hex'))
check((jm.get('nvme') or {}).get('nsfeat_mam') is True and
      'nvme_nsfeat_mam' in [f['id'] for f in jm.get('findings', [])], 'MAM: %s' % jm.get('findings'))
check((decode_json('--nvme-ns', CL('ns-nsfeat-no-mam.hex')).get('nvme') or {}).get('nsfeat_mam') is False,
      'control: no MAM')

# a transcript with `nvme format` in it: readings of one controller, the change explained, the last used
rc, out, err = run(CL('format-transcript.txt'), '--kernel', '6.12')
check(rc == 0 and 'readings: 2 of one controller' in out and 'changed: AWUPF 63 -> 7 (reading 2)' in out and
      'changed: the LBA format 512 -> 4096 (reading 2)' in out and 'inconsistent AWUPF, controller not added' in out and
      # before 7.0 the subsystem keeps the first AWUPF (63) times the new 4 KiB block: 256 KiB claimed
      'keeps AWUPF 63: 262144 bytes on 4096-byte blocks, where the drive now states 32768: sysfs claims more' in out,
      'transcript: exit %d %r %r' % (rc, out[:900], err))
jt = decode_json(CL('format-transcript.txt'), '--kernel', '7.0')
rd = (jt.get('input') or {}).get('readings') or {}
check(rd.get('count') == 2 and rd.get('used') == 2 and 'ignores AWUPF' in (rd.get('meaning') or ''),
      'readings json on 7.0: %s' % rd)
check((jt.get('nvme') or {}).get('awupf') == 7 and (jt.get('nvme') or {}).get('lba_size') == 4096, 'the last reading')
j1 = decode_json(CL('format-transcript.txt'), '--reading', '1')
check((j1.get('nvme') or {}).get('awupf') == 63 and (j1.get('nvme') or {}).get('lba_size') == 512, '--reading 1')
rc, out, err = run(CL('format-transcript.txt'), '--reading', '3')
check(rc == 2 and 'holds 2 readings' in err, '--reading 3: exit %d %r' % (rc, err))
# readings of two controllers (serial numbers differ) stay refused; so does a paste without nvme format
rc, out, err = run(CL('format-transcript-two-serials.txt'))
check(rc == 2 and 'another serial number' in err and out == '', 'two serials: exit %d %r' % (rc, err))
with tempfile.TemporaryDirectory() as tmp:
    nofmt = os.path.join(tmp, 'nofmt.txt')
    with open(CL('format-transcript.txt')) as f:
        text = f.read()
    with open(nofmt, 'w') as f:
        f.write(text.replace('# nvme format /dev/nvme0n1 --lbaf=4 --force\nSuccess formatting namespace:1\n', ''))
    rc, out, err = run(nofmt)
    check(rc == 2 and "two devices' output" in err, 'no format line: still two devices: exit %d %r' % (rc, err))

# awr list: the provider's statement beside the kernel's limits, from a sysfs tree whose disks' own
# pages are under awr-device/ (the fixtures of tests/fixtures/cloud)
import shutil  # noqa: E402
root = tempfile.mkdtemp(prefix='awr-cloud-list-')
try:
    for i, (name, ctrl) in enumerate((('nvme0n1', 'aws-ebs-id-ctrl.hex'), ('nvme1n1', 'other-vendor-id-ctrl.hex'))):
        d = os.path.join(root, 'devices', 'nvme%d' % i, name)
        os.makedirs(os.path.join(d, 'queue'))
        os.makedirs(os.path.join(d, 'holders'))
        for k, v in (('dev', '259:%d' % i), ('size', '2097152'), ('queue/logical_block_size', '512'),
                     ('queue/physical_block_size', '512'), ('queue/atomic_write_max_bytes', '512'),
                     ('queue/atomic_write_unit_min_bytes', '512'), ('queue/atomic_write_unit_max_bytes', '512'),
                     ('queue/atomic_write_boundary_bytes', '0')):
            with open(os.path.join(d, k), 'w') as f:
                f.write(v + '\n')
        dev = os.path.join(root, 'devices', 'nvme%d' % i)
        with open(os.path.join(dev, 'model'), 'w') as f:
            f.write('Amazon Elastic Block Store\n' if i == 0 else 'SAMSUNG MZQL2960HCJR-00A07\n')
        os.makedirs(os.path.join(root, 'bus', 'nvme'), exist_ok=True)
        os.symlink(os.path.join(root, 'bus', 'nvme'), os.path.join(dev, 'subsystem'))
        os.symlink(dev, os.path.join(d, 'device'))
        os.makedirs(os.path.join(root, 'block'), exist_ok=True)
        os.symlink(d, os.path.join(root, 'block', name))
        os.makedirs(os.path.join(root, 'dev', 'block'), exist_ok=True)
        os.symlink(d, os.path.join(root, 'dev', 'block', '259:%d' % i))
        pages = os.path.join(root, 'awr-device', name)
        os.makedirs(pages)
        shutil.copy(CL(ctrl), pages)
        shutil.copy(CL('aws-ns-ntwp16k.hex'), pages)
    env = dict(os.environ, AWR_SYSFS_ROOT=root)
    p = subprocess.run([awr, 'list', '-o', 'json'], capture_output=True, text=True, env=env)
    got = {d['name']: d for d in (json.loads(p.stdout).get('devices', []) if p.returncode == 0 else [])}
    check(p.returncode == 0 and sorted(got) == ['nvme0n1', 'nvme1n1'], 'list: %d %s %s' % (p.returncode, got, p.stderr))
    check((got.get('nvme0n1') or {}).get('provider') == {'provider': 'AWS', 'unit': 16384, 'granularity': 4096,
                                                         'boundary': 0}, 'list provider: %s' % got.get('nvme0n1'))
    check((got.get('nvme0n1') or {}).get('unit_max') == 512, 'list keeps the kernel limits')
    check((got.get('nvme1n1') or {}).get('provider', 0) is None, 'another vendor: no provider: %s' % got.get('nvme1n1'))
    p = subprocess.run([awr, 'list'], capture_output=True, text=True, env=env)
    rows = {r.split()[0]: r for r in p.stdout.splitlines()[1:] if r.strip()}
    check('AWUPF 0,AWS:16K' in rows.get('nvme0n1', '') and 'AWS' not in rows.get('nvme1n1', ''),
          'list text: %r' % p.stdout)
finally:
    shutil.rmtree(root, True)

finish('cli_decode')
