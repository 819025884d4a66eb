"""Training loop of :class:`solvers.mccfr.solver.MCCFRSolver`: chunks of about 0.1 s, a progress bar,
checkpoints, and Ctrl-C that loses no finished iteration."""

from __future__ import annotations

import sys
import time

from solvers.cfr.solver import int_arg
from solvers.npz import save_or_warn

CHUNK_SECONDS = 0.1


def train(solver, iterations=None, seconds=None, progress=True, checkpoint=None,
          checkpoint_seconds=None):
    """Step ``solver`` in chunks of about 0.1 s until ``iterations`` (in total) or ``seconds``.

    Ctrl-C stops the run between chunks (a chunk always finishes, so no finished iteration is lost);
    ``checkpoint`` is then written, as it is every ``checkpoint_seconds`` and at the end. A tqdm
    progress bar is shown when ``progress`` and the standard error is a terminal.

    Returns
    -------
    bool
        True when Ctrl-C stopped the run.
    """
    from tqdm.auto import tqdm

    iterations = int_arg("iterations", iterations, 0, optional=True)
    if iterations is None and seconds is None:
        raise ValueError("give iterations, seconds, or both; otherwise training would never stop")
    if checkpoint_seconds is not None and checkpoint is None:
        raise ValueError("checkpoint_seconds needs a checkpoint path")
    start, last_save, chunk = time.perf_counter(), time.perf_counter(), 1
    bar = tqdm(total=iterations, initial=solver.iterations, desc="mccfr", unit="it",
               disable=not (progress and sys.stderr.isatty()), dynamic_ncols=True)
    interrupted = False
    try:
        while iterations is None or solver.iterations < iterations:
            if seconds is not None and time.perf_counter() - start >= seconds:
                break
            count = chunk if iterations is None else min(chunk, iterations - solver.iterations)
            before = solver.iterations
            elapsed = solver.step(count)
            done = solver.iterations - before  # with threads: whole batches, perhaps more than count
            chunk = max(1, min(1_000_000, int(CHUNK_SECONDS * done / max(elapsed, 1e-9))))
            bar.update(done)
            if checkpoint_seconds is not None and time.perf_counter() - last_save >= checkpoint_seconds:
                save_or_warn(solver.save, checkpoint)
                last_save = time.perf_counter()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    if checkpoint is not None:
        save_or_warn(solver.save, checkpoint)
    return interrupted
