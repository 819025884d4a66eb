"""The history tree: every history of a two-player Coup game, counted (:mod:`~.builder`, with its
size in :mod:`~.size` and a distinct-count sketch in :mod:`~.sketch`) and built into a
:class:`solvers.GameTree` wrapped with Coup's extras (:mod:`~.tree`).
"""
