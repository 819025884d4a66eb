"""The registry of Coup's tree builders, and the size protocol their counts share.

Each :class:`Builder` declares, by name, which tree it makes (``history``, ``public`` or ``pieces``),
which rules it takes (:meth:`Builder.supports`), how it counts (:meth:`Builder.count`) and how it
builds from its count (:meth:`Builder.build`); :func:`builder_of` finds a count's builder by its
type. The planner (:mod:`coupsolve.plan`) and the strategy files (:mod:`coupsolve.strategy`) choose
through it, so no caller dispatches on type names or ``isinstance``. Modelled on
:func:`solvers.cfr.representation.register`: :func:`register` adds a builder (the latest wins for a
name); the four of this package are registered here by import path, so that sizing a tree imports
only the builder that runs.

A strategy file records its builder's name (``options["tree_builder"]``), so the names are part of
the file format: ``classbuild``, ``publicbuild`` and ``classpieces`` are never renamed.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["Builder", "Size", "builder_of", "builders", "named", "public_builder", "register"]


@runtime_checkable
class Size(Protocol):
    """What every count shares (:class:`~coupsolve.trees.history.size.TreeSize`,
    :class:`~coupsolve.trees.classwalk.build.ClassSize`, :class:`~coupsolve.trees.stepwalk.build.PublicSize`,
    :class:`~coupsolve.trees.pieces.build.PiecesPlan`): the rules it is of, its peak memory for a
    build and a solve in a precision, and one line of its figures."""

    @property
    def rules(self):
        """The :class:`~coupsolve.rules.Rules` counted."""

    def peak_bytes(self, precision: str = "float64", predictive: bool = False) -> int:
        """Bytes at the peak of a build of this size and then a solve in ``precision``."""

    def describe(self) -> str:
        """One line of the count's figures (what ``coupsolve info`` prints)."""


def _resolve(path):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _always(rules) -> str:
    del rules  # the engine's walk takes every rules the engine plays
    return ""


@dataclass(frozen=True)
class Builder:
    """One way to count and build a tree of Coup.

    Attributes
    ----------
    name : str
        Recorded in strategy files (``options["tree_builder"]``; the history tree records none).
    tree : {"history", "public", "pieces"}
        The tree it makes.
    label : str
        How messages name it ("the class walk").
    size_type, counter, builder : str
        ``"module:name"`` of its count's type, its count function and its build function (imported
        when first used). ``builder(rules, size, progress)`` returns ``(tree for the solver, tree
        for the analysis)``.
    supporter : str, optional
        ``"module:name"`` of a function that says why it cannot take some rules ('' when it can);
        none: it takes every rules.
    """

    name: str
    tree: str
    label: str
    size_type: str
    counter: str
    builder: str
    supporter: str = ""

    def supports(self, rules) -> str:
        """Why this builder cannot take ``rules`` ('' when it can)."""
        return (_resolve(self.supporter) if self.supporter else _always)(rules)

    def count(self, rules, progress=None, **options):
        """The count (a :class:`Size`) of ``rules``' tree; ``options`` go to the count function."""
        return _resolve(self.counter)(rules, progress=progress, **options)

    def build(self, rules, size, progress=None):
        """``(tree for the solver, tree for the analysis)`` built from the count ``size``."""
        return _resolve(self.builder)(rules, size, progress)

    def owns(self, size) -> bool:
        """Whether ``size`` is a count of this builder."""
        module, _, name = self.size_type.partition(":")
        return type(size).__module__ == module and type(size).__qualname__ == name


_REGISTRY: list = []  # most recently registered first


def register(builder: Builder) -> None:
    """Make ``builder`` known (it replaces one of the same name)."""
    if not isinstance(builder, Builder):
        raise TypeError("register(builder) takes a Builder")
    _REGISTRY[:] = [builder] + [b for b in _REGISTRY if b.name != builder.name]


def builders(tree: str | None = None) -> list:
    """The registered builders (of ``tree`` only, when given), in order of preference."""
    return [b for b in reversed(_REGISTRY) if tree is None or b.tree == tree]


