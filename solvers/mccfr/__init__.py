"""Monte Carlo CFR over a game's compiled step functions: no tree, any number of players.

:class:`~.solver.MCCFRSolver` (external, outcome and probing samplers in :mod:`~.external`,
:mod:`~.outcome`, :mod:`~.probe`; the shared table in :mod:`~.kernel`), deterministic thread batches
(:mod:`~.batch`), the training loop (:mod:`~.train`) and the sampled strategy as policies (:mod:`~.policy`).
"""
