#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: writes a dm-log-writes log of the documented format (drivers/md/dm-log-writes.c,
# Documentation/admin-guide/device-mapper/log-writes.rst) for replay_log.sh, and the device's
# state after each entry as this independent model computes it.
#
#   replay_mklog.py LOG --sectorsize S --dev-sectors N [--states DIR] [--damage KIND[:ARG]] OP...
#
# OP: w:SECTOR:NR[:FLAGS]  a write of NR sectors (a pattern of its entry), FLAGS joined by '+'
#                          from flush, fua, meta
#     f                    a flush without data
#     d:SECTOR:NR          a discard
#     m:NAME               a mark
#     x:SECTOR:NR:FLAGBITS a raw entry with the flag bits given (for unknown flags)
# Sectors count blocks of the log's sector size, as the kernel writes them. --states DIR writes
# DIR/state.N (the device after entries 1..N, N from 0) and DIR/entries.json (the listing
# awr replay -o json must give). --damage: magic, version, sectorsize, truncate:BYTES (cut BYTES
# off the end), count:N (the super counts N entries), namenul (a NUL in the first mark's name).
import argparse
import json
import os
import struct

MAGIC = 0x6a736677736872
FLAGS = {'flush': 1, 'fua': 2, 'discard': 4, 'mark': 8, 'meta': 16}
NAMES = [(1, 'flush'), (2, 'fua'), (4, 'discard'), (8, 'mark'), (16, 'metadata')]


def pattern(index, nbytes):
    """The data of entry @index: no two entries, and no two blocks of one, alike."""
    seed = bytes(((index * 37 + k * 11) & 0xff) for k in range(251))
    return (seed * (nbytes // 251 + 1))[:nbytes]


def parse_op(text, index, ss):
    """(sector, nr, flags, payload, mark) of one OP."""
    part = text.split(':')
    kind = part[0]
    if kind == 'w':
        flags = 0
        for f in (part[3].split('+') if len(part) > 3 and part[3] else []):
            flags |= FLAGS[f]
        nr = int(part[2])
        return int(part[1]), nr, flags, pattern(index, nr * ss), None
    if kind == 'f':
        return 0, 0, FLAGS['flush'], b'', None
    if kind == 'd':
        return int(part[1]), int(part[2]), FLAGS['discard'], b'', None
    if kind == 'm':
        return 0, 0, FLAGS['mark'], b'', part[1]
    if kind == 'x':
        nr = int(part[2])
        flags = int(part[3], 0)
        return int(part[1]), nr, flags, b'' if flags & 4 else pattern(index, nr * ss), None
    raise SystemExit(f'unknown op {text}')


def build(args):
    ss = args.sectorsize
    entries, log, dev = [], bytearray(), bytearray(args.dev_sectors * ss)
    states = [bytes(dev)]
    for i, op in enumerate(args.ops, 1):
        sector, nr, flags, payload, mark = parse_op(op, i, ss)
        name = (mark or '').encode()
        log += struct.pack('<QQQQ', sector, nr, flags, len(name)) + name
        log += bytes(ss - 32 - len(name))
        log += payload
        if flags & 4:
            dev[sector * ss:(sector + nr) * ss] = bytes(nr * ss)
        elif payload:
            dev[sector * ss:sector * ss + len(payload)] = payload
        states.append(bytes(dev))
        entries.append({'index': i, 'sector': sector, 'nr_sectors': nr,
                        'flags': [n for b, n in NAMES if flags & b], 'mark': mark})
    return entries, log, states


def damage(args, sb, log):
    kind, _, arg = (args.damage or '').partition(':')
    if kind == 'magic':
        sb[0] ^= 0x01
    elif kind == 'version':
        sb[8:16] = struct.pack('<Q', 2)
    elif kind == 'sectorsize':
        sb[24:28] = struct.pack('<I', 3000)
    elif kind == 'count':
        sb[16:24] = struct.pack('<Q', int(arg))
    elif kind == 'namenul':
        for off in range(0, len(log), args.sectorsize):
            flags, dlen = struct.unpack_from('<QQ', log, off + 16)
            if flags == 8 and dlen > 1:
                log[off + 33] = 0
                break
    elif kind == 'truncate':
        del log[len(log) - int(arg):]
    return sb, log


def main():
    p = argparse.ArgumentParser()
    p.add_argument('log')
    p.add_argument('--sectorsize', type=int, default=4096)
    p.add_argument('--dev-sectors', type=int, default=64)
    p.add_argument('--states')
    p.add_argument('--damage')
    p.add_argument('ops', nargs='*')
    args = p.parse_intermixed_args()
    entries, log, states = build(args)
    sb = bytearray(struct.pack('<QQQI', MAGIC, 1, len(entries), args.sectorsize))
    sb += bytes(args.sectorsize - len(sb))
    sb, log = damage(args, sb, log)
    os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
    with open(args.log, 'wb') as f:
        f.write(sb + log)
    if args.states:
        os.makedirs(args.states, exist_ok=True)
        for n, st in enumerate(states):
            with open(os.path.join(args.states, f'state.{n}'), 'wb') as f:
                f.write(st)
        flush_points = [e['index'] for e in entries if {'flush', 'fua'} & set(e['flags'])]
        marks = [{'name': e['mark'], 'index': e['index']} for e in entries if e['mark'] is not None]
        doc = {'schema_version': 1, 'log': args.log, 'sector_size': args.sectorsize,
               'nr_entries': len(entries), 'entries': entries, 'flush_points': flush_points,
               'marks': marks}
        with open(os.path.join(args.states, 'entries.json'), 'w') as f:
            json.dump(doc, f)


if __name__ == '__main__':
    main()
