"""What a solved strategy does: bluff and challenge rates, the card choice, values by hand.

:mod:`~coupsolve.analysis.history` defines the :class:`Analysis` and computes it exactly on a history
tree; :mod:`~coupsolve.analysis.public` and :mod:`~coupsolve.analysis.pieces` compute the same figures on
a public tree, whole or in pieces; :mod:`~coupsolve.analysis.sampled` estimates them from seeded
self-play of a sampled strategy; :mod:`~coupsolve.analysis.view` prints the tables and draws the plot.
"""
