"""The one stepping loop of every iterative solver here (the CFR family's :class:`~solvers.cfr.solver.Solver`
and :class:`~solvers.mccfr.solver.MCCFRSolver`): chunks of iterations sized to about a tenth of a
second, a progress bar, measurements and checkpoints at their points, and Ctrl-C that loses no finished
iteration.

A solver needs only ``step(n) -> seconds`` (at least ``n`` iterations: a threaded sampler finishes whole
batches) and ``iterations``. A chunk never crosses a measuring point or a checkpoint by iteration count,
so those land on exact multiples; a chunk is never cut short, so Ctrl-C between chunks keeps every
iteration the solver finished.
"""

from __future__ import annotations

import sys
import time

#: A chunk of iterations takes about this long, so Ctrl-C and the bar answer within it.
CHUNK_SECONDS = 0.1
MAX_CHUNK = 1_000_000


def next_multiple(done, every):
    """The first multiple of ``every`` after ``done``."""
    return (done // every + 1) * every


def run(solver, *, iterations=None, seconds=None, check_every=None, check=None, save=None,
        save_every=None, save_seconds=None, desc="", progress=True):
    """Step ``solver`` in chunks until ``iterations`` (in total), ``seconds`` (of this run) or a
    ``check`` says stop.

    Parameters
    ----------
    iterations, seconds : int or float, optional
        Where to stop (None: no limit of that kind; give one, or a ``check`` that stops).
    check_every : int, optional
        Call ``check()`` at every multiple of ``check_every`` iterations; it returns ``(stop, note)``:
        True to stop, and a short text for the progress bar (also printed as a line when the bar is
        off but ``progress`` is on, for a log file).
    save, save_every, save_seconds : optional
        ``save()`` at every multiple of ``save_every`` iterations, or every ``save_seconds`` seconds;
        it returns True when Ctrl-C came while it wrote (the run then stops).
    desc : str
        The bar's label. The bar shows when ``progress`` and standard error is a terminal.

    Returns
    -------
    bool
        True when Ctrl-C stopped the run.
    """
    from tqdm.auto import tqdm

    start, t0 = solver.iterations, time.perf_counter()
    next_check = None if check_every is None else next_multiple(start, check_every)
    next_save = None if save_every is None else next_multiple(start, save_every)
    last_save, chunk = t0, 1
    bar = tqdm(total=iterations, initial=start, desc=desc, unit="it",
               disable=not (progress and sys.stderr.isatty()), dynamic_ncols=True)
    try:
        while iterations is None or solver.iterations < iterations:
            if seconds is not None and time.perf_counter() - t0 >= seconds:
                break
            before = solver.iterations
            count = min([chunk] + [b - before for b in (iterations, next_check, next_save) if b is not None])
            elapsed = solver.step(count)
            done = solver.iterations - before
            chunk = max(1, min(MAX_CHUNK, int(CHUNK_SECONDS * done / max(elapsed, 1e-9))))
            bar.update(done)
            if next_check is not None and solver.iterations >= next_check:
                stop, note = check()
                bar.set_postfix_str(note)
                if progress and bar.disable:  # no terminal (a log file): one line per check
                    print(f"{desc}: iteration {solver.iterations:,}, {note}", file=sys.stderr, flush=True)
                next_check = next_multiple(solver.iterations, check_every)
                if stop:
                    break
            due = (next_save is not None and solver.iterations >= next_save) or (
                save_seconds is not None and time.perf_counter() - last_save >= save_seconds)
            if due:
                if save():
                    return True
                last_save = time.perf_counter()
                if next_save is not None:
                    next_save = next_multiple(solver.iterations, save_every)
    except KeyboardInterrupt:
        return True
    finally:
        bar.close()
    return False
