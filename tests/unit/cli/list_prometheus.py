#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr list -o prometheus on a sysfs tree built here (AWR_SYSFS_ROOT), read by the
# Prometheus Python client's parser (tests/prom_check.py): every family a gauge with HELP and TYPE,
# each disk's limits equal to its sysfs files and to awr list -o json, one verdict gauge at 1 per
# disk, a model with a double quote and a backslash escaped so that the label reads back exactly,
# awr_partitions_misaligned equal to the partitions JSON calls not aligned. A disk whose name and
# model hold bytes that are not UTF-8 (0xff, a sequence cut short, a surrogate, an overlong form):
# the output stays UTF-8 (node_exporter drops a textfile with one invalid byte) and each such byte
# reads back spelled \xff. Negative controls: the same text with the label's escaping undone must
# not read back as the model, and with the raw bytes put back must fail as not UTF-8.
# Also: -o prometheus is refused (exit 2) by a command that does not write it.
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..'))
from checks import check, finish  # noqa: E402

awr = sys.argv[1]
prom = os.path.join(here, '..', '..', 'prom_check.py')


def put(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', errors='surrogateescape') as f:
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
# 0xff; é; E2 82 cut short; a surrogate (ED A0 80); beyond U+10FFFF (F4 90 80 80); overlong C0 AF
BAD = b'Bad\xff \xc3\xa9 \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf end'
# the label as it must read back: each byte that is not UTF-8 spelled out, the é kept
BAD_LABEL = 'Bad\\xff \xe9 \\xe2\\x82 \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xc0\\xaf end'
bad_model = BAD.decode('utf-8', 'surrogateescape')
bad_name = b'awrp3\xff'.decode('utf-8', 'surrogateescape')


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, env=env)


with tempfile.TemporaryDirectory() as root:
    disk(root, 'awrp0n1', '259:911', 4096, 65536, 0, model,
         parts=[('awrp0n1p1', '259:912', 2048), ('awrp0n1p2', '259:913', 2049)])
    disk(root, 'awrp1n1', '259:921', 4096, 16384, 0, 'Plain Disk')
    disk(root, 'awrp2', '8:930', 0, 0, 0, 'No Atomics')
    disk(root, bad_name, '259:941', 4096, 16384, 0, bad_model,
         parts=[(bad_name + 'p1', '259:942', 2048), (bad_name + 'p2', '259:943', 4096)])
    env = dict(os.environ, AWR_SYSFS_ROOT=root)
    out = {}
    for fmt in ('prometheus', 'json'):
        p = run([awr, 'list', '-o', fmt], env)
        check(p.returncode == 0, 'awr list -o %s exited %d: %s' % (fmt, p.returncode, p.stderr))
        out[fmt] = os.path.join(root, 'list.' + fmt)
        with open(out[fmt], 'wb') as f:
            f.write(p.stdout)
    raw = open(out['prometheus'], 'rb').read()
    text = raw.decode('utf-8', 'replace')
    check(b'model="Odd \\"Disk\\" \\\\ 7"' in raw, 'the model label is not escaped: %s' %
          [line for line in text.splitlines() if 'awrp0n1' in line][:1])
    spelled = BAD_LABEL.replace('\\', '\\\\')
    check(BAD.decode('utf-8', 'backslashreplace') == BAD_LABEL, 'the spelling is not Python\'s')
    check(('awr_atomic_unit_max_bytes{device="awrp3\\\\xff",model="%s",' % spelled) in text,
          'the name and model with bytes that are not UTF-8 are not spelled out: %s'
          % [line for line in text.splitlines() if 'awrp3' in line][:1])
    block = os.path.join(root, 'block')
    p = run([sys.executable, prom, 'list', out['prometheus'], out['json'], block])
    print(p.stdout.decode().strip())
    check(p.returncode == 0, 'prom_check list exited %d: %s %s'
          % (p.returncode, p.stdout, p.stderr))
    check('awr_atomic_verdict{device="awrp0n1",verdict="misaligned"} 1' in text,
          'awrp0n1 (a partition at 2049) is not misaligned')
    check('awr_partitions_misaligned{device="awrp0n1"} 1' in text,
          'awrp0n1: not 1 partition misaligned')
    check('awr_atomic_verdict{device="awrp2",verdict="none"} 1' in text, 'awrp2 is not "none"')
    # the controls: with the label's escaping undone, the parser must not read the model back;
    # with the bytes that are not UTF-8 put back, the output must fail as not UTF-8
    for name, old, new, want in (
            ('escaping undone', b'Odd \\"Disk\\" \\\\ 7', model.encode(), b'FAIL: '),
            ('raw bytes', spelled.encode(), BAD, b'FAIL: the output is not UTF-8')):
        bad = os.path.join(root, 'bad.prom')
        with open(bad, 'wb') as f:
            f.write(raw.replace(old, new))
        p = run([sys.executable, prom, 'list', bad, out['json'], block])
        print('control %s:' % name, (p.stdout.decode().strip().splitlines() or ['(nothing)'])[0])
        check(p.returncode != 0 and want in p.stdout, 'control %s: passed: %s' % (name, p.stdout))
    p = run([awr, 'probe', root, '-o', 'prometheus'], env)
    check(p.returncode == 2 and b'written by awr list and awr qualify only' in p.stderr
          and not p.stdout, 'probe -o prometheus: exit %d, %s' % (p.returncode, p.stderr))
finish("list_prometheus")
