"""Two-player Coup's public tree built by stepping every history through the compiled engine (any
rules the engine supports). :mod:`~.build` drives the walk of :mod:`~.walk`, whose per-node steps are
in :mod:`~.node` and :mod:`~.expand`.
"""
