#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: one JSON vocabulary, documented. Every key of every command's -o json document (probe of
# a file, a directory and the loop device, list, check, extents, decode of NVMe and SCSI fixtures, write,
# stress, verify, prepare, bench, qualify --quick, version) on scratch XFS must be named in awr(1) or
# the awr-COMMAND(1) pages (their prose, man/src/*.man); one
# name per meaning across commands (effective.dio_mem_align as statx.dio_mem_align, findings with a
# severity at the top and in fs.findings, the kernel and awr version in probe, list and qualify);
# numbers are printed rounded to their meaning (no 6.84e-06 seconds); schema_version is 2. Control: a
# key absent from the page is reported by the same check.
#   cli_json_keys.py AWR MAN_SRC_DIR FIXTURES   (run under with-scratch-xfs.sh)
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from checks import check, finish  # noqa: E402

awr, man, fixtures = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], 'tools')
d, dev = os.environ['AWR_SCRATCH_DIR'], os.environ['AWR_SCRATCH_DEV']
page = ''
for name in sorted(os.listdir(man)):
    with open(os.path.join(man, name), encoding='utf-8') as f:
        page += f.read().replace('\\-', '-').replace('\\_', '_')
documented = set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', page))


def run(*args):
    p = subprocess.run([awr] + list(args) + ['-o', 'json'], capture_output=True, text=True)
    check(p.returncode in (0, 1), 'awr %s -o json exited %d: %s' % (' '.join(args), p.returncode, p.stderr[-300:]))
    try:
        return p.stdout, json.loads(p.stdout)
    except ValueError:
        check(False, 'awr %s -o json: not one JSON document: %r' % (' '.join(args), p.stdout[:200]))
        return '', {}


def keys(o, path, out):
    """every key with the path it was first seen at"""
    if isinstance(o, dict):
        for k, v in o.items():
            out.setdefault(k, path + k)
            # kernel.rules holds one object per rule, named by the rule (awr(1) lists the names)
            keys(v, path + k + '.', out)
    elif isinstance(o, list):
        for v in o:
            keys(v, path + '[].', out)
    return out


def undocumented(doc):
    return sorted(p for k, p in keys(doc, '', {}).items() if k not in documented)


f = os.path.join(d, 'keys.dat')
subprocess.run(['truncate', '-s', '16M', f], check=True)
tool = os.path.join(fixtures, '%s')
runs = {
    'probe file': ('probe', f), 'probe dir': ('probe', d), 'probe dev': ('probe', dev), 'list': ('list',),
    'check': ('check', f, '--offset', '0', '--length', '16k'), 'extents': ('extents', f),
    'decode nvme': ('decode', tool % 'nvme-awrnhi-id-ctrl.txt', tool % 'nvme-awrnhi-id-ns.txt'),
    'decode partial': ('decode', tool % 'nvme-awrnhi-id-ctrl.txt'),
    'decode scsi': ('decode', tool % 'sd-default-vpd-bl.txt', '--lbs', '512'),
    'write': ('write', os.path.join(d, 'w.dat'), '--offset', '0', '--length', '64k', '--unit', '16k', '--verify'),
    'stress': ('stress', os.path.join(d, 's.dat'), '--unit', '16k', '--size', '4M', '--writes', '200'),
    'verify': ('verify', os.path.join(d, 's.dat'), '--unit', '16k'),
    'prepare': ('prepare', os.path.join(d, 'p.dat'), '--size', '8M', '--unit', '16k'),
    'bench': ('bench', os.path.join(d, 'b.dat'), '--seconds', '0.3', '--size', '8M', '--mode', 'all'),
    'qualify': ('qualify', os.path.join(d, 'q.dat'), '--quick', '--create'),
    'version': ('version',),
}
docs = {}
for name, args in runs.items():
    text, doc = run(*args)
    docs[name] = doc
    missing = undocumented(doc)
    check(not missing, '%s: keys not in the man pages: %s' % (name, missing))
    check(doc.get('schema_version') == 2, '%s: schema_version %s' % (name, doc.get('schema_version')))
    sci = re.findall(r'[0-9]e-[0-9]+', text)
    check(not sci, '%s: numbers in exponent form (round them to their meaning): %s' % (name, sci[:3]))

# control: the same check reports a key the page does not name
check(undocumented({'effective': {'zz_not_a_documented_key': 1}}) == ['effective.zz_not_a_documented_key'],
      'control: an undocumented key is not reported')

# one name per meaning
p = docs['probe file']
check(set(p.get('effective', {})) >= {'dio_mem_align', 'dio_offset_align'} and
      not set(p.get('effective', {})) & {'mem_align', 'offset_align'},
      'effective names its alignments as statx does: %s' % sorted(p.get('effective', {})))
check(p.get('effective', {}).get('dio_offset_align') == p.get('statx', {}).get('dio_offset_align'),
      'effective.dio_offset_align and statx.dio_offset_align agree on a file')
fsf = (p.get('fs') or {}).get('findings') or []
# (on the loop device's XFS the copy-on-write-only fact is the probe's software_path_only: the
# filesystem view adds no second finding for it, so fs.findings may be empty here)
check(fsf + p.get('findings', []) and
      all(set(x) >= {'id', 'severity', 'message'} for x in fsf + p.get('findings', [])),
      'findings at the top and in fs.findings carry id, severity and message: %s' % fsf[:1])
check(all('what_to_do' in x for x in fsf + p.get('findings', [])),
      'every finding has what_to_do (null for info): %s' % (fsf + p.get('findings', []))[:1])
for name in ('probe file', 'list', 'qualify'):
    check(docs[name].get('kernel') == os.uname().release and docs[name].get('awr_version'),
          '%s: kernel %s and awr_version %s' % (name, docs[name].get('kernel'), docs[name].get('awr_version')))
for c in docs['qualify'].get('checks', []):
    check(round(c['seconds'], 3) == c['seconds'], 'qualify %s: seconds %r not to the millisecond' % (c['name'], c['seconds']))
finish('cli_json_keys')
