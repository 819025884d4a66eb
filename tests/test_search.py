"""The re-solving player (coupsolve.search) and what it stands on: the rooted walk's record of its leaf
histories, the rooted tree's leaves valued by rollouts of a blueprint (the same values, seed for seed,
as the history tree's leaves from the game's start get), and a game played by re-solving."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coup_helpers import play_randomly
from coupsolve import Rules, build_coup_tree, load_game
from coupsolve.depth.public import history_pairs, public_leaf_values, public_leaves
from coupsolve.depth.rollouts import values_from_trained
from coupsolve.sampling.keys import KEY_VERSION
from coupsolve.search import Blueprint, ResolvingPolicy, SearchSettings, resolve, rooted_leaf_values
from coupsolve.strategy.solved import StrategyError
from coupsolve.trees.rooted import build_rooted_public_tree, count_rooted_public_tree, public_root
from coupsolve.trees.stepwalk.build import build_public_tree, count_public_tree
from solvers.trees.leaves import public_leaf_pairs

pytestmark = pytest.mark.xdist_group("search")
FULL = Rules.two_player_selection(turn_limit=100)
TL1, TL2 = FULL.replace(turn_limit=1), Rules.two_player_selection(turn_limit=2)
TAX = [54, 56, 0, 1, 2]  # the card choices, the deal and a Tax (tests/test_rooted.py's "tax")
#: After an Exchange, a loss after a Coup in turn 9: 720 x 25 private states, some histories in transit
TRANSIT = [55, 54, 0, 1, 3, 22, 16, 43, 2, 22, 2, 22, 10, 22, 28, 22, 2, 22, 2, 22, 2, 22, 10, 22, 28, 22, 5]


@functools.lru_cache(maxsize=1)
def blueprint():
    """A features blueprint of the full-length game, trained briefly (its strategy matters little
    here: the tests compare two ways of valuing the same continuations)."""
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.solver import MCCFRSolver

    solver = MCCFRSolver(sampling_game(FULL, abstraction="features"), max_infosets=1 << 16, seed=3,
                         sampling="probe")
    solver.step(2000)
    return Blueprint(FULL, solver, {"rules": FULL.to_dict(), "abstraction": "features",
                                     "features_key": KEY_VERSION}, source="test")


def recorded_pairs(coup):
    """The recorded histories at the turn-limit leaves, summed by (leaf, entry0, entry1)."""
    L, leaves = coup.leaf_histories, public_leaves(coup)
    at = np.isin(L.node, leaves)
    sums = {}
    for v, a, b, p in zip(L.node[at], L.entry[at, 0], L.entry[at, 1], L.prob[at]):
        sums[(int(v), int(a), int(b))] = sums.get((int(v), int(a), int(b)), 0.0) + p
    return sums, leaves


@pytest.mark.parametrize("where", ["start", "rooted"])
def test_leaf_histories_weigh_what_the_tree_weighs(where):
    """Every terminal history is recorded once, at a terminal node, and the recorded chance
    probabilities summed by pair of entries at each leaf are the tree's own weights of that pair."""
    if where == "start":
        coup, size = build_public_tree(TL1, leaf_states=True), count_public_tree(TL1)
        total = size.terminal_histories
    else:
        root = public_root(TL2, TAX)
        rng = np.random.default_rng(0)
        r0, r1 = rng.random(root.num_private[0]) + 0.1, rng.random(root.num_private[1]) + 0.1
        coup = build_rooted_public_tree(TL2, root, r0, r1, leaf_states=True)
        total = len(coup.leaf_histories.node)
    L = coup.leaf_histories
    assert len(L.node) == total > 0
    assert (coup.tree.flat.node_kind[L.node] == 2).all()  # TERMINAL
    sums, leaves = recorded_pairs(coup)
    pairs = public_leaf_pairs(coup.tree, leaves)
    want = {(int(leaves[i]), int(a), int(b)): w for i, a, b, w in zip(*pairs)}
    assert sums.keys() == want.keys()
    assert max(abs(sums[k] - w) / w for k, w in want.items()) < 1e-9
    assert build_public_tree(TL1).leaf_histories is None


