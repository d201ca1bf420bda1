# SPDX-License-Identifier: MIT
"""The Python tests' assertions and exit codes (as tests/helpers.h for C): 0 pass, 1 fail, 77 skip."""
import sys

failures = 0


def check(cond, what):
    """Count and print a failure; go on with the next check."""
    global failures
    if not cond:
        failures += 1
        print('FAIL: ' + what)


def skip(why):
    """Skip with a reason; after a failure that is a failure."""
    if failures:
        print('FAIL: skip requested after %d failure(s): %s' % (failures, why))
        sys.exit(1)
    print('SKIP: ' + why)
    sys.exit(77)


def finish(name):
    """Print the summary line and exit 0 or 1."""
    print('%s: %s' % (name, '%d failure(s)' % failures if failures else 'all checks passed'))
    sys.exit(1 if failures else 0)
