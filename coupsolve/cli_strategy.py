"""``coupsolve analyse`` and ``coupsolve play``: a saved strategy, used only for what it was solved on.

A strategy file is used only when it was written by this version of coupsolve, for a game string this
version reads back to the same rules, and for the very tree those rules build (its game id, infoset
layout and tree digest, checked by ``SolveResult.load``); ``play`` also checks the policy itself (one
probability per action, each information set's summing to 1) before the first move.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from .cli_args import CliError
from .cli_checks import check_outputs


def load_strategy(path):
    """``(rules, CoupTree, SolveResult)`` of a strategy file, or a one-line ``CliError`` saying why not."""
    import solvers
    from solvers._npz import library_version
    from solvers.policy import check_policy

    from .couptree import build_coup_tree, rules_game_id
    from .game import load_game

    if not os.path.isfile(path):
        raise CliError(f"{path}: no such file")
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
    if result.tree_type == "PublicTree":  # solved on the public tree: no history is built
        from .publicbuild import build_public_tree

        print(f"building the public tree of {rules} ...", flush=True)
        coup_tree = build_public_tree(rules)
    else:
        print(f"building the tree of {rules} ...", flush=True)
        coup_tree = build_coup_tree(rules)
    try:  # the layout and the tree digest against the rebuilt tree
        result = solvers.SolveResult.load(path, tree=coup_tree.tree)
        check_policy(coup_tree.tree, result.average_policy, "its average policy")
    except ValueError as e:
        raise CliError(f"{path} does not fit the tree of the rules it records: {e}") from None
    return rules, coup_tree, result


def analyse_any(coup_tree, policy, meta=None):
    """The analysis of ``policy`` on the tree it was solved on: the history tree
    (:func:`coupsolve.analysis.analyse`) or the public tree (:func:`coupsolve.publicanalysis.analyse_public`)."""
    from .publicbuild import CoupPublicTree

    if isinstance(coup_tree, CoupPublicTree):
        from .publicanalysis import analyse_public

        return analyse_public(coup_tree, policy, meta)
    from .analysis import analyse

    return analyse(coup_tree, policy, meta)


def cmd_analyse(args) -> int:
    """``coupsolve analyse``."""
    from .cli_report import present, title

    check_outputs(args)
    rules, coup_tree, result = load_strategy(args.strategy)
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


def cmd_play(args) -> int:
    """``coupsolve play``: you against the strategy, moves typed by name or number."""
    from .cli_log import Narrator
    from .game import load_game

    rules, coup_tree, result = load_strategy(args.strategy)
    you = args.seat
    rng = np.random.default_rng(args.seed)
    game = load_game(rules)
    bot = _bot(game, coup_tree, result.average_policy)
    state = game.new_initial_state()
    narrator = Narrator(rules, viewer=you)
    print(f"You are p{you} against the strategy in {args.strategy} (seed {args.seed}); the game ends "
          f"in a draw after turn {rules.turn_limit}. Type an action's name or its number.")
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            k = int(rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs)))
            moves = outcomes
        else:
            moves = state.legal_actions()
            if player == you:
                names = [state.action_to_string(player, a) for a in moves]
                print(_public_view(state, you))
                print(f"  your move (turn {state.turn} of {rules.turn_limit}): "
                      + "  ".join(f"[{i}] {nm}" for i, nm in enumerate(names)))
                k = _ask(names)
            else:
                p = np.asarray(bot(state, moves))
                k = int(rng.choice(len(moves), p=p / p.sum()))
        print("\n".join("  " + line for line in narrator.apply(state, moves[k])))
    print(str(state))
    r = state.returns()[you]
    print("You win." if r > 0 else "You lose." if r < 0 else "A draw (turn limit).")
    return 0


def _bot(game, coup_tree, sigma):
    """``bot(state, moves)``: the strategy's probabilities of ``moves`` at ``state``: looked up by the
    information set's sequence hash on a public tree (:class:`~coupsolve.publicpolicy.PublicTreePolicy`),
    by the state's history on a history tree (each action's position in its node's list is its child)."""
    from .publicbuild import CoupPublicTree

    if isinstance(coup_tree, CoupPublicTree):
        from .publicpolicy import PublicTreePolicy

        policy = PublicTreePolicy(game, coup_tree, sigma)
        return lambda state, moves: [policy.action_probabilities(state)[a] for a in moves]
    tree = coup_tree.tree
    walked = {"node": 0, "state": game.new_initial_state()}  # the history walked so far, and its node

    def history_bot(state, moves):
        probe = walked["state"]
        for a in state.history()[len(probe.history()):]:  # only the moves since the last call
            legal = probe.legal_actions() if not probe.is_chance_node() else \
                [o for o, _ in probe.chance_outcomes()]
            walked["node"] = int(tree.child_start[walked["node"]]) + legal.index(a)
            probe.apply_action(a)
        o = int(tree.infoset_offset[int(tree.node_infoset[walked["node"]])])
        return sigma[o:o + len(moves)]

    return history_bot


def _ask(names) -> int:
    from .names import canonical_name

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
