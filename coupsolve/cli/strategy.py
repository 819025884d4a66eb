"""``coupsolve analyse`` and ``coupsolve play``: a saved strategy, used only for what it was solved on.

A strategy of ``coupsolve train`` (:mod:`coupsolve.cli.train`) is read back onto the sampling game of
the rules and abstraction it records; its bluff table is estimated from seeded self-play
(:mod:`coupsolve.analysis.sampled`), and ``play`` seats you among bots playing it, for any number of
players.

A strategy file is used only when it was written by this version of coupsolve, for a game string this
version reads back to the same rules, and for the very tree those rules build (its game id, infoset
layout and tree digest, checked by ``SolveResult.load``; a public tree is rebuilt by the builder the
file records, :data:`PUBLIC_BUILDERS`); ``play`` also checks the policy itself (one
probability per action, each information set's summing to 1) before the first move.
"""

from __future__ import annotations

import os
import sys

import numpy as np
from open_spiel.python import policy as os_policy

from coupsolve.cli.args import CliError, given
from coupsolve.cli.checks import check_outputs


#: The builders of a public tree, by the name a strategy file records (``options["tree_builder"]``,
#: :func:`coupsolve.cli.public.public_builder` chooses); a file that records none was written before
#: the class walk, on ``publicbuild``'s tree. Their trees differ in layout and digest.
PUBLIC_BUILDERS = {"classbuild": "the class walk", "publicbuild": "stepping every history"}


def public_functions(name):
    """``(count, build)``: the functions of the public builder ``name`` (a key of
    :data:`PUBLIC_BUILDERS`)."""
    if name == "classbuild":
        from coupsolve.trees.classwalk.build import build_class_tree, count_class_tree

        return count_class_tree, build_class_tree
    from coupsolve.trees.stepwalk.build import build_public_tree, count_public_tree

    return count_public_tree, build_public_tree


def load_strategy(path):
    """``(rules, CoupTree, SolveResult)`` of a strategy file (no tree for one solved in pieces: None),
    or a one-line ``CliError`` saying why not."""
    import solvers
    from solvers.npz import library_version
    from solvers.policy import check_policy

    from coupsolve.trees.history.tree import build_coup_tree, rules_game_id
    from coupsolve.openspiel.game import load_game

    if not os.path.isfile(path):
        raise CliError(f"{path}: {'not a regular file' if os.path.exists(path) else 'no such file'}")
    try:
        result = solvers.SolveResult.load(path)
    except (ValueError, KeyError, OSError) as e:
        raise CliError(f"{path} is not a coupsolve strategy file ({e})") from None
    if result.version != library_version():
        raise CliError(f"{path} was written by coupsolve {result.version}, not by this version "
                       f"({library_version()}); solve it again")
    if not result.game_id.startswith("python_coup("):
        raise CliError(f"{path} is a strategy for {result.game_id}, not for Coup")
    try:
        rules = load_game(result.game_id).rules
    except ValueError as e:
        raise CliError(f"{path}: its game string does not give rules this version takes ({e})") from None
    if rules_game_id(rules) != result.game_id:
        raise CliError(f"{path} records the game {result.game_id}, which this version writes as "
                       f"{rules_game_id(rules)}; solve it again")
    if result.tree_type == "PublicPieces":  # solved in pieces: its keys are in the file, no tree
        return rules, None, _pieces_result(path, result)
    if result.tree_type == "PublicTree":  # solved on the public tree: no history is built
        builder = result.options.get("tree_builder", "publicbuild")
        if builder not in PUBLIC_BUILDERS:
            raise CliError(f"{path} was solved on a public tree built by {builder!r}, which this "
                           "version does not know; solve it again")
        print(f"building the public tree of {rules} by {PUBLIC_BUILDERS[builder]} ...", flush=True)
        coup_tree = public_functions(builder)[1](rules)
    else:
        _check_history_tree_fits(path, rules)
        print(f"building the tree of {rules} ...", flush=True)
        coup_tree = build_coup_tree(rules)
    try:  # the layout and the tree digest against the rebuilt tree
        result = solvers.SolveResult.load(path, tree=coup_tree.tree)
        check_policy(coup_tree.tree, result.average_policy, "its average policy")
    except ValueError as e:
        raise CliError(f"{path} does not fit the tree of the rules it records: {e}") from None
    return rules, coup_tree, result


