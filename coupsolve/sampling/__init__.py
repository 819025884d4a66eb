"""Coup as a sampling game for :mod:`solvers.mccfr`: the engine's compiled step functions for any number
of seats (:mod:`~coupsolve.sampling.game`) and the information-set keys, exact or abstracted
(:mod:`~coupsolve.sampling.keys`).
"""
