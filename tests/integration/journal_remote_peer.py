#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: hostile and helper peers of the journal server for journal_remote.sh.
#
#   proxy PORTFILE SERVERPORT [--flip s2c:N|c2s:N] [--record FILE] [--drop K|--dup K|--reflect K]
#       listen on a free loopback port (written to PORTFILE), forward every connection to
#       127.0.0.1:SERVERPORT; --flip inverts byte N (from 0) of one direction of each connection;
#       --record appends what clients send to FILE; --drop K leaves out the client's frame K (from
#       0, after its authentication), --dup K sends it twice, --reflect K sends the server's first
#       frame back to the server before the client's frame K (each MACed with its direction and
#       sequence number, so the server must refuse what follows)
#   garbage PORT        send 144 bytes that are not a client's greeting
#   replay PORT FILE    send the first 144 bytes a client sent before (recorded by the proxy)
#   frame PORT SECRETFILE oversize|badmac
#       authenticate correctly (HMAC-SHA256 as the protocol says), then send one frame whose
#       length is 2^32-1, or whose MAC is wrong
#   hold PORT           connect, read the greeting and keep the connection until killed
#   hold-auth PORT SECRETFILE NAME
#       authenticate correctly for appending to NAME, then keep the connection until killed
#   forge PORT SECRETFILE NAME
#       authenticate for appending to NAME and append one intent record with a generation no
#       stress run could have issued (2^40); prints "refused" when the server answers with an
#       error, "taken" when it does not
#   trickle PORT N GAP SECONDS
#       N connections that each send one byte of an authentication every GAP seconds (never the
#       secret); prints, per connection, how many seconds after its connect the server closed it
#       ("closed 10.0") or "open" when it was still open after SECONDS
# Each prints what the server did: "closed" when it closed the connection, "open" otherwise.
import hashlib
import hmac
import os
import select
import socket
import struct
import sys
import threading

AUTH_MAGIC = b"AWRJC\x01\x00\x00"
HELLO = 40


def connect(port):
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=20)
    return s


def read_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return b
        b += c
    return b


def closed_after(s):
    """Wait for the server to close the connection: prints closed or open."""
    s.settimeout(15)
    try:
        while True:
            c = s.recv(4096)
            if not c:
                print("closed")
                return 0
    except socket.timeout:
        print("open")
        return 1
    except ConnectionResetError:
        print("closed")
        return 0


def secret(path):
    b = open(path, "rb").read()
    return b[:-1] if b.endswith(b"\n") else b


def auth(s, key, mode=1, name=b"peer"):
    hello = read_exact(s, HELLO)
    snonce = hello[8:40]
    cnonce = os.urandom(32)
    body = AUTH_MAGIC + cnonce + struct.pack("<II", mode, 0) + name.ljust(64, b"\0")
    mac = hmac.new(key, b"awr-journal auth" + snonce + body, hashlib.sha256).digest()
    s.sendall(body + mac)
    skey = hmac.new(key, b"awr-journal session" + snonce + cnonce, hashlib.sha256).digest()
    return skey


def frame(skey, seq, ftype, payload, direction=b"C"):
    hdr = struct.pack("<II", ftype, len(payload))
    mac = hmac.new(skey, direction + struct.pack("<Q", seq) + hdr + payload, hashlib.sha256).digest()
    return hdr + payload + mac


def cmd_frame(port, secret_file, kind):
    key = secret(secret_file)
    s = connect(port)
    skey = auth(s, key)
    hdr = read_exact(s, 8)  # the OPENED frame
    ftype, n = struct.unpack("<II", hdr)
    read_exact(s, n + 32)
    if ftype != 1:
        print("no OPENED frame")
        return 1
    if kind == "oversize":
        s.sendall(struct.pack("<II", 2, 0xFFFFFFFF) + b"\0" * 64)
    else:
        f = bytearray(frame(skey, 0, 3, struct.pack("<Q", 0)))
        f[-1] ^= 1
        s.sendall(bytes(f))
    return closed_after(s)


def shut_both(src, dst):
    """end both directions of a forwarded connection"""
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def pump(src, dst, flip, record):
    n = 0
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            if flip is not None and n <= flip < n + len(b):
                b = bytearray(b)
                b[flip - n] ^= 0x01
                b = bytes(b)
            if record:
                with open(record, "ab") as f:
                    f.write(b)
            n += len(b)
            dst.sendall(b)
    except OSError:
        pass
    shut_both(src, dst)


AUTH_LEN = 144  # the client's authentication: magic, nonce, mode, name, MAC


def read_frame(src):
    """one frame (header, payload, MAC) or None at the end"""
    hdr = read_exact(src, 8)
    if len(hdr) < 8:
        return None
    _, n = struct.unpack("<II", hdr)
    rest = read_exact(src, n + 32)
    return hdr + rest if len(rest) == n + 32 else None