def test_rooted_leaf_values_are_the_history_trees():
    """The rooted walk's leaves from the game's start, valued by rollouts, against the history tree's
    leaves valued by the same rollouts (values_from_trained): the same leaf states (the next turn begun,
    the turn's claims recorded), so the same seeds and the same values, pair for pair."""
    bp = blueprint()
    root = public_root(FULL, [])
    rooted = build_rooted_public_tree(TL1, root, np.ones(root.num_private[0]), np.ones(root.num_private[1]),
                                      leaf_states=True)
    joined, values = rooted_leaf_values(rooted, bp, [], 2, rollouts=3, seed=7)
    cut = build_coup_tree(TL1, leaves=True)
    est = values_from_trained(cut, bp.solver, bp.meta, 2, rollouts=3, seed=7)
    pairs, want = public_leaf_values(rooted, joined.leaves, history_pairs(cut, est))
    assert np.array_equal(pairs.leaf, joined.pairs.leaf) and np.array_equal(pairs.entry0, joined.pairs.entry0)
    assert values.states == est.states  # the same distinct leaf states
    np.testing.assert_allclose(joined.values, want, rtol=0, atol=1e-12)
    assert np.abs(want).max() > 0  # not a game of draws
    again, _ = rooted_leaf_values(rooted, bp, [], 2, rollouts=3, seed=8)
    assert not np.array_equal(again.values, joined.values)  # the seed is used


def test_a_root_after_a_claim_counts_the_claim_once_in_its_leaf_states():
    """Rooted after the first turn's Tax, in the middle of the turn, the leaf states a re-solve plays
    are states the cut tree's leaves reach from the game's start: the Tax, in the root's history and
    in the leaf's declaration, is counted once (version 3 of the key counts claims)."""
    from coupsolve import engine as E
    from coupsolve.depth.rollouts import leaf_states
    from coupsolve.engine.tables import DUKE
    from coupsolve.sampling import keys as SK
    from coupsolve.search import leaves as LV

    bp, g = blueprint(), blueprint().game
    root = public_root(FULL, TAX)
    rooted = build_rooted_public_tree(TL1, root, np.ones(root.num_private[0]), np.ones(root.num_private[1]),
                                      leaf_states=True)
    L = rooted.leaf_histories
    uniq, _ = LV.distinct_rows(L.state[np.isin(L.node, public_leaves(rooted))])
    states = np.zeros((uniq.shape[0], g.state_size), np.int32)
    at_root = bp.features_state(TAX)
    LV._rows(g.params, g.scratch, np.ascontiguousarray(uniq), at_root[E.S_SIZE:].copy(), LV._root_declared(at_root),
             states, np.zeros((uniq.shape[0], 2, 2), np.uint64), np.zeros(uniq.shape[0], np.uint64))
    want = leaf_states(build_coup_tree(TL1, leaves=True), g, "features", 2, lambda line: None)[2]
    assert {row.tobytes() for row in states} <= {row.tobytes() for row in want}
    assert (states[:, SK.X_CLAIMS + DUKE] == 1).all()  # the first player's Tax, the one Duke claim of the turn


def test_histories_through_an_information_set_are_its_hands():
    """``through``, which follows each leaf history's entry up the tree, against the leaf states: cut at
    the end of the turn, the responder to a Tax keeps its cards (a lost one turns face up), so the
    histories through each of its information sets at the root all end with the cards its entry there
    holds, and every history passes through exactly one."""
    from coupsolve import engine as E
    from coupsolve.search.leaves import through

    root = public_root(TL1, TAX)
    rooted = build_rooted_public_tree(TL1, root, np.ones(root.num_private[0]), np.ones(root.num_private[1]),
                                      leaf_states=True)
    f, L, me = rooted.tree.flat, rooted.leaf_histories, root.node.player
    top = int(f.infoset_node[0])
    sets = np.flatnonzero((f.infoset_node == top) & (f.infoset_player == me))
    assert me == 1 and sets.size > 1
    flags = np.array([through(f, int(i), L.node, L.entry) for i in sets])
    assert (flags.sum(axis=0) == 1).all()
    at = [E.S_HAND + E.NCH * me, E.S_FACEUP + E.NCH * me]
    cards = L.state[:, at[0]:at[0] + E.NCH] + L.state[:, at[1]:at[1] + E.NCH]
    entries = np.arange(f.entry_start[top], f.entry_start[top + 1])
    for i, row in zip(sets, flags):
        code = int(rooted.entry_hand[entries[f.entry_ref[entries] == i][0]])
        held = [(code >> (3 * c)) & 7 for c in range(E.NCH)]
        assert row.any() and (cards[row] == held).all()


