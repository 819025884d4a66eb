"""The accepted values of the solvers' options, in a module of their own so that a command line can
offer them as choices without importing the solvers (and numba); the first of each is the default."""

__all__ = ["PRECISIONS", "UPDATES", "REGRETS", "AVERAGES", "SAMPLINGS"]

#: Accepted values of CFR's ``precision`` (:class:`solvers.Solver`).
PRECISIONS = ("float64", "float32")
#: Accepted values of CFR's ``updates``.
UPDATES = ("alternating", "simultaneous")
#: MCCFR's regret matching (:class:`solvers.MCCFRSolver`).
REGRETS = ("rm", "rm+")
#: MCCFR's average-strategy weights.
AVERAGES = ("uniform", "linear")
#: MCCFR's samplings.
SAMPLINGS = ("external", "outcome", "probe")
