"""Magnetic Mirror Descent with dilated entropy: a last-iterate solver for (logit) quantal response
equilibria and, annealed, for Nash equilibria of two-player zero-sum games.

References
----------
Sokota, D'Orazio, Kolter, Loizou, Lanctot, Mitliagkas, Brown and Kroer (2023), "A Unified Approach to
Reinforcement Learning, Quantal Response Equilibria, and Two-Player Zero-Sum Games", ICLR
(arXiv:2206.05825). OpenSpiel's ``open_spiel/python/algorithms/mmd_dilated.py`` (``MMDDilatedEnt``) is
the reference implementation this one reproduces iterate for iterate.

Ling, Fang and Kolter (2018), "What game are you playing? End-to-end learning in normal and extensive
form games", IJCAI: the dilated-entropy regularised equilibrium is the logit QRE of the reduced normal
form, which is why the default magnet below selects the (limiting) logit QRE.

Hoda, Gilpin, Pena and Sandholm (2010), "Smoothing techniques for computing Nash equilibria of
sequential games", Mathematics of Operations Research: the dilated entropy.

The update
----------
Each player's strategy is a sequence-form vector ``x`` (``x[Ia]`` the player's own probability of
reaching information set ``I`` and playing ``a``). With ``l`` the player's loss gradient (minus its
counterfactual utility of each sequence, read off the sequence-form payoff matrix at the *opponent's
current* strategy: both players update simultaneously), ``psi`` the dilated entropy
``sum_I x_parent(I) sum_a pi_Ia log pi_Ia`` and ``rho`` the magnet, one iteration solves

    x' = argmin_x  eta <l, x> + eta alpha B_psi(x; rho) + B_psi(x; x_t),

in closed form bottom up: with ``g = (eta l - grad psi(x_t) - eta alpha log rho) / (1 + eta alpha)``,
each information set (deepest first) plays ``softmax(-g_I)`` and adds ``sum_a pi_a g_Ia + sum_a pi_a
log pi_a`` to the gradient of its parent sequence. ``eta`` defaults to OpenSpiel's ``alpha /
max|A|**2`` (``A`` the chance-weighted sequence-form payoff matrix), for which the iterates converge
linearly to the QRE at temperature ``alpha``.

The magnet ``"uniform"`` (the default) is the uniform behavioural strategy: the regulariser is
``sum_I x_parent(I) KL(pi_I || uniform)``, zero at the uniform strategy whatever the tree's shape.
``"dilated"`` (OpenSpiel's, the only one it has) drops the ``log rho`` term: the regulariser is the
dilated entropy itself, minimised by the uniform distribution over reduced normal-form plans, and the
fixed point is the logit QRE of the reduced normal form (Ling, Fang and Kolter 2018). That prior
favours, by ``exp(alpha * log(plans below))``, the actions with the most plans below them, whatever
they are worth: a game with one deep action among shallow ones can be far from equilibrium at every
temperature under it, where the uniform magnet converges (figures in the documentation's
``selection`` notes).

Annealing: with ``horizon > 0`` the temperature falls geometrically from ``alpha`` to ``alpha_end``
over the first ``horizon`` iterations and stays there, ``alpha_t = alpha * (alpha_end /
alpha) ** min(1, (t - 1) / horizon)``; the step is ``stepsize`` if given, else ``alpha_t /
max|A|**2``. The last iterate is the policy (the solver's "average" policy is the last iterate).
With ``relative`` the temperatures are in units of ``max|A|`` (then ``eta alpha`` is ``alpha**2``
whatever the game's scale, the contraction per iteration being ``1 / (1 + alpha**2)``).

At a temperature the iterates can reach in thousands of iterations the QRE is far from a Nash
equilibrium wherever reach probabilities are small (its regulariser is not weighted by reach):
``mmd`` ends at ``alpha = 0.02 max|A|``. Its last iterate is a selection (the QRE at that
temperature), to be read with its exploitability, not a faster Nash solver (the measured
exploitabilities are in the documentation's ``selection`` notes).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MMDSpec", "MAGNETS", "MMD_SPECS"]

#: Accepted magnets.
MAGNETS = ("dilated", "uniform")


@dataclass(frozen=True)
class MMDSpec:
    """Parameters of a Magnetic Mirror Descent run.

    Attributes
    ----------
    name : str
        Registry name (recorded in results and checkpoints).
    alpha : float
        Temperature (regularisation weight) at the first iteration; > 0.
    alpha_end : float
        Temperature reached after ``horizon`` iterations (``alpha`` when not annealing).
    horizon : int
        Iterations over which the temperature anneals; 0 keeps ``alpha`` (OpenSpiel's MMD).
    stepsize : float
        The step ``eta``; 0 for OpenSpiel's rule ``alpha_t / max|A|**2``.
    magnet : {"dilated", "uniform"}
        See the module docstring.
    relative : bool
        ``alpha`` and ``alpha_end`` are in units of ``max|A|`` (the largest chance-weighted payoff).
    citation : str
    """

    name: str
    alpha: float
    alpha_end: float = 0.0
    horizon: int = 0
    stepsize: float = 0.0
    magnet: str = "uniform"
    relative: bool = False
    citation: str = "Sokota et al. 2023, ICLR"
    #: The representation family (:func:`solvers.cfr.representation.representation_for`).
    family: str = "mmd"
    #: Regret-based fields a CFR representation would read: MMD keeps no regrets.
    predictive: bool = False

    def __post_init__(self):
        if not self.alpha > 0:
            raise ValueError(f"MMD's alpha must be > 0, got {self.alpha}")
        if self.horizon < 0 or (self.horizon and not self.alpha_end > 0):
            raise ValueError("an annealed MMD needs horizon >= 1 and alpha_end > 0")
        if self.stepsize < 0:
            raise ValueError(f"MMD's stepsize must be >= 0 (0: alpha / max|A|**2), got {self.stepsize}")
        if self.magnet not in MAGNETS:
            raise ValueError(f"MMD's magnet must be one of {MAGNETS}, got {self.magnet!r}")


#: The registered MMD runs. ``mmd``: the uniform magnet, annealed toward the limiting QRE (a Nash
#: equilibrium) from ``max|A|`` to ``0.02 max|A|`` over 5,000 iterations; ``mmd-qre``: OpenSpiel's
#: ``MMDDilatedEnt(game, alpha=0.05)`` (the dilated magnet, fixed temperature 0.05).
MMD_SPECS = (
    MMDSpec("mmd", alpha=1.0, alpha_end=0.02, horizon=5000, relative=True),
    MMDSpec("mmd-qre", alpha=0.05, magnet="dilated"),
)