def test_the_held_hands_leaves_get_their_own_rollouts():
    """Focused on an information set, its histories' leaf states are played ``focus_rollouts`` times
    and the others ``rollouts`` times: each row's values are the ones an unfocused run with that
    many rollouts gives (a row's seeds depend on its state alone), and both counts are named."""
    from coupsolve.search.leaves import through

    bp = blueprint()
    root = public_root(TL1, TAX)
    rooted = build_rooted_public_tree(TL1, root, np.ones(root.num_private[0]), np.ones(root.num_private[1]),
                                      leaf_states=True)
    held = int(np.flatnonzero(rooted.tree.flat.infoset_player == 1)[3])
    _, focused = rooted_leaf_values(rooted, bp, TAX, 2, rollouts=2, seed=5, focus=held, focus_rollouts=6)
    _, few = rooted_leaf_values(rooted, bp, TAX, 2, rollouts=2, seed=5)
    _, many = rooted_leaf_values(rooted, bp, TAX, 2, rollouts=6, seed=5)
    L = rooted.leaf_histories
    at = np.flatnonzero(np.isin(L.node, public_leaves(rooted)))
    rows = np.zeros(focused.states, bool)
    rows[focused.row_of[through(rooted.tree.flat, held, L.node[at], L.entry[at])]] = True
    assert 0 < rows.sum() < rows.size
    np.testing.assert_array_equal(focused.values[rows], many.values[rows])
    np.testing.assert_array_equal(focused.values[~rows], few.values[~rows])
    assert not np.array_equal(few.values[rows], many.values[rows])
    assert focused.source.startswith("2 or 6 rollouts")


def test_a_rooted_tree_without_leaf_states_is_refused():
    root = public_root(TL2, TAX)
    coup = build_rooted_public_tree(TL2, root, np.ones(root.num_private[0]), np.ones(root.num_private[1]))
    with pytest.raises(ValueError, match="leaf_states"):
        rooted_leaf_values(coup, blueprint(), TAX)


def test_a_blueprint_of_other_information_sets_is_refused():
    bp = blueprint()
    with pytest.raises(StrategyError, match="features"):
        Blueprint(FULL, bp.solver, {"rules": FULL.to_dict(), "abstraction": "exact"})


def test_a_root_with_histories_in_transit_at_the_cut():
    """A loss after a Coup in the cut's last turn: the histories whose loss is forced end the turn, and
    so the cut game, while the others choose; the re-solve roots at the cut's own public state."""
    bp = blueprint()
    history = TRANSIT
    state = load_game(FULL).new_initial_state()
    for a in history:
        state.apply_action(a)
    r = resolve(bp, history, SearchSettings(lookahead=1, rollouts=1, iterations=5))
    assert r.root.node.start.pending.any() and r.root.turn == state.turn
    assert sorted(r.probabilities) == sorted(state.legal_actions()) and r.player == state.current_player()
    cut = FULL.replace(turn_limit=r.root.turn)
    ones = [np.ones(n) for n in r.root.num_private]
    size = count_rooted_public_tree(cut, r.root, *ones)
    assert size.root.rules == cut and size.root.actions == r.root.actions
    direct = build_rooted_public_tree(cut, public_root(cut, history), *ones)
    assert build_rooted_public_tree(cut, r.root, *ones, size=size).tree.num_nodes == direct.tree.num_nodes


