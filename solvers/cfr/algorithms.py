"""The CFR family as parameters of one counterfactual-regret pass.

Every algorithm runs the same kernel (:mod:`solvers.history._kernel`): alternating
updates by default (player 0's pass, then player 1's pass against player 0's
updated strategy; ``solve(updates="simultaneous")`` updates both from one
pass), regret matching, and an average strategy whose iteration-``t``
contribution is ``t**gamma * reach * strategy``. They differ only in the rows
of :data:`ALGORITHMS`:

``cfr``
    Zinkevich, Johanson, Bowling and Piccione (2007), "Regret Minimization in
    Games with Incomplete Information", NeurIPS. Exactly OpenSpiel's
    ``CFRSolver``: alternating updates, uniform averaging (``gamma = 0``).
``cfr+``
    Tammelin (2014), "Solving Large Imperfect Information Games Using CFR+",
    arXiv:1407.5042; Tammelin, Burch, Johanson and Bowling (2015), IJCAI.
    Exactly OpenSpiel's ``CFRPlusSolver``: negative cumulative regrets reset to
    zero after each pass (regret matching+), linear averaging (``gamma = 1``).
``lcfr``
    Brown and Sandholm (2019), "Solving Imperfect-Information Games via
    Discounted Regret Minimization", AAAI. Linear CFR = DCFR(1, 1, 1): after
    each pass the cumulative regrets are multiplied by ``t / (t + 1)``; linear
    averaging. Same update order as OpenSpiel's ``LCFRSolver``.
``dcfr``
    Brown and Sandholm (2019), as above, DCFR(alpha=1.5, beta=0, gamma=2):
    positive cumulative regrets multiplied by ``t**1.5 / (t**1.5 + 1)``,
    negative ones by ``1/2``, averaging weights ``t**2``. Same update order as
    OpenSpiel's ``DCFRSolver``.
``pcfr+``
    Farina, Kroer and Sandholm (2021), "Faster Game Solving via Predictive
    Blackwell Approachability: Connecting Regret Matching and Mirror Descent",
    AAAI. Predictive regret matching+ at every information set: ``R <- max(R +
    r, 0)``, and the next strategy is proportional to ``max(R + m - <m, x>,
    0)`` where ``x`` is the current strategy and ``m`` the predicted
    counterfactual values: the values just observed (same opponent strategy
    and chance) re-evaluated bottom up with the player's *new* strategies below
    the information set (the predictive counterfactual decomposition of
    Farina, Kroer, Brown and Sandholm 2019, "Stable-Predictive Optimistic
    Counterfactual Regret Minimization", ICML). Quadratic averaging
    (``gamma = 2``). Some implementations instead predict the last
    instantaneous regret unchanged; that is cheaper but converged more slowly
    on Leduc poker in our runs.
``hs-dcfr``, ``hs-pcfr+``
    Zhang, McAleer and Sandholm (2024), "Faster Game Solving via
    Hyperparameter Schedules", arXiv:2404.09097 (AAAI 2026): DCFR and PCFR+
    whose exponents move linearly with the progress ``p = min(t / H, 1)``
    through a horizon of ``H`` iterations (here 1,000, the paper's usual
    budget), the paper's schedules: HS-DCFR ``alpha_t = 1 + 3p``, ``beta_t =
    -1 - 2p``, ``gamma_t = 15 - 5p``; HS-PCFR+(30) ``gamma_t = 30 - 5p``
    (PCFR+'s discounts are unchanged). The average is discounted as in
    DCFR, by ``((t - 1) / t) ** gamma_(t - 1)`` before iteration ``t`` is
    added, which the kernels apply as the equivalent weight ``exp(sum_(s=2..t)
    gamma_(s-1) log(s / (s - 1)))`` of iteration ``t`` (closed form in
    :func:`solvers.cfr.matching.schedule`).

Magnetic Mirror Descent (``mmd``, ``mmd-qre``) is another family, with its own
representations: :mod:`solvers.cfr.mmd` (the update), :mod:`solvers.history.mmd` and
:mod:`solvers.public.mmd`.
"""

