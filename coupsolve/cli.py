"""The ``coupsolve`` command line."""

from __future__ import annotations

import argparse
import sys

import numpy as np


def _rules_from_args(args):
    from .rules import Rules

    return Rules(players=args.players, setup=args.setup, turn_limit=args.turn_limit)


def random_game_log(rules, seed: int) -> list[str]:
    """Play one game with uniformly random legal moves; return the log lines and final table."""
    from .game import load_game

    game = load_game(rules)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    lines = [f"{game}", f"seed {seed}", ""]
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(outcomes, p=probs))
            who = "chance"
        else:
            action = int(rng.choice(state.legal_actions()))
            who = f"p{player}"
        lines.append(f"turn {state.turn:>3}  {who:<6} {state.action_to_string(player, action)}")
        state.apply_action(action)
    lines += ["", str(state), f"returns: {state.returns()}"]
    return lines


def _cmd_random(args) -> int:
    print("\n".join(random_game_log(_rules_from_args(args), args.seed)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coupsolve", description="Solve and study the card game Coup.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (("demo", "the main job (for now: one random game with its log)"),
                        ("random", "play one game with uniformly random moves and print its log")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--players", type=int, default=2)
        p.add_argument("--setup", choices=["standard", "selection"], default="selection")
        p.add_argument("--turn-limit", type=int, default=100)
        p.add_argument("--seed", type=int, default=0)
        p.set_defaults(func=_cmd_random)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as e:
        print(f"coupsolve: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("coupsolve: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
