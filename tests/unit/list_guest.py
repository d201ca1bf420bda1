#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: awr list -o json as the static awr printed it in the guest (kernel 6.12, three NVMe controllers, a scsi_debug disk with one misaligned and one aligned partition), against the guest's sysfs read beside it: every disk listed, limits, model, partitions and their alignment, holders and verdicts; the device's own AWUPF / maximum atomic transfer length against nvme-cli's and sg_vpd's output of the same devices.
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from checks import check, finish, skip  # noqa: E402

fixtures = os.path.join(sys.argv[1], 'tools')
if not os.path.exists(os.path.join(fixtures, 'list.json')):
    skip('no guest capture of awr list in tests/fixtures/tools (tests/vm/capture-tool-output.sh makes it)')
with open(os.path.join(fixtures, 'list.json')) as f:
    listing = json.load(f)
got = {d['name']: d for d in listing['devices']}
sysfs = {}
with open(os.path.join(fixtures, 'list-sysfs.txt')) as f:
    for line in f:
        name, _, kv = line.rstrip('\n').partition(' ')
        key, _, value = kv.partition('=')
        sysfs.setdefault(name, {})[key] = value.strip()
check(listing.get('schema_version') == 1, 'schema_version')
check(sorted(got) == sorted(sysfs), 'listed %s, sysfs has %s' % (sorted(got), sorted(sysfs)))
for name, s in sorted(sysfs.items()):
    d = got.get(name, {})
    for key, attr in (('logical_block_size', 'logical_block_size'), ('unit_min', 'atomic_write_unit_min_bytes'),
                      ('unit_max', 'atomic_write_unit_max_bytes'), ('max_bytes', 'atomic_write_max_bytes'),
                      ('boundary', 'atomic_write_boundary_bytes')):
        check(d.get(key) == int(s['queue.' + attr]), '%s %s: awr %s, sysfs %s' % (name, key, d.get(key),
                                                                                s['queue.' + attr]))
    check((d.get('model') or '') == s['model'], '%s model %r, sysfs %r' % (name, d.get('model'), s['model']))
    parts = sorted((k[5:], int(v) * 512) for k, v in s.items() if k.startswith('part.'))
    check(sorted((p['name'], p['start']) for p in d.get('partitions', [])) == parts,
          '%s partitions %s, sysfs %s' % (name, d.get('partitions'), parts))
    align = max(int(s['queue.atomic_write_unit_min_bytes']), int(s['queue.atomic_write_boundary_bytes']))
    for p in d.get('partitions', []):
        check(p['aligned'] == (not align or p['start'] % align == 0), '%s aligned %s' % (p['name'], p['aligned']))
    check(sorted(d.get('holders', [])) == sorted(s['holders'].split()), '%s holders' % name)

# the NVMe controllers: AWUPF as nvme-cli printed it for the same serial
nvme = [d for d in got.values() if d['transport'] == 'nvme']
check(len(nvme) == 3, 'three NVMe namespaces: %s' % [d['name'] for d in nvme])
awupfs = {}
for serial in ('awrpf15', 'awr512pf63', 'awrpf0'):
    with open(os.path.join(fixtures, 'nvme-%s-id-ctrl.txt' % serial)) as f:
        awupfs[serial] = int(re.search(r'^awupf\s*:\s*(\d+)', f.read(), re.M).group(1))
check(sorted((d.get('nvme') or {}).get('awupf') for d in nvme) == sorted(awupfs.values()),
      'AWUPF of the namespaces %s, nvme-cli %s' % ([(d['name'], d.get('nvme')) for d in nvme], awupfs))
check(all((d.get('nvme') or {}).get('nawupf', 'x') is None for d in nvme), 'NSFEAT bit 1 clear: nawupf null')
verdicts = sorted(d['verdict'] for d in nvme)
check(verdicts == ['atomic', 'atomic', 'single-block'], 'NVMe verdicts %s' % verdicts)
# the scsi_debug disk: MATL as sg_vpd printed it, one misaligned partition
sd = [d for d in got.values() if d['transport'] == 'scsi']
check(len(sd) == 1, 'one scsi_debug disk: %s' % [d['name'] for d in sd])
with open(os.path.join(fixtures, 'sd-default-vpd-bl.txt')) as f:
    matl = int(re.search(r'Maximum atomic transfer length: (\S+)', f.read()).group(1), 0)
for d in sd:
    check((d.get('scsi') or {}).get('max_atomic_transfer_length') == matl, '%s MATL %s, sg_vpd %s'
          % (d['name'], d.get('scsi'), matl))
    check([p['aligned'] for p in d['partitions']] == [False, True], '%s partitions %s' % (d['name'], d['partitions']))
    check(d['verdict'] == 'misaligned', '%s verdict %s' % (d['name'], d['verdict']))
# the normal output has the same devices, one line each
with open(os.path.join(fixtures, 'list.txt')) as f:
    rows = f.read().splitlines()
check(rows[0].split()[0] == 'NAME' and sorted(r.split()[0] for r in rows[1:]) == sorted(got),
      'normal output rows: %s' % rows)
finish('list_guest')
