"""Helpers shared by the Coup tests: scripted play through action names, random legal play, the
history tree's parents."""

import numpy as np

import coupsolve
from coupsolve import Rules
from coupsolve import engine as E
from solvers import TERMINAL

# Small two-player rule sets whose whole trees are cheap; every variant is in one of them.
SMALL_RULES = [
    Rules.two_player_selection(turn_limit=1),
    Rules.two_player_selection(turn_limit=1, limit_payoff="influence"),
    Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2),
    Rules.standard(players=2, turn_limit=2, characters="Duke+Assassin", copies=2, starting_coins="3,3",
                   starting_seat="random"),
    # the variants: every private and public event they add is in the information sets
    Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2, starting_coins="2,2",
                   contessa_blocks_tax=True, challenge_bounty=1, decline_proof=True),
    Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2, starting_coins="7,7",
                   selective_coup=True, challenge_buyout=1),
    Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Ambassador", copies=2,
                   starting_coins="5,5", factions=True, ambassador_halves_steal=True, challenge_buyout=5),
    Rules.standard(players=2, turn_limit=3, characters="Duke+Contessa", copies=4, starting_coins="3,3",
                   event_mat=True),
    Rules.standard(players=2, turn_limit=1, characters="Duke+Ambassador+Contessa", copies=2, marked_cards=True),
    Rules.standard(players=2, turn_limit=1, characters="Duke+Assassin+Contessa", copies=2, starting_coins="7,7",
                   marked_cards=True, selective_coup=True),
    Rules.house(turn_limit=3, characters="Ambassador+Contessa", copies=4),
]


def play(rules, names, state=None):
    """Apply action names (docs/rules.md) in order (chance outcomes too); return the state."""
    if state is None:
        state = coupsolve.load_game(rules).new_initial_state()
    for name in names:
        state.apply_action_name(name)
    return state


def legal_names(state):
    player = state.current_player()
    return [state.action_to_string(player, a) for a in state.legal_actions()]


def random_engine_game(rules, seed, on_step=None):
    """Play one uniformly random game on the raw engine; call on_step(before, action, after, events).

    Returns the list of (action, engine state after) pairs.
    """
    rng = np.random.default_rng(seed)
    P = rules.params()
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)  # room to catch an overflow
    buf = np.zeros(E.MAX_MOVES, dtype=np.int32)
    prob = np.zeros(E.MAX_MOVES, dtype=np.float64)
    E.initial_state(P, s, ev, buf, prob)
    steps = 0
    while not E.is_terminal(s):
        if E.is_chance(s):
            k = E.chance_outcomes(P, s, buf, prob)
            a = int(buf[rng.choice(k, p=prob[:k] / prob[:k].sum())])
        else:
            k = E.legal_actions(P, s, buf)
            a = int(buf[rng.integers(k)])
        before = s.copy()
        legal = buf[:k].copy()
        ne = E.apply(P, s, a, ev, 0, buf, prob)
        steps += 1
        if on_step is not None:
            on_step(before, a, legal, s, ev[:ne].copy())
    return steps, s


def histories(game, policy=None):
    """Every history of ``game``, depth first, from OpenSpiel's own API alone.

    Yields ``(state, reach, path)``: ``reach`` is the product of the chance probabilities on the way
    and, given an OpenSpiel ``policy``, of the players' action probabilities (1 without one); ``path`` is
    the tuple of ``(player, action name)`` pairs before the state (chance outcomes too).
    """
    stack = [(game.new_initial_state(), 1.0, ())]
    while stack:
        state, reach, path = stack.pop()
        yield state, reach, path
        if state.is_terminal():
            continue
        player = state.current_player()
        if state.is_chance_node():
            moves = state.chance_outcomes()
        elif policy is None:
            moves = [(a, 1.0) for a in state.legal_actions()]
        else:
            moves = policy.action_probabilities(state).items()
        for a, p in moves:
            stack.append((state.child(a), reach * p, path + ((player, state.action_to_string(player, a)),)))


def play_randomly(state, rng, before_move=None):
    """Play uniformly random legal moves (chance outcomes by their probabilities) until the game ends.

    ``rng`` is a ``numpy.random.Generator``; ``before_move(state)``, if given, is called before every
    move. Returns the terminal state.
    """
    while not state.is_terminal():
        if before_move is not None:
            before_move(state)
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def views(state, player):
    """Everything ``player`` is shown: information-state and observation strings and tensors."""
    return [state.information_state_string(player), state.information_state_tensor(player),
            state.observation_string(player), state.observation_tensor(player)]


def same_views(a, b):
    """Whether two ``views`` lists are equal (strings exactly, tensors element by element)."""
    return all((np.array_equal(x, y) if not isinstance(x, str) else x == y) for x, y in zip(a, b))


def node_parents(child_start, num_children, kind):
    """Parent of every node (-1 at the root) and its index among its parent's children."""
    n = kind.shape[0]
    inner = np.nonzero(kind != TERMINAL)[0]
    parent = np.full(n, -1, np.int64)
    reps = num_children[inner].astype(np.int64)
    kids = np.concatenate([np.arange(child_start[v], child_start[v] + k) for v, k in
                           zip(inner, reps)]) if n > 1 else np.zeros(0, np.int64)
    parent[kids] = np.repeat(inner, reps)
    index = np.zeros(n, np.int64)
    index[kids] = kids - child_start[parent[kids]]
    return parent, index