def _check_history_tree_fits(path, rules):
    """Refuse, before anything is counted or allocated, to rebuild a history tree the table of known
    sizes (or the size cache) says this machine cannot hold (turn limit 4's: about 120 GiB)."""
    import solvers.memory

    from coupsolve.trees import sizecache
    from coupsolve.cli.public import _fmt
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY, estimate_build_bytes

    known, budget = sizecache.lookup(rules), solvers.memory.available_bytes()
    if known is None or budget is None:
        return
    need = (estimate_build_bytes(known.size, context=True) if known.size
            else known.at_least * MIN_BYTES_PER_HISTORY)
    if need > budget:
        raise CliError(f"{path} records a strategy of the history tree of {rules}, whose rebuild needs "
                       f"about {_fmt(need)}, more than the {_fmt(budget)} of memory available")


def _pieces_result(path, result):
    """A strategy solved in pieces, checked without its tree: one key per information set, one
    probability per action, each information set's summing to 1."""
    n = np.asarray(result.infoset_num_actions)
    if result.infoset_hash is None or result.infoset_hash.shape != n.shape:
        raise CliError(f"{path} was solved in pieces but lacks its information sets' keys; solve it "
                       "again")
    sigma = np.asarray(result.average_policy)
    starts = np.concatenate(([0], np.cumsum(n)[:-1]))
    if sigma.shape != (int(n.sum()),) or not np.all(np.isfinite(sigma)) or sigma.min() < 0 or \
            np.abs(np.add.reduceat(sigma, starts) - 1.0).max(initial=0.0) > 1e-4:
        raise CliError(f"{path}: its average policy is not one probability per action summing to 1 "
                       "per information set")
    return result


def analyse_pieces(rules, result, games, seed, why, out=None):
    """The analysis of a strategy solved in pieces, estimated from ``games`` seeded self-play games
    with intervals (:func:`coupsolve.analysis.sampled.sampled_analysis`), when its pieces are not
    rebuilt (``why``) for the exact one."""
    from coupsolve.cli.report import title
    from coupsolve.openspiel.game import load_game
    from coupsolve.openspiel.policy import PublicTreePolicy
    from coupsolve.analysis.sampled import sampled_analysis

    print(f"a strategy solved in pieces, {why}: its analysis is estimated from {games:,} self-play "
          f"games (seed {seed}) ...", file=out or sys.stdout, flush=True)
    game = load_game(rules)
    return sampled_analysis(game, PublicTreePolicy.of_result(game, rules, result), games=games,
                            seed=seed, meta={"title": title(rules, result)})


def analyse_exactly_in_pieces(tree, built, result, out=None, store=None):
    """The exact analysis (:func:`coupsolve.analysis.pieces.analyse_pieces_exact`) of ``result``'s
    average policy on the pieces it was solved on, with progress; kept with the strategy file
    ``store`` when given (:func:`stored_analysis` reads it back, so ``analyse`` needs no rebuild)."""
    from solvers import SolveResult

    from coupsolve.cli.public import progress_lines
    from coupsolve.cli.report import title
    from coupsolve.analysis.pieces import analyse_pieces_exact

    out = out or sys.stdout
    print(f"analysing the strategy exactly on its {len(tree.parts) + 1} pieces ...", file=out,
          flush=True)
    analysis = analyse_pieces_exact(tree, built, result.average_policy,
                                    meta={"title": title(built.rules, result)},
                                    progress=progress_lines(out))
    if store:
        try:
            SolveResult.attach(store, "analysis", {"average_policy_sha256": _digest(result),
                                                   "analysis": analysis.to_dict()})
            print(f"the exact analysis is kept in {store} (analyse reads it: no rebuild)", file=out)
        except (OSError, ValueError) as e:
            print(f"the exact analysis could not be kept in {store}: {e}", file=out)
    return analysis


