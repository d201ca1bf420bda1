#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr decode on identify/VPD fixtures, as hex text and as binary: values, findings, JSON keys, and clear errors (exit 2) for truncated or garbage dumps.
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

awr, fixtures = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
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

finish('cli_decode')
