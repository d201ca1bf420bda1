#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr decode FILE... on the real tools' output (nvme-cli 2.13 id-ctrl/id-ns normal, -H, -o json; sg_vpd 1.48 -p bl, -H; sg_vpd 1.45 on the same raw pages; sg_readcap) captured in the guest: each form decodes to the same fields and limits as the binary dump of the same device, every atomic field (AWUN, AWUPF, NAWUN, NAWUPF, NABSN, NABSPF, NABO; the five SCSI atomic fields) to the value the device was configured with, and with that disk's caps to what the guest kernel put in sysfs; partial records name what is missing; bad input exits 2 naming the file.
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from checks import check, finish  # noqa: E402

awr, fixtures = sys.argv[1], os.path.join(sys.argv[2], 'tools')
tmp = tempfile.mkdtemp(prefix='awr-decode-text-')
atexit.register(shutil.rmtree, tmp, True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))	# a timeout still removes tmp


def fx(name):
    return os.path.join(fixtures, name)


def text(name):
    with open(fx(name), encoding='utf-8') as f:
        return f.read()


def scratch(name, content):
    path = os.path.join(tmp, name)
    with open(path, 'w' if isinstance(content, str) else 'wb') as f:
        f.write(content)
    return path


def run(*args):
    p = subprocess.run([awr, 'decode'] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def decode(*args):
    rc, out, err = run(*args, '-o', 'json')
    check(rc == 0, 'decode %s exited %d: %s' % (' '.join(os.path.basename(a) for a in args), rc, err.strip()))
    return json.loads(out) if rc == 0 else {}


def sysfs(dev):
    return dict(line.split('=', 1) for line in text(dev + '-sysfs.txt').split())


def caps(dev):
    s = sysfs(dev)
    return ['--max-segments', s['max_segments'], '--max-hw-bytes', str(int(s['max_hw_sectors_kb']) * 1024)]


LIMITS = ('supported', 'hw_max', 'hw_unit_min', 'hw_unit_max', 'hw_boundary', 'unit_min', 'unit_max', 'max_bytes',
          'boundary')
NVME_RAW = ('awun', 'awupf', 'acwu', 'nsfeat', 'nawun', 'nawupf', 'nacwu', 'nabsn', 'nabo', 'nabspf', 'lba_size')
SCSI_RAW = ('max_atomic_transfer_length', 'atomic_alignment', 'atomic_granularity',
            'max_atomic_transfer_length_with_boundary', 'max_atomic_boundary_size', 'logical_block_size')


def facts(j, kind):
    v = j.get(kind) or {}
    d = v.get('derived') or {}
    raw = NVME_RAW if kind == 'nvme' else SCSI_RAW
    return tuple(v.get(k) for k in raw), tuple(d.get(k) for k in LIMITS)


def same(kind, ref, j, what):
    got = facts(j, kind)
    check(got == ref, '%s: %s differs from the binary dump %s' % (what, got, ref))
    check((j.get('input') or {}).get('missing') is None, '%s: nothing should be missing: %s'
          % (what, (j.get('input') or {}).get('missing')))


def like_sysfs(dev, kind, *files):
    """The dump with the disk's caps derives what the guest kernel put in sysfs."""
    s, j = sysfs(dev), decode(*files, *caps(dev))
    d = (j.get(kind) or {}).get('derived') or {}
    check([d.get(k) for k in ('unit_min', 'unit_max', 'max_bytes', 'boundary')] ==
          [int(s['atomic_write_' + k + '_bytes']) for k in ('unit_min', 'unit_max', 'max', 'boundary')],
          '%s: dump with caps %s, guest sysfs %s' % (dev, d, s))


def cat(*names):
    return ''.join(text(n) for n in names)


# --- NVMe: every form of nvme-cli's output against the binary pages of the same controller
nvme_devs = ('nvme-awrpf15', 'nvme-awr512pf63', 'nvme-awrpf0', 'nvme-awrnp7', 'nvme-awrnbs', 'nvme-awrnbo',
             'nvme-awrnhi', 'nvme-awrnwu')
refs = {}
for dev in nvme_devs:
    b = decode(fx(dev + '-id-ctrl.bin'), fx(dev + '-id-ns.bin'))
    ref = facts(b, 'nvme')
    refs[dev] = ref
    # NABO 4 (awrnbo): no atomic writes, as Linux decides
    check(None not in ref[0] and ref[1][0] is (dev != 'nvme-awrnbo'), '%s: the binary dump decodes (%s)' % (dev, ref))
    # with the disk's caps the derivation is what the guest kernel (6.12) put in sysfs
    like_sysfs(dev, 'nvme', fx(dev + '-id-ctrl.bin'), fx(dev + '-id-ns.bin'))
    for form, fmt in (('.txt', 'nvme-cli'), ('-H.txt', 'nvme-cli -H'), ('.json', 'nvme-cli -o json')):
        c, n = fx(dev + '-id-ctrl' + form), fx(dev + '-id-ns' + form)
        j = decode(c, n)
        same('nvme', ref, j, dev + ' id-ctrl/id-ns' + form)
        check(fmt in (j.get('input') or {}).get('formats', []), '%s%s recognised as %s: %s'
              % (dev, form, fmt, (j.get('input') or {}).get('formats')))
        same('nvme', ref, decode(n, c), dev + form + ' namespace first')
        same('nvme', ref, decode(scratch(dev + '-both' + form, cat(dev + '-id-ctrl' + form, dev + '-id-ns' + form))),
             dev + form + ' both in one file')
    # the text of one form with the binary of the other page
    same('nvme', ref, decode(fx(dev + '-id-ctrl.json'), fx(dev + '-id-ns.bin')), dev + ' json + binary')
    # a hex dump of the binary (xxd-like, "0000:" offsets) is still read as today
    with open(fx(dev + '-id-ns.bin'), 'rb') as f:
        raw = f.read()
    hexd = ''.join('%04x: %s\n' % (i, ' '.join('%02x' % x for x in raw[i:i + 16])) for i in range(0, len(raw), 16))
    same('nvme', ref, decode(fx(dev + '-id-ctrl.txt'), scratch(dev + '-ns.hex', hexd)), dev + ' text + hex dump')

# --- every atomic field of nvme-cli's text, field by field, as QEMU was configured (capture-tool-output.sh:
# atomic.awun/awupf of the controller, atomic.nawun/nawupf/nabsn/nabspf/nabo of the namespace). awrnwu has
# NAWUN 15 != NAWUPF 7 and NABSN 31 != NABSPF 15, awrnbo NABO 4 != NABSPF 15: a reader that takes one of
# these fields for another gets a wrong value here (with every field 0 such a swap went unseen).
CONF = {	# serial: AWUN, AWUPF, NAWUN, NAWUPF, NABSN, NABSPF, NABO (namespace fields: NSFEAT bit 1 set)
    'nvme-awrpf15': (31, 15, None), 'nvme-awr512pf63': (63, 63, None), 'nvme-awrpf0': (0, 0, None),
    'nvme-awrnp7': (0, 0, (7, 7, 15, 0, 0)), 'nvme-awrnbs': (0, 0, (7, 7, 15, 15, 0)),
    'nvme-awrnbo': (0, 0, (7, 7, 15, 15, 4)), 'nvme-awrnhi': (7, 3, (15, 15, 15, 15, 0)),
    'nvme-awrnwu': (0, 0, (15, 7, 31, 15, 0)),
}
NS_FIELDS = ('nawun', 'nawupf', 'nabsn', 'nabspf', 'nabo')
for dev, (awun, awupf, ns) in sorted(CONF.items()):
    want = {'awun': awun, 'awupf': awupf}
    want.update(zip(NS_FIELDS, ns or (0, 0, 0, 0, 0)))
    for form in ('.txt', '-H.txt', '.json', '.bin'):
        v = decode(fx(dev + '-id-ctrl' + form), fx(dev + '-id-ns' + form)).get('nvme') or {}
        got = {k: v.get(k) for k in want}
        check(got == want, '%s id-ctrl/id-ns%s: %s, configured %s' % (dev, form, got, want))
        check(isinstance(v.get('nsfeat'), int) and bool(v['nsfeat'] & 2) == (ns is not None),
              '%s%s: NSFEAT %s, namespace fields %s' % (dev, form, v.get('nsfeat'), 'set' if ns else 'none'))
# the derived limits of the namespace fields (4 KiB blocks): NAWUPF + 1 blocks, NABSPF + 1 blocks of boundary;
# NABO 4 turns atomic writes off as the guest kernel does (its sysfs, like_sysfs above)
for dev, unit_max, boundary in (('nvme-awrnwu', 32768, 65536), ('nvme-awrnhi', 65536, 65536),
                                ('nvme-awrnp7', 32768, 0), ('nvme-awrnbo', 0, 0)):
    d = ((decode(fx(dev + '-id-ctrl.txt'), fx(dev + '-id-ns.txt')).get('nvme') or {}).get('derived') or {})
    check((d.get('hw_unit_max'), d.get('hw_boundary')) == (unit_max, boundary) or
          (unit_max == 0 and d.get('supported') is False),
          '%s derived %s, expected unit_max %d boundary %d' % (dev, d, unit_max, boundary))

# negative control: the comparison tells the devices apart
check(refs['nvme-awrpf15'] != refs['nvme-awrpf0'] and refs['nvme-awrpf15'] != refs['nvme-awr512pf63'],
      'the three controllers must decode to different facts')
j = decode(fx('nvme-awrpf0-id-ctrl.txt'), fx('nvme-awrpf15-id-ns.txt'))
check(facts(j, 'nvme') != refs['nvme-awrpf15'], 'another controller\'s id-ctrl must change the result')

# --- SCSI: sg_vpd text, -H and raw, with the block size from sg_readcap text
for dev in ('sd-default', 'sd-gran512', 'sd-bndry'):
    b = decode(fx(dev + '-vpd-bl.bin'), fx(dev + '-readcap-long.txt'))
    ref = facts(b, 'scsi')
    check(None not in ref[0] and ref[1][0] is True, '%s: the raw page decodes (%s)' % (dev, ref))
    like_sysfs(dev, 'scsi', fx(dev + '-vpd-bl.bin'), fx(dev + '-readcap-long.txt'))
    for vpd in ('-vpd-bl.txt', '-vpd-bl-H.txt'):
        for rc in ('-readcap.txt', '-readcap-long.txt'):
            same('scsi', ref, decode(fx(dev + vpd), fx(dev + rc)), dev + vpd + ' + ' + rc)
        same('scsi', ref, decode(scratch(dev + '-both.txt', cat(dev + vpd, dev + '-readcap-long.txt'))),
             dev + vpd + ' with sg_readcap in one file')
    lbs = sysfs(dev)['logical_block_size']
    same('scsi', ref, decode(fx(dev + '-vpd-bl.txt'), '--lbs', lbs), dev + ' text with --lbs')
# sg_vpd 1.45 (Debian bullseye) on the same raw pages: ATOMIC TRANSFER LENGTH GRANULARITY under its own name
# ("Atomic transfer length granularity: 8"), values in decimal with "blocks"
SD_CONF = {	# MATL, alignment, granularity, MATL with boundary, maximum boundary size: scsi_debug's parameters
    'sd-default': (8192, 2, 2, 8192, 128), 'sd-gran512': (8192, 2, 8, 8192, 128), 'sd-bndry': (0, 2, 2, 16, 8),
}
for dev, want in sorted(SD_CONF.items()):
    for vpd in ('-vpd-bl.bin', '-vpd-bl.txt', '-vpd-bl-H.txt', '-vpd-bl-1.45.txt'):
        v = decode(fx(dev + vpd), fx(dev + '-readcap.txt')).get('scsi') or {}
        got = tuple(v.get(k) for k in SCSI_RAW[:5])
        check(got == want, '%s%s: %s, scsi_debug made %s' % (dev, vpd, dict(zip(SCSI_RAW, got)), want))
    ref = facts(decode(fx(dev + '-vpd-bl.bin'), fx(dev + '-readcap-long.txt')), 'scsi')
    same('scsi', ref, decode(fx(dev + '-vpd-bl-1.45.txt'), fx(dev + '-readcap-long.txt')), dev + ' sg_vpd 1.45')
check('Atomic transfer length granularity: 8' in text('sd-gran512-vpd-bl-1.45.txt'),
      'sd-gran512-vpd-bl-1.45.txt names the granularity')
# sg_vpd 1.48 labels the granularity "Atomic alignment": the second such line is the granularity
g = (decode(fx('sd-gran512-vpd-bl.txt'), fx('sd-gran512-readcap.txt')).get('scsi') or {})
check((g.get('atomic_alignment'), g.get('atomic_granularity')) == (2, 8), 'sg_vpd 1.48 alignment/granularity: %s' % g)

# --- partial records: what can be known, and what is missing named
j = decode(fx('nvme-awr512pf63-id-ctrl.txt'))
m = (j.get('input') or {}).get('missing') or ''
check(m.startswith('NSFEAT and the LBA format are missing: if the namespace uses the controller\'s fields and '
                   '4 KiB blocks, 256 KiB'), 'only id-ctrl (AWUPF 63): %r' % m)
j = decode(fx('nvme-awrpf15-id-ctrl.json'))
m = (j.get('input') or {}).get('missing') or ''
check('4 KiB blocks, 64 KiB' in m, 'only id-ctrl json (AWUPF 15): %r' % m)
# only the lines with the atomic fields (what a ticket quotes), ctrl and namespace pasted together
keep = ('awupf', 'nsfeat', 'nawupf', 'nabspf', 'nabo', 'flbas', 'lbaf  1 ', 'lbaf  0 ', 'lbaf  4 ')
for dev in ('nvme-awrpf15', 'nvme-awr512pf63'):
    lines = [ln for ln in cat(dev + '-id-ctrl.txt', dev + '-id-ns.txt').splitlines(True) if ln.startswith(keep)]
    j = decode(scratch(dev + '-atomic-lines.txt', ''.join(lines)))
    check(facts(j, 'nvme')[1] == refs[dev][1], '%s: only the atomic lines: %s' % (dev, facts(j, 'nvme')))
    check((j.get('input') or {}).get('missing') is None, '%s: atomic lines miss nothing: %s' % (dev, j.get('input')))
    # no LBA format list: the block size is missing and named
    nolbaf = [ln for ln in lines if not ln.startswith('lbaf')]
    j = decode(scratch(dev + '-no-lbaf.txt', ''.join(nolbaf)))
    m = (j.get('input') or {}).get('missing') or ''
    check(m.startswith('the LBA format is missing: if 4 KiB blocks'), '%s without LBA formats: %r' % (dev, m))
# "[...]" elisions: the lines that are there still count
full = text('nvme-awrpf15-id-ns.txt').splitlines(True)
elided = full[:5] + ['[...]\n'] + [ln for ln in full if ln.startswith(('nawupf', 'nabo', 'nabspf'))] + \
    ['[...]\n'] + [ln for ln in full if ln.startswith('lbaf  4')]
j = decode(fx('nvme-awrpf15-id-ctrl.txt'), scratch('elided.txt', ''.join(elided)))
check('elided' in (j.get('input') or {}).get('formats', []), 'elision recognised: %s' % j.get('input'))
check(facts(j, 'nvme')[1] == refs['nvme-awrpf15'][1], 'elided id-ns: %s' % (facts(j, 'nvme'),))
# a namespace without NSFEAT (elided) but with the controller: the assumption is named
j = decode(fx('nvme-awrpf15-id-ctrl.txt'),
           scratch('no-nsfeat.txt', ''.join(ln for ln in full if not ln.startswith('nsfeat'))))
m = (j.get('input') or {}).get('missing') or ''
check(m.startswith('NSFEAT is missing: if the namespace uses the controller\'s fields, 64 KiB'), 'no NSFEAT: %r' % m)
# only sg_vpd: the block size is missing, named, assumed 512 bytes
j = decode(fx('sd-default-vpd-bl.txt'))
m = (j.get('input') or {}).get('missing') or ''
check(m.startswith('the logical block size (sg_readcap, --lbs) is missing: if 512-byte blocks'), 'no lbs: %r' % m)

# --- bad input: exit 2, the file named, nothing on stdout
for name, content in (('garbage.txt', 'hello world\nthis is no tool output\n'),
                      ('half.json', '{"awupf": "fifteen"}\n'),
                      ('short.bin', b'\x00\x01\x02\x03' * 10)):
    path = scratch(name, content)
    rc, out, err = run(path)
    check(rc == 2 and path in err and out == '', '%s: exit %d, stderr %r' % (name, rc, err))
conflict = scratch('conflict.txt', 'awupf     : 15\n')
rc, out, err = run(fx('nvme-awrpf0-id-ctrl.txt'), conflict)
# the message names the field, both values and the line of the second, and says what to do
check(rc == 2 and 'gives AWUPF 15 at line 1, but 0 was read before' in err and 'paste one device' in err,
      'AWUPF 0 and 15 for one device: exit %d %r' % (rc, err))
# one paste of two devices' id-ctrl (a shell transcript): the same, with the line in that paste
two = scratch('two.txt', '$ nvme id-ctrl /dev/nvme0\nawun      : 15\nawupf     : 7\n'
              '$ nvme id-ctrl /dev/nvme1\nawun      : 15\nawupf     : 15\n')
rc, out, err = run(two)
check(rc == 2 and 'gives AWUPF 15 at line 6, but 7 was read before' in err,
      'two devices in one paste: exit %d %r' % (rc, err))
rc, out, err = run(fx('nvme-awrpf15-id-ctrl.txt'), fx('sd-default-vpd-bl.txt'))
check(rc == 2 and 'NVMe device and a SCSI device' in err, 'NVMe + SCSI: exit %d %r' % (rc, err))
rc, out, err = run(fx('nvme-awrpf15-id-ctrl.txt'), '--nvme-ns', fx('nvme-awrpf15-id-ns.bin'))
check(rc == 2 and 'not both' in err, 'FILE with --nvme-ns: exit %d %r' % (rc, err))

# normal output names the formats and what is missing
rc, out, err = run(fx('nvme-awr512pf63-id-ctrl-H.txt'))
check(rc == 0 and out.startswith('input: [nvme-cli] [nvme-cli -H]\nmissing: NSFEAT and the LBA format'),
      'normal output: %r' % out[:200])

# decode never presents an assumption as a reading (awr(1) decode): what a partial paste lacks is
# null in JSON and listed under "assumed", "assumed" in the text, and no finding states it.
def ids(j):
    return {f['id'] for f in j.get('findings', [])}


one = scratch('awupf7.txt', 'awupf     : 7\n')
j = decode(one)
n = j.get('nvme') or {}
check(n.get('awupf') == 7 and all(n.get(k) is None for k in ('awun', 'mdts', 'nsfeat', 'nawupf', 'lba_size')),
      'one-line paste: read AWUPF 7, the rest null: %s' % {k: n.get(k) for k in NVME_RAW + ('mdts',)})
check({'awun', 'mdts', 'nsfeat', 'lba_size'} <= set(n.get('assumed') or []), 'assumed: %s' % n.get('assumed'))
check(not ids(j) & {'nvme_spec_awupf_above_awun', 'nvme_nsabp_clear', 'nvme_single_block'},
      'one-line paste: no finding from a field not read: %s' % sorted(ids(j)))
check('NSFEAT' in (j.get('input') or {}).get('missing', '') and 'LBA format' in j['input']['missing'],
      'one-line paste: missing names NSFEAT and the LBA format: %s' % (j.get('input') or {}).get('missing'))
rc, out, err = run(one)
check(rc == 0 and 'AWUN assumed 0' in out and 'MDTS assumed 0' in out and 'NSFEAT assumed 0x00' in out and
      'LBA format not in the input' in out and 'MDTS 0\n' not in out, 'one-line paste, text: %r' % out)
# negative control: the same relation read from both fields is still a finding
both = scratch('awun3-awupf7.txt', 'awun      : 3\nawupf     : 7\n')
check('nvme_spec_awupf_above_awun' in ids(decode(both)), 'AWUN 3 and AWUPF 7 both read: the finding is raised')
# id-ctrl alone: the namespace's fields are assumed, and nothing is said of NSFEAT
j = decode(fx('nvme-awrnhi-id-ctrl.txt'))
check((j.get('nvme') or {}).get('nsfeat') is None and 'nvme_nsabp_clear' not in ids(j),
      'id-ctrl alone: NSFEAT null, no nvme_nsabp_clear: %s %s' % ((j.get('nvme') or {}).get('nsfeat'), sorted(ids(j))))
# control: a whole pair assumes nothing
j = decode(fx('nvme-awrnhi-id-ctrl.txt'), fx('nvme-awrnhi-id-ns.txt'))
check((j.get('nvme') or {}).get('assumed') == [] and (j.get('nvme') or {}).get('nsfeat') is not None,
      'id-ctrl + id-ns: nothing assumed: %s' % (j.get('nvme') or {}).get('assumed'))
# awr decode - reads standard input: the same answer as the file
p = subprocess.run([awr, 'decode', '-', '-o', 'json'], input=text('nvme-awrnhi-id-ctrl.txt'), capture_output=True,
                   text=True)
jf = decode(fx('nvme-awrnhi-id-ctrl.txt'))
check(p.returncode == 0 and json.loads(p.stdout or '{}').get('nvme') == jf.get('nvme'),
      'decode - (standard input): exit %d, same view as the file: %s' % (p.returncode, p.stderr))

# the PCI vendor and model in every form of nvme-cli's id-ctrl (QEMU: 0x1b36, not a cloud provider's),
# and no provider statement: the captured namespaces' vendor-specific data are all zero
for form in ('nvme-awrpf15-id-ctrl.txt', 'nvme-awrpf15-id-ctrl-H.txt', 'nvme-awrpf15-id-ctrl.json',
             'nvme-awrpf15-id-ctrl.bin'):
    n = decode(fx(form), fx('nvme-awrpf15-id-ns.txt')).get('nvme') or {}
    check((n.get('vid'), n.get('model'), n.get('provider', 0)) == (0x1b36, 'other', None),
          '%s: vid, model, provider: %s' % (form, {k: n.get(k) for k in ('vid', 'model', 'provider')}))
n = decode(fx('nvme-awrpf15-id-ctrl.txt'), fx('nvme-awrpf15-id-ns.bin')).get('nvme') or {}
check((n.get('ntwpu'), n.get('ntwpg'), n.get('ntwpb')) == (0, 0, 0), 'QEMU vendor bytes 0: %s' % n)

finish('decode_text')
