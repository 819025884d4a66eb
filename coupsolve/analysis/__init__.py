"""What a solved strategy does: bluff and challenge rates, the card choice, values by hand.

:func:`analyse` is the one entry: the exact analysis of a policy on the tree it was solved on, whatever
that tree. :mod:`~coupsolve.analysis.history` defines the :class:`Analysis` and computes it exactly on a
history tree; :mod:`~coupsolve.analysis.public` and :mod:`~coupsolve.analysis.pieces` compute the same
figures on a public tree, whole or in pieces; :mod:`~coupsolve.analysis.sampled` estimates them from
seeded self-play of a sampled strategy; :mod:`~coupsolve.analysis.view` prints the tables and draws the
plot.
"""

from __future__ import annotations

__all__ = ["analyse"]


def analyse(tree_or_pieces, policy, meta=None, progress=None):
    """The exact :class:`~coupsolve.analysis.history.Analysis` of the flat ``policy`` on the tree it was
    solved on.

    Parameters
    ----------
    tree_or_pieces : CoupTree, CoupPublicTree or (PublicPieces, ClassPieces)
        A history tree (:func:`coupsolve.analysis.history.analyse`), a public tree
        (:func:`coupsolve.analysis.public.analyse_public`) or a public tree in pieces with what its
        build kept for the analysis (:func:`coupsolve.analysis.pieces.analyse_pieces_exact`).
    policy : ndarray
        One probability per action, in the tree's information-set order.
    meta : dict, optional
        Carried into the analysis (``title``: the heading of its table and plot).
    progress : callable, optional
        ``progress(stage, done, total)``, called by the analysis in pieces (the others are quick).
    """
    from coupsolve.trees.history.tree import CoupTree
    from coupsolve.trees.stepwalk.build import CoupPublicTree

    if isinstance(tree_or_pieces, CoupTree):
        from coupsolve.analysis.history import analyse as on_histories

        return on_histories(tree_or_pieces, policy, meta)
    if isinstance(tree_or_pieces, CoupPublicTree):
        from coupsolve.analysis.public import analyse_public

        return analyse_public(tree_or_pieces, policy, meta)
    if isinstance(tree_or_pieces, tuple) and len(tree_or_pieces) == 2:
        from coupsolve.analysis.pieces import analyse_pieces_exact

        tree, built = tree_or_pieces
        return analyse_pieces_exact(tree, built, policy, meta=meta, progress=progress)
    raise TypeError(f"analyse takes a CoupTree, a CoupPublicTree or (PublicPieces, ClassPieces), not "
                    f"{type(tree_or_pieces).__name__}")
