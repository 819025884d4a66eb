"""Coup as a sampling game for :mod:`solvers.mccfr`: the engine's compiled step functions for any number
of seats (:mod:`~coupsolve.sampling.game`) and the information-set keys, exact or abstracted
(:mod:`~coupsolve.sampling.keys`).
"""

#: The information-set abstractions (the first is the default): exact keys (perfect recall) or the
#: features a player can act on (:mod:`~coupsolve.sampling.keys`). Here, beside no kernel, so that the
#: command line offers them without importing numba.
ABSTRACTIONS = ("exact", "features")
