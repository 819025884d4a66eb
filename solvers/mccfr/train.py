"""Training loop of :class:`solvers.mccfr.solver.MCCFRSolver`: the shared stepping loop
(:func:`solvers.cfr.stepping.run`: chunks of about 0.1 s, a progress bar, Ctrl-C that loses no
finished iteration) with checkpoints by the clock."""

from __future__ import annotations

from solvers.cfr.solver import int_arg
from solvers.cfr.stepping import run
from solvers.npz import save_or_warn


def train(solver, iterations=None, seconds=None, progress=True, checkpoint=None,
          checkpoint_seconds=None):
    """Step ``solver`` until ``iterations`` (in total) or ``seconds``.

    Ctrl-C stops the run between chunks (a chunk always finishes, so no finished iteration is lost);
    ``checkpoint`` is then written, as it is every ``checkpoint_seconds`` and at the end. A tqdm
    progress bar is shown when ``progress`` and the standard error is a terminal.

    Returns
    -------
    bool
        True when Ctrl-C stopped the run.
    """
    iterations = int_arg("iterations", iterations, 0, optional=True)
    if iterations is None and seconds is None:
        raise ValueError("give iterations, seconds, or both; otherwise training would never stop")
    if checkpoint_seconds is not None and checkpoint is None:
        raise ValueError("checkpoint_seconds needs a checkpoint path")
    interrupted = run(solver, iterations=iterations, seconds=seconds, progress=progress, desc="mccfr",
                      save=lambda: save_or_warn(solver.save, checkpoint), save_seconds=checkpoint_seconds)
    if checkpoint is not None:
        save_or_warn(solver.save, checkpoint)
    return interrupted
