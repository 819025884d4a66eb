"""Coup's game trees, counted before they are built and built straight from the compiled engine.

- :mod:`~coupsolve.trees.history`: every history (a :class:`solvers.GameTree`), the quickest to build;
- :mod:`~coupsolve.trees.stepwalk`: the public tree by stepping every history (any rules);
- :mod:`~coupsolve.trees.classwalk`: the public tree by walking private *classes* (two players, the
  common rules), no history stepped;
- :mod:`~coupsolve.trees.pieces`: the class walk's public tree as a trunk and parts, built apart;
- :mod:`~coupsolve.trees.builders`: the registry of these builders (what rules each takes, how it
  counts and builds) and the :class:`~coupsolve.trees.builders.Size` protocol their counts share;
- :mod:`~coupsolve.trees.sizecache`: sizes known without counting (packaged, and the user's counts);
- :mod:`~coupsolve.trees.background`: long compiled passes that Ctrl-C stops and that report progress.
"""
