"""The corpus scripts' loop: make every model asked for, report each failure
and go on, so one run names all that broke."""
import sys
import traceback


class Unavailable(Exception):
    """A model this torch cannot make: reported in one line, no traceback."""


def make_each(names, make):
    """Calls make(name) for each name; it returns what to report on success.
    Returns how many failed."""
    failures = 0
    for name in names:
        try:
            print(f"{name}: {make(name)}")
        except Unavailable as reason:
            print(f"{name}: {reason}", file=sys.stderr)
            failures += 1
        except Exception:  # report every model, then fail
            traceback.print_exc()
            print(f"{name}: FAILED", file=sys.stderr)
            failures += 1
    return failures