def pump_frames(src, dst, skip, action, k, shared):
    """forward frame by frame after SKIP bytes, doing ACTION (drop, dup, reflect, keep) at frame K;
    with action "keep" the frames are kept in SHARED (the server's side, for reflect)"""
    try:
        head = read_exact(src, skip)
        if len(head) < skip:
            raise OSError
        dst.sendall(head)
        i = 0
        while True:
            f = read_frame(src)
            if f is None:
                break
            if action == "keep":
                shared.append(f)
            if i == k and action == "reflect":
                for _ in range(50):  # the server's first frame, once it has come
                    if shared:
                        break
                    threading.Event().wait(0.1)
                if shared:
                    dst.sendall(shared[0])
            if not (i == k and action == "drop"):
                dst.sendall(f)
            if i == k and action == "dup":
                dst.sendall(f)
            i += 1
    except OSError:
        pass
    shut_both(src, dst)


def cmd_proxy(portfile, server_port, args):
    flip = {"s2c": None, "c2s": None}
    record = None
    action, k = None, None
    while args:
        if args[0] == "--flip":
            d, n = args[1].split(":")
            flip[d] = int(n)
            args = args[2:]
        elif args[0] == "--record":
            record = args[1]
            args = args[2:]
        elif args[0] in ("--drop", "--dup", "--reflect"):
            action, k = args[0][2:], int(args[1])
            args = args[2:]
        else:
            raise SystemExit("proxy: unknown option " + args[0])
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = ls.accept()
        u = socket.create_connection(("127.0.0.1", int(server_port)))
        if action:
            shared = []
            threading.Thread(target=pump_frames, args=(c, u, AUTH_LEN, action, k, shared), daemon=True).start()
            threading.Thread(target=pump_frames, args=(u, c, HELLO, "keep", -1, shared), daemon=True).start()
            continue
        threading.Thread(target=pump, args=(c, u, flip["c2s"], record), daemon=True).start()
        threading.Thread(target=pump, args=(u, c, flip["s2c"], None), daemon=True).start()


def cmd_trickle(port, n, gap, seconds):
    import time
    socks = []
    for _ in range(n):
        s = connect(port)
        socks.append([s, time.monotonic(), None])
    print("connected %d" % n, flush=True)
    end = time.monotonic() + seconds
    next_byte = time.monotonic()
    while time.monotonic() < end and any(c[2] is None for c in socks):
        now = time.monotonic()
        if now >= next_byte:
            for c in socks:
                if c[2] is None:
                    try:
                        c[0].send(AUTH_MAGIC[:1])
                    except OSError:
                        c[2] = now - c[1]
            next_byte = now + gap
        live = [c[0] for c in socks if c[2] is None]
        r, _, _ = select.select(live, [], [], max(0.0, min(next_byte, end) - time.monotonic()))
        for s in r:
            c = next(c for c in socks if c[0] is s)
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                c[2] = time.monotonic() - c[1]
    for c in socks:
        print("open" if c[2] is None else "closed %.1f" % c[2])
    return 0


def jrec(t, unit, gen, value):
    import ctypes
    x = ctypes.CDLL("libxxhash.so.0")
    x.XXH3_64bits.restype = ctypes.c_uint64
    x.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    b = struct.pack("<IIQQQQ", 0x4a525741 ^ (t << 24), 0, unit, gen, value, 1)
    return b + struct.pack("<Q", x.XXH3_64bits(b, 40))


def cmd_forge(port, secret_file, name):
    s = connect(port)
    skey = auth(s, secret(secret_file), 1, name.encode())
    hdr = read_exact(s, 8)
    ftype, n = struct.unpack("<II", hdr)
    read_exact(s, n + 32)
    if ftype != 1:
        print("no OPENED frame")
        return 1
    s.sendall(frame(skey, 0, 2, jrec(2, 0, 1 << 40, 0)))
    s.sendall(frame(skey, 1, 3, struct.pack("<Q", 1)))
    s.settimeout(10)
    try:
        hdr = read_exact(s, 8)
    except (socket.timeout, ConnectionResetError):
        hdr = b""
    if len(hdr) == 8 and struct.unpack("<II", hdr)[0] == 5:
        print("refused")
    else:
        print("taken")
    return 0


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "proxy":
        return cmd_proxy(args[0], args[1], args[2:])
    if cmd == "garbage":
        s = connect(args[0])
        read_exact(s, HELLO)
        s.sendall(b"GET / HTTP/1.0\r\n" + b"x" * 128)
        return closed_after(s)
    if cmd == "replay":
        s = connect(args[0])
        read_exact(s, HELLO)
        s.sendall(open(args[1], "rb").read()[:144])
        return closed_after(s)
    if cmd == "frame":
        return cmd_frame(args[0], args[1], args[2])
    if cmd == "hold":
        s = connect(args[0])
        read_exact(s, HELLO)
        select.select([s], [], [])
        return 0
    if cmd == "hold-auth":
        s = connect(args[0])
        auth(s, secret(args[1]), 1, args[2].encode())
        s.settimeout(None)
        while s.recv(4096):	# the server's status, then nothing until it closes
            pass
        return 0
    if cmd == "forge":
        return cmd_forge(args[0], args[1], args[2])
    if cmd == "trickle":
        return cmd_trickle(args[0], int(args[1]), float(args[2]), float(args[3]))
    raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main())
