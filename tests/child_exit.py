"""What a child process of the tests makes of a command's ``SystemExit`` (imported by the scripts
that tests/test_extras.py and tests/test_files_from_elsewhere.py run in child processes, which
call a command's ``main(argv)`` themselves rather than let the interpreter exit)."""

from __future__ import annotations

import sys


def exit_code(stop: SystemExit) -> int:
    """The exit code the interpreter would make of ``stop``: its code when an int (None: 0);
    otherwise its message, printed on stderr, and 1."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1
