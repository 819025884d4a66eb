"""``coupsolve analyse`` and ``coupsolve play``: a saved strategy, read back by the library
(:func:`coupsolve.strategy.load`: every check, the tree it was solved on rebuilt) and analysed
(:meth:`coupsolve.strategy.Strategy.analyse`) or played (:meth:`coupsolve.strategy.Strategy.policy`).

A strategy of ``coupsolve train`` is read back onto the sampling game of the rules and abstraction it
records; its bluff table is estimated from seeded self-play (:mod:`coupsolve.analysis.sampled`), and
``play`` seats you among bots playing it, for any number of players.
"""

from __future__ import annotations

import sys

import numpy as np

from coupsolve.cli.args import CliError, given
from coupsolve.cli.search import searching
from coupsolve.cli.checks import check_outputs
from coupsolve.cli.solve import printer


def cmd_analyse(args) -> int:
    """``coupsolve analyse``."""
    from coupsolve.analysis.selection import check_rules as check_selection
    from coupsolve.cli.report import present, title
    from coupsolve.cli.train import present_sampled
    from coupsolve.strategy import describe, load

    check_outputs(args)
    loaded = load(args.strategy, printer(sys.stdout))
    rules = loaded.rules
    if args.selection:
        if loaded.kind in ("trained", "depth-limited"):
            raise CliError(f"--selection: {args.strategy} is a {loaded.kind} strategy; the selection "
                           "compares the equilibria of a solved two-player turn-limit game")
        check_selection(rules)
    if args.sampled and loaded.kind != "pieces":  # options that would do nothing: refused
        what = ("a trained strategy, always analysed from self-play" if loaded.kind == "trained"
                else "analysed exactly on its tree")
        raise CliError(f"--sampled: {args.strategy} is {what}; --sampled is for a strategy solved in "
                       "pieces")
    if loaded.kind not in ("trained", "pieces") and given(args, "games", "seed"):
        raise CliError(f"--games and --seed: {args.strategy} is analysed exactly on its tree; they are "
                       "for a sampled analysis")
    if loaded.kind == "trained":
        human = sys.stderr if args.json == "-" else sys.stdout
        print(f"rules: {rules}\n{describe(loaded.meta)}, coupsolve {loaded.meta['version']}\n", file=human)
        present_sampled(rules, loaded.solver, loaded.meta, args, human)
        return 0
    result = loaded.result
    analysis = loaded.analyse(args.sampled, args.games, args.seed, {"title": title(rules, result)},
                              printer(sys.stdout))
    stopped = " (interrupted)" if result.interrupted else ""
    print(f"rules: {rules}\n{result.algorithm}, {result.iterations:,} iterations{stopped}, exploitability "
          f"{result.exploitability:.3g}, coupsolve {result.version}\n")
    chosen = None
    if args.selection:
        from coupsolve.analysis.selection import selection

        print("comparing the rates under CFR+, MMD and the epsilon-equilibria ...", flush=True)
        chosen = selection(rules, say=lambda line: print(f"  {line}", flush=True))
    present(analysis, result, rules, args, selection=chosen)
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
    """``coupsolve play``: you against the strategy (every other seat plays it), moves typed by name or
    number."""
    from coupsolve.openspiel.narrate import Narrator
    from coupsolve.strategy import load

    loaded = load(args.strategy, printer(sys.stdout))
    rules, game = loaded.rules, loaded.game()
    policy, what = searching(args, game, loaded.policy(game), loaded.what)
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
            if args.search and len(moves) > 1:
                _say_thinking(player, args.search, getattr(policy, "last", None) is None, policy.opening_due(state))
            dist = policy.action_probabilities(state)
            probs = [dist[a] for a in moves]
            if args.explain and len(moves) > 1 and getattr(policy, "last", None) is not None:
                print(_thinking(policy.last, state.history()))
        k = int(rng.choice(len(moves), p=np.asarray(probs) / sum(probs)))
        print("\n".join("  " + line for line in narrator.apply(state, moves[k])))
    print(str(state))
    r = state.returns()[you]
    print("You win." if r > 0 else "You lose." if r < 0 else "A draw (turn limit).")
    return 0


def _say_thinking(player, turns, first, opening) -> None:
    """The line before a re-solve (the ``first`` one says it may compile; ``opening``: the move needs
    the opening's solve, :mod:`coupsolve.search.opening`)."""
    compiling = "; on a fresh install the first compiles first (a minute or two)" if first else ""
    if opening:
        print(f"  p{player} is solving its opening, the first turn {turns} turns ahead, once for the session "
              f"(about half a minute){compiling} ...", flush=True)
        return
    print(f"  p{player} is re-solving {turns} turn{'s' if turns > 1 else ''} ahead{compiling} ...", flush=True)


def _thinking(resolution, history) -> str:
    """What a re-solve at ``history`` thought, in two lines: the value to it of the position it
    re-solved from (its root: here, or earlier in the turn) and its belief about your hand now."""
    r = resolution
    value = r.value if r.player == 0 else -r.value
    if r.opening:
        head = "it played its opening, solved once from the game's start"
    else:
        since = "here" if len(r.root.actions) == len(history) else "earlier in the turn"
        head = (f"it re-solved in {sum(r.seconds.values()):.1f} s from {since}, {r.lookahead} "
                f"turn{'s' if r.lookahead > 1 else ''} ahead")
    belief = ", ".join(f"{hand or 'nothing'} {p:.0%}" for hand, p in list(r.belief(history).items())[:4]
                       if p >= 0.005)
    honest = f";\n   it thinks you are an honest player with probability {r.honesty:.0%}" if r.honesty else ""
    return (f"  ({head}: that position is worth {value:+.2f} to it;\n"
            f"   it thinks you hold {belief}{honest})")


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
