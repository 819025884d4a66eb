"""The CFR family over any tree representation: the algorithms as parameters of one regret pass
(:mod:`~.algorithms`), the :class:`~.solver.Solver` object, the driver :func:`~.drive.solve` (progress,
Ctrl-C, checkpoints), the :class:`~.result.SolveResult`, checkpoints and convergence curves, and the
seam between a solver and the arrays it iterates (:mod:`~.representation`).
"""
