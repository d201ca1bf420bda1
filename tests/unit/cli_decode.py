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
                '--max-segments', '128', '--max-hw-bytes', '512k')
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

# the same pages as binary (what nvme id-ctrl -b / id-ns -b write) decode identically
with tempfile.TemporaryDirectory() as tmp:
    for name in ('ctrl-qemu-awun31-awupf15.hex', 'ns-qemu-nsfeat34-4k.hex', 'vpd-bl-scsi-debug-default.hex'):
        with open(os.path.join(tmp, name + '.bin'), 'wb') as f:
            f.write(bytes(gen.FIXTURES[name][1]))
    jb = decode_json('--nvme-ctrl', os.path.join(tmp, 'ctrl-qemu-awun31-awupf15.hex.bin'),
                     '--nvme-ns', os.path.join(tmp, 'ns-qemu-nsfeat34-4k.hex.bin'),
                     '--max-segments', '128', '--max-hw-bytes', '512k')
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
