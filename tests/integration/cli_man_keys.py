#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: each command's page and its real output agree, both ways. probe (a file and a
# directory on scratch XFS, the loop device), list (-o json and -o prometheus), version, and decode
# (NVMe and SCSI fixtures) run with -o json: every key of a command's output is named in its page
# awr-CMD(1) (man/src/CMD.man) or in awr(1) (the keys every document has), and every key the page
# documents (the bold names of its JSON paragraphs) is in that output, but for the few listed below
# with the reason they cannot show here. Negative controls: a key the output lacks (probe's old
# mem_align) and an output key the page lacks are both reported.
#   cli_man_keys.py AWR MAN_SRC_DIR FIXTURES   (run under with-scratch-xfs.sh)
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from checks import check, finish  # noqa: E402

awr, src, fixtures = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], 'tools')
d, dev = os.environ['AWR_SCRATCH_DIR'], os.environ['AWR_SCRATCH_DEV']

# documented on the page, but not in any output this machine can give (with the reason)
ABSENT_HERE = {
    'probe': {
        # a dm, md or multipath device's stack view: the guest's stack groups run those
        'kernel_stacks', 'legs', 'why_off', 'start',
        # a live NVMe device's and a cloud provider's fields: decode of fixtures gives the rest
        'known_by', 'readable', 'read', 'source', 'provider', 'granularity', 'vid', 'model',
        # ext4's bigalloc: the scratch filesystem is XFS
        'bigalloc', 'cluster_size',
        # values and words in the JSON paragraphs, not keys
        'directory', 'by', 'true', 'NAME', 'none',
    },
    'list': {
        # a cloud provider's statement, a SCSI disk read as root, a partitioned disk: not on
        # every machine (a loop or virtio disk has none)
        'provider', 'unit', 'granularity', 'max_atomic_transfer_length',
        'awr_scsi_max_atomic_transfer_length_blocks', 'awr_nvme_awupf', 'awr_nvme_nawupf',
        'awupf', 'nawupf', 'aligned', 'start',
        # words: "-o json", "-o prometheus"
        'o', 'json', 'prometheus',
    },
    'version': {'NAME', 'short_pin', 'qualify'},
}
# the keys a page documents by naming another page ("JSON keys as for awr probe")
REFERS = {'decode': ('probe',)}
# documented keys that depend on the machine: they may be in the output or not
MACHINE = {'list': {'provider', 'unit', 'granularity', 'max_atomic_transfer_length', 'awupf',
                    'nawupf', 'aligned', 'start', 'awr_scsi_max_atomic_transfer_length_blocks',
                    'awr_nvme_awupf', 'awr_nvme_nawupf'},
           'probe': {'model', 'vid', 'provider', 'granularity'}}
COMMANDS = ('probe', 'list', 'version', 'decode', 'preload-stats', 'database')


def page_text(name):
    with open(os.path.join(src, name + '.man'), encoding='utf-8') as f:
        return f.read()


def bold_args(line):
    """the bold arguments of a .B, .BR or .RB line; a name followed by (N) is a page, not a key"""
    m = re.match(r'\.(B|BR|RB)\s+(.*)$', line)
    if not m:
        return []
    try:
        args = shlex.split(m.group(2).replace('\\', '\\\\'))
    except ValueError:
        args = m.group(2).split()
    if m.group(1) == 'B':
        return [' '.join(args)]
    first = m.group(1) == 'BR'
    return [a for i, a in enumerate(args) if (i % 2 == 0) == first and
            not (i + 1 < len(args) and re.match(r'\(\d\)', args[i + 1]))]


def documented(page):
    """the names in bold from "JSON:" or "JSON keys" to the end of the paragraph"""
    names, on = set(), False
    for line in page.splitlines():
        if line.startswith(('.PP', '.SH', '.SS', '.IP', '.TP')):
            on = False
        if not line.startswith('.\\"') and re.search(r'\bJSON( keys)?:|\bJSON keys\b', line):
            on = True
        if on:
            for a in bold_args(line):
                a = a.replace('\\-', '-').replace('\\\\', '\\')
                names |= set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', a))
    return names - set(COMMANDS) - {'awr'} | ({'awr'} if 'libatomicwr' in names else set())


def words(page):
    return set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', page.replace('\\-', '-').replace('\\_', '_')))


def keys(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(k)
            keys(v, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, out)
    return out


def run(*args, fmt='json'):
    p = subprocess.run([awr] + list(args) + ['-o', fmt], capture_output=True, text=True)
    check(p.returncode in (0, 1), 'awr %s -o %s exited %d: %s' % (' '.join(args), fmt, p.returncode,
                                                                   p.stderr[-300:]))
    if fmt == 'prometheus':
        return set(re.findall(r'^# TYPE (\S+)', p.stdout, re.M))
    try:
        return keys(json.loads(p.stdout), set())
    except ValueError:
        check(False, 'awr %s -o json: not one JSON document' % ' '.join(args))
        return set()


f = os.path.join(d, 'man-keys.dat')
subprocess.run(['truncate', '-s', '16M', f], check=True)
tool = os.path.join(fixtures, '%s')
decode_nvme = run('decode', tool % 'nvme-awrnhi-id-ctrl.txt', tool % 'nvme-awrnhi-id-ns.txt')
decode_scsi = run('decode', tool % 'sd-default-vpd-bl.txt', '--lbs', '512')
outputs = {
    'probe': run('probe', f) | run('probe', d) | run('probe', dev),
    'list': run('list') | run('list', fmt='prometheus'),
    'version': run('version'),
    'decode': decode_nvme | decode_scsi,
}
# probe's device views are decode's: the NVMe and SCSI keys a loop device lacks come from there
device_keys = decode_nvme | decode_scsi | run('decode', tool % 'nvme-awrnhi-id-ctrl.txt')
common = words(page_text('awr'))
for cmd, out in outputs.items():
    page = page_text(cmd)
    named = words(page).union(*(words(page_text(o)) for o in REFERS.get(cmd, ())))
    undocumented = sorted(out - named - common)
    check(not undocumented, 'awr %s: output keys not in awr-%s(1) or awr(1): %s' %
          (cmd, cmd, undocumented))
    seen = out | (device_keys if cmd == 'probe' else set())
    absent = sorted(documented(page) - seen - ABSENT_HERE.get(cmd, set()))
    check(not absent, 'awr-%s(1) documents keys no output here has: %s (the bold names from '
          '"JSON:" to the paragraph\'s end are read as keys)' % (cmd, absent))
    stale = sorted((ABSENT_HERE.get(cmd, set()) - MACHINE.get(cmd, set())) & out)
    check(not stale, 'awr %s: listed as absent here, but in the output: %s' % (cmd, stale))
    print('%s: %d output keys, %d documented' % (cmd, len(out), len(documented(page))))

# negative controls: the old key name on the page, and a key the page lacks, are both reported
old = page_text('probe').replace('dio_mem_align', 'mem_align')
check('mem_align' in documented(old) - outputs['probe'] - device_keys,
      'control: a documented key the output lacks (mem_align) is not reported')
check('zz_not_documented' in ({'zz_not_documented'} | outputs['probe']) - words(old) - common,
      'control: an output key the page lacks is not reported')
finish('cli_man_keys')
