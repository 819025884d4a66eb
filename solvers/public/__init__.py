"""The public-tree representation: vector CFR over a :class:`~solvers.PublicTree` (:mod:`~.rep`), its
compiled passes (:mod:`~._kernel`, :mod:`~._forward`, :mod:`~._node`).
"""
