"""Play one game of Coup with random legal moves through the OpenSpiel interface and print its log.

Run: python examples/random_game.py [players] [seed]
"""

import sys

import numpy as np

import coupsolve
from coupsolve import Rules

players = int(sys.argv[1]) if len(sys.argv) > 1 else 3
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
game = coupsolve.load_game(Rules.standard(players=players, turn_limit=50))
rng = np.random.default_rng(seed)
state = game.new_initial_state()
while not state.is_terminal():
    player = state.current_player()
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        action = int(rng.choice(outcomes, p=probs))
    else:
        action = int(rng.choice(state.legal_actions()))
    print(f"{'chance' if player < 0 else f'p{player}':>6}: {state.action_to_string(player, action)}")
    state.apply_action(action)
print(state)
print("returns", state.returns())
print("what p0 saw:", state.information_state_string(0))