def test_the_resolving_player_plays_legal_distributions():
    """Re-solving at the first decisions of a seeded game: a distribution over the legal actions that
    sums to 1, normalised ranges, the player who acts, and the first turn's re-solve has leaves."""
    bp = blueprint()
    game = load_game(FULL)
    player = ResolvingPolicy(game, bp, SearchSettings(lookahead=1, continuations=2, rollouts=2, iterations=20))
    rng = np.random.default_rng(0)
    state, solved = game.new_initial_state(), 0
    while not state.is_terminal() and solved < 5:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        dist = player.action_probabilities(state)
        assert sorted(dist) == sorted(state.legal_actions())
        assert abs(sum(dist.values()) - 1.0) < 1e-9 and min(dist.values()) >= 0.0
        if len(dist) > 1:
            r = player.last
            solved += 1
            assert r.player == state.current_player()
            assert all(abs(x.sum() - 1.0) < 1e-9 for x in r.ranges)
            if state.turn >= 1:
                assert r.game is not None and len(r.game.leaves) > 0
        state.apply_action(max(dist, key=dist.get))
    assert solved == 5


def test_play_against_the_resolving_player_through_standard_input():
    """``coupsolve play --search 1 --search-honest 0.5 --explain`` with the shipped blueprint, the first
    listed move always typed: a whole game, each of its re-solved moves followed by what it thinks you
    hold and how likely it thinks you are to be an honest player."""
    from test_cli import run

    out = run("play", "--search", "1", "--search-iterations", "10", "--search-honest", "0.5", "--explain",
              "--seed", "2", stdin="0\n" * 400)
    assert out.returncode == 0, out.stderr
    assert "re-solving 1 turn ahead" in out.stdout and "p1 is re-solving 1 turn ahead ..." in out.stdout
    assert "prior 0.5 that its opponent is honest" in out.stdout
    assert any(w in out.stdout for w in ("You win.", "You lose.", "A draw"))
    lines = out.stdout.splitlines()
    thoughts = [i for i, line in enumerate(lines) if "it thinks you hold" in line]
    assert thoughts and all("%" in lines[i] and "is worth" in lines[i - 1] and "to it" in lines[i - 1]
                            and "an honest player with probability" in lines[i + 1] for i in thoughts)
    honest = [float(lines[i + 1].split("probability ")[1].split("%")[0]) for i in thoughts]
    assert all(0 <= x <= 100 for x in honest) and len(set(honest)) > 1  # it updates as you play
    bad = run("play", "--search", "9")
    assert bad.returncode == 2 and "--search" in bad.stderr


def honest_only(state, probs, seat):
    """``probs`` (``{action: probability}`` at ``seat``'s decision) without the claims ``seat`` cannot
    back and, in a challenge round, without the challenge unless ``seat`` sees every copy of the
    claimed character (in its hand or face up), and then without the pass; renormalised (every
    honest move alike where none is left): the honest blueprint, from OpenSpiel's state."""
    from coupsolve import engine as E

    s = state.engine_state()
    claiming = s[E.S_PHASE] in (E.PH_TURN, E.PH_BLOCK, E.PH_BLOCK_CHALLENGE)
    calling = s[E.S_PHASE] in (E.PH_CHALLENGE, E.PH_BLOCK_CHALLENGE)
    if calling:
        c = s[E.S_BLOCK_CHAR] if s[E.S_PHASE] == E.PH_BLOCK_CHALLENGE else E.CLAIM_CHAR[E.ACTION_CLAIM[s[E.S_ACTION]]]
        seen = s[E.S_HAND + E.NCH * seat + c] + sum(s[E.S_FACEUP + E.NCH * q + c] for q in range(2))
        false = seen >= FULL.params()[E.P_COPIES + c]

    def honest(a):
        claim = E.ACTION_CLAIM[a] if a < E.NUM_ACTIONS else -1
        if calling and (a == E.ACT_CHALLENGE or a == E.ACT_PASS):
            return (a == E.ACT_CHALLENGE) == false
        return not (claiming and claim >= 0 and s[E.S_HAND + E.NCH * seat + E.CLAIM_CHAR[claim]] == 0)

    kept = {a: p if honest(a) else 0.0 for a, p in probs.items()}
    total = sum(kept.values())
    if total > 0:
        return {a: p / total for a, p in kept.items()}
    fair = [a for a in probs if honest(a)]
    return {a: (1.0 / len(fair) if a in fair else 0.0) for a in probs}