def _digest(result):
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(result.average_policy).data).hexdigest()


def stored_analysis(path, result):
    """The exact analysis kept in the strategy file ``path`` (:func:`analyse_exactly_in_pieces`)
    if it is that of ``result``'s average policy (the file's own, by its sha256), else None."""
    from solvers import SolveResult

    from coupsolve.analysis.history import Analysis

    doc = SolveResult.attachment(path, "analysis")
    if not isinstance(doc, dict) or doc.get("average_policy_sha256") != _digest(result):
        return None
    return Analysis.from_dict(doc["analysis"])


def rebuild_pieces(path, rules, result):
    """``(PublicPieces, ClassPieces)`` of a strategy solved in pieces, rebuilt where its file says its
    tree was cut and checked against its digest and keys; or ``(None, why not)`` when the file does
    not say or the rebuild and analysis would not fit in the memory available."""
    from types import SimpleNamespace

    import solvers
    from solvers.memory import available_bytes

    from coupsolve.cli.public import _build_pieces, _fmt

    cut = result.options.get("pieces")
    if not cut:
        return None, ("whose file does not say where its tree was cut (it was saved before strategy "
                      "files recorded it)")
    # the policy is loaded already (and counted out of what is available): the passes' buffers;
    # files of the first exact analyses record only the analysis with its policies
    need = cut["tree_bytes"] + max(cut["build_bytes"], cut.get("pass_bytes", cut["analysis_bytes"]))
    budget = available_bytes()
    if budget is not None and need > budget:
        return None, (f"whose rebuild and exact analysis need about {_fmt(need)}, more than the "
                      f"{_fmt(budget)} available")
    print(f"rebuilding the public tree of {rules} where its file says (about {_fmt(need)}) ...",
          flush=True)
    plan = SimpleNamespace(depth=cut["depth"], bounds=np.array(cut["bounds"], np.int64),
                           workers=max(1, min(os.cpu_count() or 1, 2)))
    tree, built = _build_pieces(rules, plan, sys.stdout)
    try:
        solvers.SolveResult.check_file(path, tree)
    except ValueError as e:
        raise CliError(f"{path} does not fit the pieces of the rules it records: {e}") from None
    if not np.array_equal(built.infoset_hash, result.infoset_hash):
        raise CliError(f"{path}: its information sets' keys differ from the rebuilt pieces'")
    # the analysis reads neither the keys (their pages, read by the check, go with the mapping) nor
    # the file's action ids: 1.9 GiB at turn limit 4
    result.infoset_hash = result.infoset_actions = None
    return (tree, built._replace(infoset_hash=None)), None


def analyse_any(coup_tree, policy, meta=None):
    """The analysis of ``policy`` on the tree it was solved on: the history tree
    (:func:`coupsolve.analysis.history.analyse`) or the public tree (:func:`coupsolve.analysis.public.analyse_public`)."""
    from coupsolve.trees.stepwalk.build import CoupPublicTree

    if isinstance(coup_tree, CoupPublicTree):
        from coupsolve.analysis.public import analyse_public

        return analyse_public(coup_tree, policy, meta)
    from coupsolve.analysis.history import analyse

    return analyse(coup_tree, policy, meta)