from __future__ import annotations

import types
from dataclasses import dataclass

from solvers.cfr.mmd import MMD_SPECS, MMDSpec

__all__ = ["AlgorithmSpec", "ALGORITHMS", "get_algorithm"]


@dataclass(frozen=True)
class AlgorithmSpec:
    """Parameters of one member of the CFR family.

    Attributes
    ----------
    name : str
        Registry name.
    plus : bool
        Reset negative cumulative regrets to zero after each pass.
    discount : bool
        Multiply cumulative regrets after each pass by ``t**alpha/(t**alpha+1)``
        (non-negative ones) or ``t**beta/(t**beta+1)`` (negative ones).
    alpha, beta : float
        Discount exponents (used when ``discount``).
    gamma : float
        The average strategy weights iteration ``t`` by ``t**gamma``.
    predictive : bool
        Predictive regret matching+ (PCFR+); implies the ``plus`` clamp.
    citation : str
        Short reference.
    horizon : int
        Hyperparameter schedules: the iterations over which ``alpha``, ``beta``
        and ``gamma`` move linearly to ``alpha_end``, ``beta_end``,
        ``gamma_end`` (then stay); 0 keeps them fixed.
    alpha_end, beta_end, gamma_end : float, optional
        The exponents at the horizon (default: unchanged).
    """

    name: str
    plus: bool
    discount: bool
    alpha: float
    beta: float
    gamma: float
    predictive: bool
    citation: str
    horizon: int = 0
    alpha_end: float = None
    beta_end: float = None
    gamma_end: float = None
    #: The representation family (:func:`solvers.cfr.representation.representation_for`).
    family: str = "cfr"

    def __post_init__(self):
        for name in ("alpha", "beta", "gamma"):
            if getattr(self, name + "_end") is None:
                object.__setattr__(self, name + "_end", getattr(self, name))


_SPECS = (
    AlgorithmSpec("cfr", False, False, 0.0, 0.0, 0.0, False,
                  "Zinkevich et al. 2007, NeurIPS"),
    AlgorithmSpec("cfr+", True, False, 0.0, 0.0, 1.0, False,
                  "Tammelin 2014, arXiv:1407.5042"),
    AlgorithmSpec("lcfr", False, True, 1.0, 1.0, 1.0, False,
                  "Brown and Sandholm 2019, AAAI"),
    AlgorithmSpec("dcfr", False, True, 1.5, 0.0, 2.0, False,
                  "Brown and Sandholm 2019, AAAI"),
    AlgorithmSpec("pcfr+", True, False, 0.0, 0.0, 2.0, True,
                  "Farina, Kroer and Sandholm 2021, AAAI"),
    AlgorithmSpec("hs-dcfr", False, True, 1.0, -1.0, 15.0, False,
                  "Zhang, McAleer and Sandholm 2024, arXiv:2404.09097", horizon=1000,
                  alpha_end=4.0, beta_end=-3.0, gamma_end=10.0),
    AlgorithmSpec("hs-pcfr+", True, False, 0.0, 0.0, 30.0, True,
                  "Zhang, McAleer and Sandholm 2024, arXiv:2404.09097", horizon=1000,
                  gamma_end=25.0),
) + MMD_SPECS

#: Read-only mapping from algorithm name to :class:`AlgorithmSpec`.
ALGORITHMS = types.MappingProxyType({spec.name: spec for spec in _SPECS})


def get_algorithm(name):
    """The spec called ``name`` (an :class:`AlgorithmSpec` or :class:`~solvers.cfr.mmd.MMDSpec`;
    a spec passed in is returned as is); ``ValueError`` if unknown."""
    if isinstance(name, (AlgorithmSpec, MMDSpec)):
        return name
    if not isinstance(name, str):
        raise TypeError(f"algorithm must be a str, got {type(name).__name__}")
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose one of "
                         f"{', '.join(repr(k) for k in ALGORITHMS)}") from None