@pytest.mark.parametrize("model", ["blueprint", "honest"])
def test_ranges_are_each_players_own_reach_under_the_model(model):
    """Blueprint.ranges (compiled, one history per private state) against OpenSpiel: the product of the
    model's probabilities of the player's own moves along every history at the root (the blueprint's,
    or the honest blueprint's), which must be the same for all histories of one private state (Bayes'
    rule needs only one)."""
    from solvers.mccfr.policy import SampledPolicy

    bp = blueprint()
    game = load_game(FULL)
    policy = SampledPolicy(bp.solver, game)
    history = [54, 56, 0, 1, 2, 22, 0]  # the Tax passed, then player 1 takes Income
    root = public_root(FULL, history)
    ranges = bp.ranges(root, model)
    paths, entry = root.node.paths, root.node.entry
    for seat in (0, 1):
        for i in np.random.default_rng(seat).choice(len(paths), size=min(12, len(paths)), replace=False):
            state, reach = game.new_initial_state(), 1.0
            for a in paths[i][paths[i] >= 0]:
                if not state.is_chance_node() and state.current_player() == seat:
                    probs = policy.action_probabilities(state)
                    reach *= (honest_only(state, probs, seat) if model == "honest" else probs)[int(a)]
                state.apply_action(int(a))
            assert abs(reach - ranges[seat][entry[i, seat]]) <= 1e-12
    assert all(r.max() > r.min() for r in ranges)  # the check can fail: the ranges are not uniform
    taxed = np.array(["Duke" in h for h in root.hands(0)])  # player 0 claimed the Duke
    assert ranges[0][taxed].min() > 0 and (model == "blueprint") == (ranges[0][~taxed].max() > 0)


def test_the_opponents_range_mixes_the_models_by_bayes_rule():
    """SearchSettings.honest: the opponent's range is the prior mixture of the two models' own reaches,
    and the chance it is honest is Bayes' rule over the histories of the hand the player holds."""
    bp = blueprint()
    history = [54, 56, 0, 1, 2, 22, 0]  # player 1's Income after player 0's Tax: player 0 acts
    root = public_root(FULL, history)
    me = 0
    plain = resolve(bp, history, SearchSettings(iterations=5, rollouts=1, held_rollouts=1, honest=0.0))
    assert plain.honesty == 0.0
    for q in (0.3, 1.0):
        r = resolve(bp, history, SearchSettings(iterations=5, rollouts=1, held_rollouts=1, honest=q))
        b, h = bp.ranges(root)[1], bp.ranges(root, "honest")[1]
        mix = (1 - q) * b + q * h
        mix = np.maximum(mix / mix.max(), 1e-3)
        assert np.allclose(r.ranges[1], mix / mix.sum(), rtol=0, atol=1e-12)
        node = root.node
        rows = node.entry[:, me] == node.entry[node.target, me]
        w = node.start.prob[rows]
        fair, blue = (w * h[node.entry[rows, 1]]).sum(), (w * b[node.entry[rows, 1]]).sum()
        assert r.honesty == pytest.approx(q * fair / (q * fair + (1 - q) * blue), abs=1e-12)
        assert 0 < r.honesty <= 1 and (q < 1) == (r.honesty < 1)
        assert abs(sum(r.probabilities.values()) - 1) < 1e-9


def test_the_honest_posterior_pools_the_private_states_of_one_hand():
    from coupsolve.search.model import posterior_by_hand

    hands = [5, 9, 5, 7]
    bp, fair = np.array([0.4, 0.2, 0.1, 0.0]), np.array([0.0, 0.2, 0.3, 0.0])
    got = posterior_by_hand(hands, bp, fair, 0.25)
    assert got[5] == pytest.approx(0.25 * 0.3 / (0.75 * 0.5 + 0.25 * 0.3), abs=1e-15)
    assert got[9] == pytest.approx(0.25, abs=1e-15) and got[7] == 0.0


