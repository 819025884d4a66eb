"""Ctrl-C while the command line starts: one line ``coupsolve: interrupted`` and status 130, not a
traceback from whichever import it fell in.

The ``coupsolve`` script and ``python -m coupsolve`` import the package before the command line's own
``main`` (which catches Ctrl-C around its imports and its work) can run. So when the process is the
command line, importing this module (the package's first import) replaces Python's SIGINT handler
until ``main`` starts (:func:`started`): a Ctrl-C then says the line and exits at once. A Ctrl-C that
falls in a C extension's own import may come out as another exception (numpy's ``PyCapsule_Import``
of ``datetime`` makes an ``ImportError`` of it); :func:`command_line_start`, around the package's and
the command line's imports, turns any exception after a Ctrl-C into the same exit, and
:func:`was_interrupted` tells ``main`` the same. A program that imports coupsolve keeps its own handler.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

#: Status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130
_seen = []  # the Ctrl-C that came


def started_from_command_line() -> bool:
    """Whether this process is the command line starting: ``python -m coupsolve`` (``sys.argv[0]`` is
    ``-m`` while the package is found) or the ``coupsolve`` script."""
    first = sys.argv[0] if sys.argv else ""
    return first == "-m" or os.path.splitext(os.path.basename(first))[0] == "coupsolve"


def _while_starting(signum, frame):
    """Say the line and end the process at once: nothing has been done yet, so nothing is lost. An
    exception raised here instead could land in an import's weakref callback, which Python reports as
    ignored, with a traceback, and goes on."""
    if not _seen:
        _seen.append(signum)
        print("coupsolve: interrupted", file=sys.stderr, flush=True)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(INTERRUPTED)


def _once_started(signum, frame):
    _seen.append(signum)
    signal.default_int_handler(signum, frame)  # raises KeyboardInterrupt, for main and the commands


def started():
    """``main`` runs: from now a Ctrl-C is a ``KeyboardInterrupt`` again (an interrupted solve saves
    its work), still recorded for :func:`was_interrupted`. A Ctrl-C of the start that an import swallowed
    (a bare ``except:`` in a library) stops the command here, as the line already said."""
    if signal.getsignal(signal.SIGINT) is _while_starting:
        if _seen:
            raise SystemExit(INTERRUPTED)
        signal.signal(signal.SIGINT, _once_started)


def was_interrupted(error: BaseException | None = None) -> bool:
    """Whether ``error`` is a Ctrl-C or, in the command line, came after one."""
    return isinstance(error, KeyboardInterrupt) or bool(_seen)


@contextlib.contextmanager
def command_line_start():
    """Imports of the command line's start: any exception after a Ctrl-C among them is the interruption
    (one line, :data:`INTERRUPTED`)."""
    try:
        yield
    except (Exception, KeyboardInterrupt) as e:
        if not (_seen and started_from_command_line()) and not (
                isinstance(e, KeyboardInterrupt) and started_from_command_line()):
            raise
        if not _seen:
            print("coupsolve: interrupted", file=sys.stderr)
        raise SystemExit(INTERRUPTED) from None


if started_from_command_line() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _while_starting)
