"""The strategies that come with the package, named instead of given by path.

``blueprint`` is a full-length two-player blueprint of the card-selection setup (a ``coupsolve train``
file; the command that trained it is in its metadata, ``command``), so that ``coupsolve play``,
``match`` and ``serve``, and the leaves of a depth-limited solve (``solve --leaves blueprint``), work on a
fresh install without a training run. A path that exists always wins over a name.

It is a heuristic strategy, not an equilibrium: ``examples/report/strength.md`` gives its strength
against the bots and the local best response's bound on its exploitability.

``blueprint-v2`` is the blueprint shipped before it, keyed by version 2 of the features key
(:mod:`coupsolve.sampling.keys`), which does not count a player's claims. It is weaker (it loses to
HonestBot), but the rest of the game under it is a Markov chain small enough to value exactly
(``solve --leaves blueprint-v2 --rollouts exact``); ``blueprint``'s claim counts multiply that chain's
states several times over.
"""

from __future__ import annotations

import os
from importlib import resources

__all__ = ["SHIPPED", "named", "resolve", "shipped_name", "shipped_path"]

#: Name -> file under this package's ``data`` folder.
SHIPPED = {"blueprint": "blueprint_2p.npz", "blueprint-v2": "blueprint_2p_v2.npz"}


def shipped_path(name: str = "blueprint") -> str:
    """The path of the shipped strategy ``name`` (one of :data:`SHIPPED`)."""
    if name not in SHIPPED:
        raise KeyError(f"no shipped strategy {name!r}: there is {', '.join(SHIPPED)}")
    return str(resources.files("coupsolve.strategy") / "data" / SHIPPED[name])


def resolve(source) -> str:
    """``source`` itself when it is a path that exists or not a shipped name; else the shipped file."""
    source = str(source)
    return shipped_path(source) if source in SHIPPED and not os.path.exists(source) else source


def shipped_name(source) -> str | None:
    """The name of the shipped strategy ``source`` resolves to (:func:`resolve`), or None."""
    path = os.path.realpath(resolve(source))
    return next((name for name in SHIPPED if path == os.path.realpath(shipped_path(name))), None)


def named(source) -> str:
    """What messages and strategy files call ``source``: the shipped strategy's name if it is one,
    else ``source`` itself, so that neither carries the place a package was installed in (and a file
    solved with a shipped blueprint's leaves finds it again wherever the package is)."""
    return shipped_name(source) or str(source)