def cmd_analyse(args) -> int:
    """``coupsolve analyse``."""
    from coupsolve.cli.report import present, title

    check_outputs(args)
    from coupsolve.cli.train import describe, is_trained, load_trained, present_sampled

    if is_trained(args.strategy):
        if args.sampled:
            raise CliError(f"--sampled: {args.strategy} is a trained strategy, always analysed from "
                           "--games sampled games")
        rules, solver, meta = load_trained(args.strategy)
        human = sys.stderr if args.json == "-" else sys.stdout
        print(f"rules: {rules}\n{describe(meta)}, coupsolve {meta['version']}\n", file=human)
        present_sampled(rules, solver, meta, args, human)
        return 0
    rules, coup_tree, result = load_strategy(args.strategy)
    exact = coup_tree is not None or (not args.sampled and stored_analysis(args.strategy, result) is not None)
    if exact and (args.sampled or given(args, "games", "seed")):
        raise CliError(f"{'--sampled' if args.sampled else '--games and --seed'}: {args.strategy} is "
                       "analysed exactly (--sampled and --games are for a strategy solved in pieces)")
    if coup_tree is None:  # solved in pieces: the exact analysis kept with it, or rebuilt for it
        result.current_policy = None  # not analysed: let go before a rebuild
        analysis = None if args.sampled else stored_analysis(args.strategy, result)
        if analysis is not None:
            print("the exact analysis kept with the strategy (computed on its public tree)")
        else:
            pieces, why = (None, "as asked (--sampled)") if args.sampled else \
                rebuild_pieces(args.strategy, rules, result)
            if pieces is None:
                analysis = analyse_pieces(rules, result, args.games, args.seed, why)
            else:
                analysis = analyse_exactly_in_pieces(*pieces, result, store=args.strategy)
                del pieces
    else:
        print("analysing the strategy ...", flush=True)
        analysis = analyse_any(coup_tree, result.average_policy, meta={"title": title(rules, result)})
    stopped = " (interrupted)" if result.interrupted else ""
    print(f"rules: {rules}\n{result.algorithm}, {result.iterations:,} iterations{stopped}, exploitability "
          f"{result.exploitability:.3g}, coupsolve {result.version}\n")
    present(analysis, result, rules, args)
    return 0


def _public_view(state, seat) -> str:
    n = state.num_players_
    rows = [f"  {'seat':<6}{'coins':>5}  {'cards':<8} face up"]
    for p in range(n):
        you = " (you)" if p == seat else ""
        rows.append(f"  p{p:<5}{state.coins[p]:>5}  {state.influence[p]:<8} "
                    f"{'+'.join(state.face_up[p]) or '-'}{you}")
    rows.append(f"  your cards: {'+'.join(state.hand(seat)) or '-'}")
    return "\n".join(rows)


def _play_setup(path):
    """``(rules, game, policy, what)`` of a strategy file: a solved tree's or ``coupsolve train``'s."""
    from coupsolve.cli.train import is_trained, load_trained, trained_policy
    from coupsolve.openspiel.game import load_game

    if is_trained(path):
        rules, solver, meta = load_trained(path)
        game = load_game(rules)
        return rules, game, trained_policy(solver, game, meta), f"{meta['iterations']:,} MCCFR iterations"
    rules, coup_tree, result = load_strategy(path)
    game = load_game(rules)
    if coup_tree is None:  # solved in pieces: looked up by the keys the file carries
        from coupsolve.openspiel.policy import PublicTreePolicy

        return rules, game, PublicTreePolicy.of_result(game, rules, result), f"{result.algorithm}"
    return rules, game, _bot(game, coup_tree, result.average_policy), f"{result.algorithm}"


