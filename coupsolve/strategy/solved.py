"""Strategy files of a solve (:meth:`solvers.SolveResult.save`): read back, with every check, onto the
tree they were solved on.

A file is used only when it was written by this version of coupsolve, for a game string this version
reads back to the same rules, and for the very tree those rules build (its game id, infoset layout
and tree digest, checked by ``SolveResult.load``). A public tree is rebuilt by the builder the file
records (``options["tree_builder"]``, a name of :mod:`coupsolve.trees.builders`; a file that records
none was written before the class walk, on ``publicbuild``'s tree). A strategy solved in pieces
carries its information sets' keys (``infoset_hash``) and is read with no tree: its policy is checked
on its own (one probability per action, each information set's summing to 1).
"""

from __future__ import annotations

import os

import numpy as np

from coupsolve.plan.options import fmt, silent

__all__ = ["StrategyError", "leaves_of", "load_solved", "read_result", "record", "resume_iterations"]


class StrategyError(ValueError):
    """A strategy file that cannot be used: one line naming the file and why."""


def read_result(path):
    """The :class:`solvers.SolveResult` of ``path`` and its rules, checked for this version and Coup."""
    import solvers
    from solvers.npz import library_version

    from coupsolve.openspiel.game import load_game

    if not os.path.isfile(path):
        raise StrategyError(f"{path}: {'not a regular file' if os.path.exists(path) else 'no such file'}")
    try:
        result = solvers.SolveResult.load(path)
    except (ValueError, KeyError, OSError) as e:
        raise StrategyError(f"{path} is not a coupsolve strategy file ({e})") from None
    if result.version != library_version():
        raise StrategyError(f"{path} was written by coupsolve {result.version}, not by this version "
                            f"({library_version()}); solve it again")
    if not result.game_id.startswith("python_coup("):
        raise StrategyError(f"{path} is a strategy for {result.game_id}, not for Coup")
    game_id = result.game_id.split("+leaves(")[0]  # a depth-limited game's: the cut game's and its leaves
    try:
        rules = load_game(game_id).rules
    except ValueError as e:
        raise StrategyError(f"{path}: its game string does not give rules this version takes "
                            f"({e})") from None
    if rules.game_string() != game_id:
        raise StrategyError(f"{path} records the game {game_id}, which this version writes as "
                            f"{rules.game_string()}; solve it again")
    return rules, result


def load_solved(path, say=silent, read=None):
    """``(rules, tree, SolveResult)`` of a solve's strategy file: the tree (a ``CoupTree`` or a
    ``CoupPublicTree``) rebuilt for it, saying so through ``say``; None for one solved in pieces.
    ``read``: :func:`read_result` of ``path``, when the caller has read it already.

    Raises
    ------
    StrategyError
        Naming the file and why it cannot be used.
    """
    import solvers
    from solvers.policy import check_policy

    from coupsolve.trees.builders import named

    rules, result = read_result(path) if read is None else read
    if leaves_of(result) is not None:
        raise StrategyError(f"{path} was solved on a depth-limited game: read it with coupsolve.strategy.load")
    if result.tree_type == "PublicPieces":  # solved in pieces: its keys are in the file, no tree
        return rules, None, _pieces_result(path, result)
    if result.tree_type == "PublicTree":  # solved on the public tree: no history is built
        name = result.options.get("tree_builder", "publicbuild")
        try:
            builder = named(name)
        except KeyError:
            builder = None
        if builder is None or builder.tree != "public":
            raise StrategyError(f"{path} was solved on a public tree built by {name!r}, which this "
                                "version does not know; solve it again")
        say(f"building the public tree of {rules} by {builder.label} ...")
    else:
        builder = named("history")
        _check_history_tree_fits(path, rules)
        say(f"building the tree of {rules} ...")
    coup_tree = builder.build(rules, None)[1]
    try:  # the layout and the tree digest against the rebuilt tree
        result = solvers.SolveResult.load(path, tree=coup_tree.tree)
        check_policy(coup_tree.tree, result.average_policy, "its average policy")
    except ValueError as e:
        raise StrategyError(f"{path} does not fit the tree of the rules it records: {e}") from None
    return rules, coup_tree, result


def leaves_of(result):
    """What a strategy solved on a depth-limited game records of its leaves
    (:func:`coupsolve.depth.build.record`), or None for any other strategy."""
    options = result.options if isinstance(result.options, dict) else {}
    return options.get("leaves")