def named(name: str) -> Builder:
    """The builder called ``name``; ``KeyError`` naming the known ones otherwise."""
    for b in _REGISTRY:
        if b.name == name:
            return b
    raise KeyError(f"no tree builder {name!r} (known: {', '.join(b.name for b in builders())})")


def builder_of(size) -> Builder:
    """The builder whose count ``size`` is."""
    for b in _REGISTRY:
        if b.owns(size):
            return b
    raise TypeError(f"{type(size).__name__} is the count of no registered tree builder")


def public_builder(rules) -> tuple:
    """``(builder, why)``: the first public-tree builder that takes ``rules`` (the class walk when it
    takes them, else stepping every history), and why the ones before it do not ('' when the first
    takes them)."""
    why = []
    for b in builders("public"):
        refused = b.supports(rules)
        if not refused:
            return b, "; ".join(why)
        why.append(refused)
    raise ValueError(f"no public-tree builder takes {rules}: {'; '.join(why)}")


# ---- the builders of this package ---------------------------------------------------------------------
def build_history(rules, size, progress=None):
    """The history tree (:func:`coupsolve.trees.history.tree.build_coup_tree`)."""
    from coupsolve.trees.history.tree import build_coup_tree

    coup_tree = build_coup_tree(rules, size=size, progress=progress)
    return coup_tree.tree, coup_tree


def build_class(rules, size, progress=None):
    """The public tree by the class walk (:func:`coupsolve.trees.classwalk.build.build_class_tree`)."""
    from coupsolve.trees.classwalk.build import build_class_tree

    coup_tree = build_class_tree(rules, size=size, progress=progress)
    return coup_tree.tree, coup_tree


def build_stepping(rules, size, progress=None):
    """The public tree by stepping every history
    (:func:`coupsolve.trees.stepwalk.build.build_public_tree`)."""
    from coupsolve.trees.stepwalk.build import build_public_tree

    coup_tree = build_public_tree(rules, size=size, progress=progress)
    return coup_tree.tree, coup_tree


def build_pieces(rules, plan, progress=None):
    """``(PublicPieces, ClassPieces)``: the public tree built in pieces where ``plan`` (a
    :class:`~coupsolve.trees.pieces.build.PiecesPlan`, or anything with its ``depth``, ``bounds`` and
    ``workers``) cuts it. The hands, keys, action ids and contexts wait on disk, written part by part,
    for the analysis; the pieces are the solver's tree alone (the second item holds none)."""
    from solvers import PublicPieces

    from coupsolve.trees.pieces.build import build_class_pieces

    built = build_class_pieces(rules, plan.depth, bounds=plan.bounds, workers=plan.workers,
                               progress=progress, spill=True)
    tree = PublicPieces(rules.game_string(), built.trunk, built.parts, built.infoset_actions)
    return tree, built._replace(trunk=None, parts=[])


def count_pieces(rules, progress=None, **options):
    """A count by parts of the class walk (:func:`~coupsolve.trees.classwalk.count.count_class_tree`
    with ``split_depth="auto"`` unless given): a :class:`PiecesPlan` is made from it."""
    from coupsolve.trees.classwalk.count import count_class_tree

    return count_class_tree(rules, progress=progress, **{"split_depth": "auto", **options})


_HERE = "coupsolve.trees.builders"
for _b in (Builder("history", "history", "every history", "coupsolve.trees.history.size:TreeSize",
                   "coupsolve.trees.history.builder:count_tree", f"{_HERE}:build_history"),
           Builder("classbuild", "public", "the class walk", "coupsolve.trees.classwalk.build:ClassSize",
                   "coupsolve.trees.classwalk.count:count_class_tree", f"{_HERE}:build_class",
                   "coupsolve.trees.classwalk.state:supported"),
           Builder("publicbuild", "public", "stepping every history",
                   "coupsolve.trees.stepwalk.build:PublicSize",
                   "coupsolve.trees.stepwalk.build:count_public_tree", f"{_HERE}:build_stepping"),
           Builder("classpieces", "pieces", "the class walk, in pieces",
                   "coupsolve.trees.pieces.build:PiecesPlan", f"{_HERE}:count_pieces",
                   f"{_HERE}:build_pieces", "coupsolve.trees.classwalk.state:supported")):
    register(_b)