def cmd_play(args) -> int:
    """``coupsolve play``: you against the strategy (every other seat plays it), moves typed by name or
    number."""
    from coupsolve.openspiel.narrate import Narrator

    rules, game, policy, what = _play_setup(args.strategy)
    you = args.seat
    if you >= rules.players:
        raise CliError(f"--seat {you}: the strategy is for {rules.players} players, seats 0 to "
                       f"{rules.players - 1}")
    rng = np.random.default_rng(args.seed)
    state = game.new_initial_state()
    narrator = Narrator(rules, viewer=you)
    others = "the strategy" if rules.players == 2 else f"{rules.players - 1} bots playing the strategy"
    print(f"You are p{you} against {others} in {args.strategy} ({what}; seed {args.seed}); the game "
          f"ends in a draw after turn {rules.turn_limit}. Type an action's name or its number.")
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            moves, probs = zip(*state.chance_outcomes())
        else:
            moves = state.legal_actions()
            if player == you:
                names = [state.action_to_string(player, a) for a in moves]
                print(_public_view(state, you))
                print(f"  your move (turn {state.turn} of {rules.turn_limit}): "
                      + "  ".join(f"[{i}] {nm}" for i, nm in enumerate(names)))
                k = _ask(names)
                print("\n".join("  " + line for line in narrator.apply(state, moves[k])))
                continue
            dist = policy.action_probabilities(state)
            probs = [dist[a] for a in moves]
        k = int(rng.choice(len(moves), p=np.asarray(probs) / sum(probs)))
        print("\n".join("  " + line for line in narrator.apply(state, moves[k])))
    print(str(state))
    r = state.returns()[you]
    print("You win." if r > 0 else "You lose." if r < 0 else "A draw (turn limit).")
    return 0


class HistoryTreePolicy(os_policy.Policy):
    """A flat policy over a history tree (:class:`coupsolve.CoupTree`) as an OpenSpiel policy: a state's
    node is found by walking its history down the tree (each move's position in its node's list of
    moves is its child), continuing from the last state asked about when the new one extends it.

    Parameters
    ----------
    game : pyspiel.Game
        The tree's game.
    coup_tree : CoupTree
    sigma : float64 array
        The flat policy (``tree.num_actions``).
    """

    def __init__(self, game, coup_tree, sigma):
        super().__init__(game, list(range(game.num_players())))
        self._tree, self._sigma = coup_tree.tree, np.asarray(sigma, np.float64)
        self._node, self._probe = 0, game.new_initial_state()

    def _walk(self, history):
        seen = self._probe.history()
        if history[:len(seen)] != seen:  # another game: start again from the root
            self._node, self._probe = 0, self.game.new_initial_state()
            seen = []
        probe, tree = self._probe, self._tree
        for a in history[len(seen):]:
            legal = [o for o, _ in probe.chance_outcomes()] if probe.is_chance_node() else probe.legal_actions()
            self._node = int(tree.child_start[self._node]) + legal.index(a)
            probe.apply_action(a)
        return self._node

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` at ``state`` (OpenSpiel's ``Policy`` interface)."""
        node = self._walk(state.history())
        o = int(self._tree.infoset_offset[int(self._tree.node_infoset[node])])
        legal = state.legal_actions()
        return {int(a): float(p) for a, p in zip(legal, self._sigma[o:o + len(legal)])}


def _bot(game, coup_tree, sigma):
    """The strategy as an OpenSpiel policy: looked up by the information set's sequence hash on a public
    tree (:class:`~coupsolve.openspiel.policy.PublicTreePolicy`), by the state's history on a history tree
    (:class:`HistoryTreePolicy`)."""
    from coupsolve.trees.stepwalk.build import CoupPublicTree

    if isinstance(coup_tree, CoupPublicTree):
        from coupsolve.openspiel.policy import PublicTreePolicy

        return PublicTreePolicy(game, coup_tree, sigma)
    return HistoryTreePolicy(game, coup_tree, sigma)


def _ask(names) -> int:
    from coupsolve.names import canonical_name

    lookup = {nm.lower(): i for i, nm in enumerate(names)}
    while True:
        line = sys.stdin.readline()
        if not line:
            raise CliError("standard input ended before the game did")
        text = line.strip()
        if text.isdigit() and int(text) < len(names):
            return int(text)
        key = canonical_name(text).lower()
        if key in lookup:
            return lookup[key]
        print(f"  {text!r} is not one of: {', '.join(names)}; try again")