def _check_history_tree_fits(path, rules):
    """Refuse, before anything is counted or allocated, to rebuild a history tree the table of known
    sizes (or the size cache) says this machine cannot hold."""
    import solvers.memory

    from coupsolve.trees import sizecache
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY, estimate_build_bytes

    known, room = sizecache.lookup(rules), solvers.memory.available_bytes()
    if known is None or room is None:
        return
    need = (estimate_build_bytes(known.size, context=True) if known.size
            else known.at_least * MIN_BYTES_PER_HISTORY)
    if need > room:
        raise StrategyError(f"{path} records a strategy of the history tree of {rules}, whose rebuild "
                            f"needs about {fmt(need)}, more than the {fmt(room)} of memory available")


def _pieces_result(path, result):
    """A strategy solved in pieces, checked without its tree: one key per information set, one
    probability per action, each information set's summing to 1."""
    n = np.asarray(result.infoset_num_actions)
    if result.infoset_hash is None or result.infoset_hash.shape != n.shape:
        raise StrategyError(f"{path} was solved in pieces but lacks its information sets' keys; solve "
                            "it again")
    sigma = np.asarray(result.average_policy)
    starts = np.concatenate(([0], np.cumsum(n)[:-1]))
    if sigma.shape != (int(n.sum()),) or not np.all(np.isfinite(sigma)) or sigma.min() < 0 or \
            np.abs(np.add.reduceat(sigma, starts) - 1.0).max(initial=0.0) > 1e-4:
        raise StrategyError(f"{path}: its average policy is not one probability per action summing "
                            "to 1 per information set")
    return result


def record(result, plan, analysis_tree=None):
    """Write into ``result.options`` what a strategy file records of the tree it was solved on, so
    :func:`load_solved` rebuilds that tree: the builder of a public tree (``tree_builder``) and, in
    pieces, where the tree was cut (``pieces``: :meth:`~coupsolve.trees.pieces.build.PiecesPlan.record`)
    with the information sets' keys (``infoset_hash``, from ``analysis_tree``, the pieces' keys), so
    a policy reads it with no tree."""
    if plan.tree != "history":
        result.options = {**result.options, "tree_builder": plan.builder.name}
    if plan.tree == "pieces":
        result.infoset_hash = analysis_tree.infoset_hash
        result.options = {**result.options, "pieces": plan.size.record()}
    return result


def resume_iterations(path, rules) -> int:
    """The iterations of the solve checkpoint ``path`` of ``rules`` (refused, before anything is built,
    when it is not a checkpoint of these rules; a one-line :class:`StrategyError`)."""
    from solvers.cfr.checkpoint import load_checkpoint


    try:
        saved = load_checkpoint(path)
    except (ValueError, KeyError, OSError) as e:
        raise StrategyError(f"--resume {path}: not a checkpoint of this solver ({e})") from None
    if saved["game_id"].split("+leaves(")[0] != rules.game_string():
        raise StrategyError(f"--resume {path}: a checkpoint of other rules; give the rules it was solved "
                            f"with: {rules_difference(saved['game_id'], rules)}")
    return saved["iterations"]


def rules_difference(game_id, rules) -> str:
    """What differs between the rules of the game string ``game_id`` (a checkpoint's) and ``rules``,
    as the options that would give the former: ``"--turn-limit 2 (not 1), --rule copies=2 (not 3)"``,
    or a short description when the game string is not one of this version's rules."""
    from coupsolve.openspiel.game import load_game

    flags = {"turn_limit": "--turn-limit", "limit_payoff": "--limit-payoff", "setup": "--preset",
             "players": "--players"}
    try:
        saved = load_game(game_id).rules.to_dict()
    except Exception:  # noqa: BLE001 (any game string: pyspiel's errors are not ValueErrors)
        return "rules this version does not read"
    mine = rules.to_dict()
    words = []
    for name in sorted(set(saved) | set(mine)):
        if saved.get(name) != mine.get(name):
            value = saved.get(name)
            shown = str(value).lower() if isinstance(value, bool) else value
            option = (f"{flags[name]} {shown}" if name in flags else f"--rule {name}={shown}")
            words.append(f"{option} (not {mine.get(name)})")
    return ", ".join(words) or "the same rules"
