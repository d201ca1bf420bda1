#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: progress on a terminal. Under a pseudo-terminal (standard error a pty, standard
# output a pipe) awr stress, bench, prepare, verify and qualify draw one progress line on standard error
# ("stress: 1 of 2 s (50%)", "prepare: ... allocated", "verify: ... read", "qualify: check 1 of 7")
# and clear it at the end; standard output holds no progress. Controls: the same commands with
# standard error a pipe, and with -o json under the pty, print no progress at all.
#   cli_progress_tty.py AWR   (run under with-scratch-xfs.sh: AWR_SCRATCH_DIR)
import os
import pty
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from checks import check, finish  # noqa: E402

awr = sys.argv[1]
d = os.environ['AWR_SCRATCH_DIR']


def run(args, tty=True):
    """the command with stderr on a pty (or a pipe): (exit, stdout, what the terminal got)"""
    if not tty:
        p = subprocess.run([awr] + args, capture_output=True)
        return p.returncode, p.stdout.decode(), p.stderr.decode()
    master, slave = pty.openpty()
    p = subprocess.Popen([awr] + args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    got = b''
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:	# EIO: the last writer closed the pty
            break
        if not b:
            break
        got += b
    out = p.stdout.read().decode()
    p.wait()
    os.close(master)
    return p.returncode, out, got.decode(errors='replace')


def drawn(term, label, words):
    lines = [x for x in term.split('\r') if x.startswith(label + ': ')]
    check(lines, '%s: no progress line on the terminal: %r' % (label, term[:300]))
    check(any(words in x for x in lines), '%s: no line says "%s": %r' % (label, words, lines[:3]))
    check(term.rstrip(' ').endswith('\r') or term.endswith('\r\n') or '\r' + ' ' * 8 in term,
          '%s: the line is not cleared at the end: %r' % (label, term[-120:]))
    return lines


f = os.path.join(d, 'progress.dat')
rc, out, term = run(['stress', f, '--unit', '16k', '--seconds', '2', '--size', '16M'])
check(rc == 0, 'stress exited %d: %s' % (rc, term[-300:]))
lines = drawn(term, 'stress', 'of 2 s')
check('\r' not in out and 'of 2 s' not in out, 'stress: progress on standard output: %r' % out[:200])
print('stress: %d progress lines, last %r' % (len(lines), lines[-1].strip()))
rc, out, term = run(['verify', f, '--unit', '16k'])
check(rc == 0, 'verify exited %d: %s' % (rc, term[-300:]))
print('verify:', drawn(term, 'verify', 'read')[-1].strip())
rc, out, err = run(['stress', f, '--unit', '16k', '--seconds', '1', '--size', '16M', '--force'], tty=False)
check(rc == 0 and 'stress:' not in err and '\r' not in err, 'control: stress with stderr a pipe: exit %d, %r' % (rc, err[:200]))
rc, out, term = run(['stress', f, '--unit', '16k', '--seconds', '1', '--size', '16M', '--force', '-o', 'json'])
check(rc == 0 and 'stress:' not in term and '\r' not in term.replace('\r\n', ''),
      'control: stress -o json under a pty: exit %d, %r' % (rc, term[:200]))
os.unlink(f)
# awr bench redraws its own line per mode ("atomic  1.0 s  8000 pages/s ...") and clears it
b = os.path.join(d, 'bench.dat')
rc, out, term = run(['bench', b, '--mode', 'atomic', '--seconds', '1.5', '--size', '16M'])
blines = [x for x in term.split('\r') if 'pages/s' in x and x.lstrip().startswith('atomic')]
check(rc == 0 and blines, 'bench: no progress line on the terminal (exit %d): %r' % (rc, term[:300]))
check(term.endswith('\r') or term.rstrip(' ').endswith('\r'), 'bench: the line is not cleared: %r' % term[-120:])
check('\r' not in out and 'atomic' in out, 'bench: progress on standard output, or no report: %r' % out[:200])
rc, out, err = run(['bench', b, '--mode', 'atomic', '--seconds', '0.5', '--size', '16M', '--force'], tty=False)
check(rc == 0 and '\r' not in err, 'control: bench with stderr a pipe: exit %d, %r' % (rc, err[:200]))
os.unlink(b)
g = os.path.join(d, 'prepared.dat')
rc, out, term = run(['prepare', g, '--size', '256M', '--unit', '16k'])
check(rc == 0, 'prepare exited %d: %s' % (rc, term[-300:]))
print('prepare:', drawn(term, 'prepare', 'allocated')[-1].strip())
os.unlink(g)
with tempfile.TemporaryDirectory(dir='/dev/shm') as t:	# no atomic writes: a fast qualify
    rc, out, term = run(['qualify', t, '--quick'])
    drawn(term, 'qualify', 'check 1 of 7, discovery')
    check('verdict:' in out and 'qualify: check' not in out, 'qualify: the report on stdout: %r' % out[-200:])
finish('cli_progress_tty')