@pytest.mark.parametrize("trust", [0.0, 0.6, 1.0])
def test_the_opponents_challenge_rounds_are_held_to_the_honest_move(trust):
    """SearchSettings(honest=q, trust=t): in the re-solve of player 0's first turn, each information set
    of player 1's challenge round plays Pass with at least t times the posterior that its hand is the
    honest type's (Bayes' rule over the two models' reaches at the root), and no other is held; with
    t = 0 the solved player 1 challenges more than that somewhere (the hold is what keeps it)."""
    from coupsolve import engine as E
    from coupsolve.engine.context import context_field
    from coupsolve.search.model import posterior_by_hand

    bp, history, q = blueprint(), TAX[:-1], 0.8
    r = resolve(bp, history, SearchSettings(iterations=60, rollouts=1, held_rollouts=1, honest=q, trust=trust))
    root, rooted, tree = r.root, r.game.cut, r.game.tree
    posterior = posterior_by_hand(root.node.hand[1], bp.reach(root, 1), bp.reach(root, 1, "honest"), q)
    f = rooted.tree.flat
    phase = context_field(rooted.infoset_context.astype(np.int64), E.CTX_PHASE)
    avg, short = r.result.average_policy, []
    for i in range(rooted.infoset_hash.size):
        o, m = int(tree.infoset_offset[i]), int(tree.infoset_num_actions[i])
        actions = tree.infoset_actions[o:o + m].tolist()
        if tree.flat.infoset_player[i] != 1 or phase[i] != E.PH_CHALLENGE or E.ACT_CHALLENGE not in actions:
            continue
        x = int(f.infoset_node[i])  # the node's player-1 entries, the one of this information set
        at = np.arange(int(f.entry_start[x] + f.num_entries0[x]), int(f.entry_start[x + 1]))
        hand = int(rooted.entry_hand[at[f.entry_ref[at] == i][0]])
        w = posterior[hand]
        short.append(w - avg[o + actions.index(E.ACT_PASS)])
        if trust:
            assert avg[o + actions.index(E.ACT_PASS)] >= trust * w - 1e-9
    assert short and (trust > 0 or max(short) > 1e-3)


def test_a_claim_seen_false_from_the_hand_and_the_face_up_cards_is_the_engines():
    """coupsolve.search.model judges a claim false from a packed hand and the face-up counts; at every
    challenge round of 300 random games that is the engine's judgement from the whole state, claims
    seen false among them."""
    from coupsolve import engine as E
    from coupsolve.engine.context import open_claim
    from coupsolve.engine.core import pack_hand
    from coupsolve.engine.honest import proves_false
    from coupsolve.search.model import _sees_false

    rng, game, P = np.random.default_rng(5), load_game(FULL), FULL.params()
    counts = [0, 0]  # challenge rounds, claims seen false

    def check(state):
        if state.is_chance_node():
            return
        s, p = state.engine_state(), state.current_player()
        if s[E.S_PHASE] in (E.PH_CHALLENGE, E.PH_BLOCK_CHALLENGE):
            face_up = s[E.S_FACEUP:E.S_FACEUP + E.MAXP * E.NCH].reshape(E.MAXP, E.NCH).sum(axis=0)
            mine = int(pack_hand(s, E.S_HAND + E.NCH * p))
            expected = bool(proves_false(P, s, p))
            assert _sees_false(int(open_claim(s)[1]), mine, P, face_up) == expected
            counts[0], counts[1] = counts[0] + 1, counts[1] + expected

    for _ in range(300):
        play_randomly(game.new_initial_state(), rng, check)
    rounds, false = counts
    assert rounds > 100 and false > 0


def test_a_game_of_other_rules_is_refused():
    with pytest.raises(ValueError, match="blueprint"):
        ResolvingPolicy(load_game(TL2), blueprint())


