"""The exact analysis of a strategy solved in pieces: computed on its pieces and kept in its file
(:func:`analyse_and_keep`), read back (:func:`stored_analysis`), or the pieces rebuilt for it where the
file says its tree was cut (:func:`rebuild_pieces`); else estimated from self-play
(:func:`analyse_sampled`).

The kept analysis is an attachment of the strategy file (``SolveResult.attach(path, "analysis")``)
holding the sha256 of the average policy it is of, so a file whose policy changed is analysed again.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

from coupsolve.plan.options import fmt, progress_lines, silent
from coupsolve.strategy.solved import StrategyError

__all__ = ["analyse_and_keep", "analyse_sampled", "digest", "rebuild_pieces", "stored_analysis"]


def digest(policy) -> str:
    """The sha256 of an average policy's bytes: what a kept analysis, or kept best responses
    (:func:`coupsolve.evaluation.brcheck.save_best_responses`), are of."""
    return hashlib.sha256(np.ascontiguousarray(policy).data).hexdigest()


def analyse_and_keep(pieces, result, meta=None, say=silent, store=None):
    """The exact analysis (:func:`coupsolve.analysis.analyse`) of ``result``'s average policy on the
    ``pieces`` it was solved on (``(PublicPieces, ClassPieces)``), with progress; kept with the strategy
    file ``store`` when given (:func:`stored_analysis` reads it back, so no rebuild is needed)."""
    from solvers import SolveResult

    from coupsolve.analysis import analyse

    say(f"analysing the strategy exactly on its {len(pieces[0].parts) + 1} pieces ...")
    analysis = analyse(pieces, result.average_policy, meta=meta, progress=progress_lines(say))
    if store:
        try:
            SolveResult.attach(store, "analysis", {"average_policy_sha256": digest(result.average_policy),
                                                   "analysis": analysis.to_dict()})
            say(f"the exact analysis is kept in {store} (analyse reads it: no rebuild)")
        except (OSError, ValueError) as e:
            say(f"the exact analysis could not be kept in {store}: {e}")
    return analysis


def stored_analysis(path, result):
    """The exact analysis kept in the strategy file ``path`` (:func:`analyse_and_keep`) if it is that of
    ``result``'s average policy (the file's own, by its sha256), else None."""
    from solvers import SolveResult

    from coupsolve.analysis.history import Analysis

    doc = SolveResult.attachment(path, "analysis")
    if not isinstance(doc, dict) or doc.get("average_policy_sha256") != digest(result.average_policy):
        return None
    return Analysis.from_dict(doc["analysis"])


def rebuild_pieces(path, rules, result, say=silent):
    """``(PublicPieces, ClassPieces)`` of a strategy solved in pieces, rebuilt where its file says its
    tree was cut and checked against its digest and keys; or ``(None, why not)`` when the file does
    not say or the rebuild and analysis would not fit in the memory available.

    Raises
    ------
    StrategyError
        The rebuilt pieces are not those the file was solved on.
    """
    from types import SimpleNamespace

    import solvers
    from solvers.memory import available_bytes

    from coupsolve.trees.builders import named

    cut = result.options.get("pieces")
    if not cut:
        return None, ("whose file does not say where its tree was cut (it was saved before strategy "
                      "files recorded it)")
    # the policy is loaded already (and counted out of what is available): the passes' buffers;
    # files of the first exact analyses record only the analysis with its policies
    need = cut["tree_bytes"] + max(cut["build_bytes"], cut.get("pass_bytes", cut["analysis_bytes"]))
    room = available_bytes()
    if room is not None and need > room:
        return None, (f"whose rebuild and exact analysis need about {fmt(need)}, more than the "
                      f"{fmt(room)} available")
    say(f"rebuilding the public tree of {rules} where its file says (about {fmt(need)}) ...")
    plan = SimpleNamespace(depth=cut["depth"], bounds=np.array(cut["bounds"], np.int64),
                           workers=max(1, min(os.cpu_count() or 1, 2)))
    say(f"building the public tree in {len(plan.bounds) - 1} pieces by the class walk, {plan.workers} "
        "at a time (Ctrl-C stops) ...")
    tree, built = named("classpieces").build(rules, plan, progress_lines(say))
    try:
        solvers.SolveResult.check_file(path, tree)
    except ValueError as e:
        raise StrategyError(f"{path} does not fit the pieces of the rules it records: {e}") from None
    if not np.array_equal(built.infoset_hash, result.infoset_hash):
        raise StrategyError(f"{path}: its information sets' keys differ from the rebuilt pieces'")
    # the analysis reads neither the keys (their pages, read by the check, go with the mapping) nor
    # the file's action ids
    result.infoset_hash = result.infoset_actions = None
    return (tree, built._replace(infoset_hash=None)), None


def analyse_sampled(rules, result, games, seed, meta=None):
    """The analysis of a strategy solved in pieces estimated from ``games`` seeded self-play games with
    intervals (:func:`coupsolve.analysis.sampled.sampled_analysis`), for when its pieces are not
    rebuilt for the exact one."""
    from coupsolve.analysis.sampled import sampled_analysis
    from coupsolve.openspiel.game import load_game
    from coupsolve.openspiel.policy import PublicTreePolicy

    game = load_game(rules)
    return sampled_analysis(game, PublicTreePolicy.of_result(game, rules, result), games=games,
                            seed=seed, meta=meta)