def test_own_range_is_the_product_of_the_players_own_re_solved_strategies():
    """The re-solving player's own range at a later decision, against OpenSpiel: replay histories at the
    root and multiply, at each of the player's earlier decisions, the probability its re-solve there
    gave the history's move at the history's information set (found by hash, not by the entries the
    range uses)."""
    from coupsolve.trees.stepwalk.build import sequence_hashes

    bp = blueprint()
    game = load_game(FULL)
    player = ResolvingPolicy(game, bp, SearchSettings(lookahead=1, rollouts=1, iterations=20, prune=0.0))
    rng = np.random.default_rng(4)
    state, kept = game.new_initial_state(), {}
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        p = state.current_player()
        dist = player.action_probabilities(state)
        if len(dist) > 1:
            kept[len(state.history())] = player.last
            if sum(r.player == p for r in kept.values()) >= 3:
                break
        actions, probs = zip(*dist.items())
        state.apply_action(int(rng.choice(actions, p=np.asarray(probs) / sum(probs))))
    assert not state.is_terminal(), "the seeded game ended before three re-solves of one player"
    last = player.last
    root, p = last.root, last.player
    mine = player.own.at(root, p)
    assert mine is not None and np.allclose(last.ranges[p], mine / mine.sum(), rtol=1e-12, atol=0)
    paths, entry = root.node.paths, root.node.entry
    for j in np.random.default_rng(1).choice(len(paths), size=min(10, len(paths)), replace=False):
        replay, reach = game.new_initial_state(), 1.0
        for n, a in enumerate(paths[j][paths[j] >= 0]):
            if not replay.is_chance_node() and replay.current_player() == p and len(replay.legal_actions()) > 1:
                # the re-solve made there, else the latest two re-solves before it whose tree has it
                here = [kept[n]] if n in kept and kept[n].player == p else \
                    [kept[m] for m in sorted(kept, reverse=True) if m < n][:2]
                h = sequence_hashes(FULL, list(paths[j][:n]))[p, 0]
                factor = 0.0
                for r in here:
                    i = np.flatnonzero((r.game.coup_tree.infoset_hash == h) & (r.game.tree.infoset_player == p))
                    if i.size:
                        tree, i = r.game.tree, int(i[0])
                        o, m = int(tree.infoset_offset[i]), int(tree.infoset_num_actions[i])
                        sigma = np.asarray(r.result.average_policy[o:o + m], np.float64)
                        factor = sigma[list(tree.infoset_actions[o:o + m]).index(int(a))] / sigma.sum()
                        break
                reach *= factor
            replay.apply_action(int(a))
        assert abs(reach - mine[entry[j, p]]) <= 1e-12 * max(1.0, reach)
    assert mine.max() > mine.min()  # the check can fail: the range is not uniform


def test_a_player_that_joins_a_game_late_has_no_own_range():
    """OwnRange asked for a player who already chose in this game without it: no range to give (the
    blueprint's is used); asked at the player's first choice, it is not late."""
    from coupsolve.search import OwnRange

    late = OwnRange(FULL)
    late.follow(TAX)  # player 1 asked after player 0's Tax: player 1 chose its card before
    assert late.late and late.at(public_root(FULL, TAX), 1) is None
    first = OwnRange(FULL)
    first.follow(TAX[:1])  # player 1's card choice: its first
    assert not first.late


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(0, 300), cols=st.integers(1, 12), values=st.integers(1, 4), seed=st.integers(0, 2**31),
       collide=st.booleans())
def test_distinct_rows_are_numpys_unique_rows(rows, cols, values, seed, collide):
    """distinct_rows is np.unique(axis=0, return_inverse=True), array for array, also when every row
    hashes alike (the exact fallback)."""
    import coupsolve.search.leaves as leaves

    a = np.random.default_rng(seed).integers(-1, values, size=(rows, cols)).astype(np.int32)
    saved = leaves._MIX.copy()
    try:
        if collide:
            leaves._MIX[:] = 0
        uniq, inverse = leaves.distinct_rows(a)
    finally:
        leaves._MIX[:] = saved
    want, want_inverse = np.unique(a, axis=0, return_inverse=True)
    assert np.array_equal(uniq, want) and np.array_equal(inverse, want_inverse.reshape(-1))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), player=st.integers(0, 1))
def test_own_choices_are_openspiels(seed, player):
    """own_choices (compiled) against a replay of OpenSpiel states: the player's choices (more than one
    legal move) along random games, their moves, and sequence_hashes of each prefix as the key."""
    from coupsolve.search.own import own_choices
    from coupsolve.trees.stepwalk.build import sequence_hashes

    game, rng = load_game(FULL), np.random.default_rng(seed)
    paths, want = [], []
    for r in range(3):
        state, path = game.new_initial_state(), []
        while not state.is_terminal() and len(path) < 60:
            moves = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            if not state.is_chance_node() and state.current_player() == player and len(moves) > 1:
                want.append((r, None, sequence_hashes(FULL, path)[player, 0]))
            a = int(moves[rng.integers(len(moves))])
            if want and want[-1][1] is None:
                want[-1] = (want[-1][0], a, want[-1][2])
            state.apply_action(a)
            path.append(a)
        paths.append(path)
    rows = np.full((3, max(map(len, paths))), -1, np.int32)
    for r, p in enumerate(paths):
        rows[r, :len(p)] = p
    row, move, key = np.zeros(rows.size, np.int64), np.zeros(rows.size, np.int32), np.zeros(rows.size, np.uint64)
    n = own_choices(FULL.params(), rows, player, row, move, key)
    assert n == len(want) > 0
    assert [(int(a), int(b), int(c)) for a, b, c in zip(row[:n], move[:n], key[:n])] == \
        [(r, a, int(h)) for r, a, h in want]
    rows[0, 3] = 99  # not a move there
    assert own_choices(FULL.params(), rows, player, row, move, key) == -1


def test_the_replay_for_nobody_takes_the_copy_compiled_for_a_seat(monkeypatch):
    """sequence_hashes replays for nobody (-1) from compiled code, own_choices for a seat: one compiled
    copy serves both, not one more for a literal -1 (docs/research/design-measurements.md). The
    replay is compiled here afresh: one read from numba's disk cache asks its callee for nothing."""
    import numba
    from numba.core.types import Literal

    from coupsolve.trees.stepwalk import build, walk

    monkeypatch.setattr(build, "replay", numba.njit(cache=False)(walk.replay.py_func))
    assert build.sequence_hashes(FULL, []).shape == (2, 2)
    sigs = walk.replay_choices.signatures
    assert sigs and not any(isinstance(t, Literal) for sig in sigs for t in sig)


def test_a_root_too_large_to_re_solve_is_played_by_the_blueprint():
    """With a cap the walk to the root exceeds, resolve refuses before allocating and the player plays
    the blueprint's move there (and counts it)."""
    from coupsolve.trees.stepwalk.descend import TooManyHistories
    from solvers.mccfr.policy import SampledPolicy

    bp = blueprint()
    small = SearchSettings(rollouts=1, iterations=5, max_histories=20000)
    with pytest.raises(TooManyHistories, match="20,000"):
        resolve(bp, TRANSIT, small)
    game = load_game(FULL)
    player = ResolvingPolicy(game, bp, small)
    state = game.new_initial_state()
    for a in TRANSIT:
        state.apply_action(a)
    dist = player.action_probabilities(state)
    assert player.last is None and player.fallbacks == 1
    assert dist == SampledPolicy(bp.solver, game).action_probabilities(state)


def test_pruning_keeps_no_history_of_zero_weight():
    """A re-solve's pruning with the acting player's own range 0 at most hands (as exact Bayes leaves
    it) and every hand of the opponent kept: no kept history weighs 0, so the recorded leaf histories
    are the tree's pairs (they were not, when a hand's first history was paired with a hand of range
    0), and the leaves are valued."""
    bp = blueprint()
    root = public_root(FULL, TAX)  # player 1 to answer the Tax
    held = int(root.node.entry[root.node.target, 1])
    r0, r1 = np.ones(root.num_private[0]), np.zeros(root.num_private[1])
    r1[held] = r1[::3] = 1.0
    cut = FULL.replace(turn_limit=root.turn_limit_ahead(1))
    rooted = build_rooted_public_tree(cut, root, r0, r1, leaf_states=True, prune=0.01, keep=[True, [held]])
    assert (rooted.leaf_histories.prob > 0).all()
    joined, values = rooted_leaf_values(rooted, bp, TAX, 2, rollouts=1)
    assert len(joined.leaves) > 0 and np.isfinite(joined.values).all()
