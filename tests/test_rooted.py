"""Public trees rooted at any public state (coupsolve.trees.rooted) against the whole game's tree.

A small game (the two-player card-selection setup, turn limits 1 and 2, both limit payoffs) is solved
with CFR+ on its public tree from the start; at public states that the solve reaches, each player's
range is read from the solve's own strategy (their own reach, Bayes), the tree is rooted there with
those ranges, and the solve's strategy, read onto it by information-set key, must give the same game
value and the same counterfactual value of every private state as the whole game at that node.
The root's chance probabilities are checked against an enumeration of the OpenSpiel game's histories.
"""

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import solvers
from coupsolve import Rules, load_game
from coupsolve import engine as E
from coupsolve.openspiel.policy import PublicTreePolicy
from coupsolve.trees.rooted import build_rooted_public_tree, count_rooted_public_tree, public_root, restrict_policy
from coupsolve.trees.stepwalk.build import build_public_tree
from solvers.kinds import BOTH_PLAYERS
from solvers.public import forward, no_live, scratch, values

TL1 = Rules.two_player_selection(turn_limit=1)
TL2 = Rules.two_player_selection(turn_limit=2)
TL1_INF = TL1.replace(limit_payoff="influence")
TL2_INF = TL2.replace(limit_payoff="influence")
STANDARD = Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2)
CHOOSE_DUKE, CHOOSE_CAPTAIN, DEAL_DUKE, DEAL_ASSASSIN = 54, 56, 0, 1
TAX, EXCHANGE, PASS, CHALLENGE = 2, 3, 22, 23
#: Public states of the card-selection games: the deal after the card choice, the first turn, the
#: challenge of a Tax and of an Exchange, the loss after a failed challenge (a public node where
#: the histories whose loss is forced are in transit), the second turn.
HISTORIES = {
    "deal": [CHOOSE_DUKE, CHOOSE_CAPTAIN],
    "turn-1": [CHOOSE_DUKE, CHOOSE_CAPTAIN, DEAL_DUKE, DEAL_ASSASSIN],
    "tax": [CHOOSE_DUKE, CHOOSE_CAPTAIN, DEAL_DUKE, DEAL_ASSASSIN, TAX],
    "exchange": [CHOOSE_CAPTAIN, CHOOSE_CAPTAIN, DEAL_DUKE, DEAL_ASSASSIN, EXCHANGE],
    "loss": [CHOOSE_DUKE, CHOOSE_DUKE, DEAL_DUKE, DEAL_ASSASSIN, TAX, CHALLENGE],
    "turn-2": [CHOOSE_CAPTAIN, CHOOSE_CAPTAIN, DEAL_DUKE, DEAL_ASSASSIN, EXCHANGE, CHALLENGE, 29],
}


@functools.lru_cache(maxsize=4)
def solved(rules):
    """``(CoupPublicTree, average policy)`` of a CFR+ solve of ``rules`` from the start."""
    whole = build_public_tree(rules)
    result = solvers.solve(whole.tree, algorithm="cfr+", iterations=60, threads=1, seed=0)
    return whole, result.average_policy


def entry_values(coup, policy):
    """Every entry's own reach and both players' counterfactual values under ``policy``."""
    T, n = coup.tree.flat, coup.tree.num_entries
    sigma = np.ascontiguousarray(policy, np.float64)
    reach, v0, v1 = np.zeros(n), np.zeros(n), np.zeros(n)
    acc, X, none = np.zeros(coup.tree.num_actions), scratch(T, 1), np.empty(0, np.int32)
    forward(T, sigma, reach, False, BOTH_PLAYERS, no_live())
    values(T, sigma, reach, v0, acc, X, 0, False, none, False)
    values(T, sigma, reach, v1, acc, X, 1, False, none, False)
    return reach, v0, v1


def exploitability(coup, policy):
    """The exact exploitability of ``policy`` on ``coup.tree`` (best responses by the value pass)."""
    T = coup.tree.flat
    sigma = np.ascontiguousarray(policy, np.float64)
    reach, v = np.zeros(coup.tree.num_entries), np.zeros(coup.tree.num_entries)
    acc, X, none = np.zeros(coup.tree.num_actions), scratch(T, 1), np.empty(0, np.int32)
    forward(T, sigma, reach, False, BOTH_PLAYERS, no_live())
    out = []
    for p, best in ((0, True), (1, True), (0, False)):
        values(T, sigma, reach, v, acc, X, p, best, none, False)
        out.append(v[T.entry_start[0] + (0 if p == 0 else T.num_entries0[0])])
    br0, br1, ev0 = out
    return (br0 - ev0 + br1 + ev0) / 2


def node_at(tree, path):
    v = 0
    for k in path:
        v = int(tree.child_start[v]) + k
    return v


def sides(tree, v):
    """``(player 0's entries, player 1's)`` at node ``v`` as slices."""
    b, n0, e = int(tree.entry_start[v]), int(tree.num_entries0[v]), int(tree.entry_start[v + 1])
    return slice(b, b + n0), slice(b + n0, e)


def check_values_at(rules, history):
    """The test of the issue at the public state ``history`` reaches; returns the root and ranges."""
    whole, policy = solved(rules)
    root = public_root(rules, history)
    v = node_at(whole.tree, root.public_path)
    s0, s1 = sides(whole.tree, v)
    assert np.array_equal(whole.entry_hand[s0], root.node.hand[0])  # the same private states, in order
    assert np.array_equal(whole.entry_hand[s1], root.node.hand[1])
    reach, cf0, cf1 = entry_values(whole, policy)
    r0, r1 = reach[s0], reach[s1]
    z = r0 @ root.chance @ r1
    if not z > 0:
        return None  # the solve never reaches this public state
    rooted = build_rooted_public_tree(rules, root, r0, r1)
    _, rv0, rv1 = entry_values(rooted, restrict_policy(whole, policy, rooted))
    t0, t1 = sides(rooted.tree, 1 if max(root.num_private) > 1 else 0)
    # the same private states, known by the same observation hashes (what depth-limited leaves join on)
    assert np.array_equal(rooted.entry_hash[t0], whole.entry_hash[s0])
    assert np.array_equal(rooted.entry_hash[t1], whole.entry_hash[s1])
    assert rooted.entry_hash.shape == (rooted.tree.num_entries,)
    scale = max(np.abs(rv0[t0]).max(), 1e-300)
    np.testing.assert_allclose(rv0[t0], r0 * cf0[s0] / z, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(rv1[t1], r1 * cf1[s1] / z, rtol=0, atol=1e-9 * scale)
    value = r0 @ cf0[s0] / z
    assert abs(rv0[0] - value) <= 1e-9 * max(abs(value), 1e-3)
    assert abs(rv1[rooted.tree.num_entries0[0]] - r1 @ cf1[s1] / z) <= 1e-9 * max(abs(value), 1e-3)
    assert abs(rv0[0] + rv1[rooted.tree.num_entries0[0]]) <= 1e-12  # zero-sum
    return root, rooted, r0, r1


#: Every public state at turn limit 1 and both payoffs; at turn limit 2 the early ones (a tree nearly
#: the whole game's, the same check as at turn limit 1) are in test_slow_early_roots.
CASES = [(rules, name) for rules in (TL1, TL1_INF, TL2, TL2_INF) for name in HISTORIES
         if rules.turn_limit == 1 or name not in ("deal", "turn-1")]


@pytest.mark.parametrize("rules, name", [
    pytest.param(r, name, id=f"{name}-tl{r.turn_limit}-{r.limit_payoff}",
                 marks=[pytest.mark.slow] if r is TL2_INF else [])  # turn limit 2's draw payoff is the default's
    for r, name in CASES])
def test_rooted_values_equal_the_whole_games(rules, name):
    history = HISTORIES[name]
    if rules.turn_limit == 1 and name == "turn-2":
        with pytest.raises(ValueError, match="game is over"):
            public_root(rules, history)
        return
    checked = check_values_at(rules, history)
    assert checked is not None  # the solve reaches it
    root, rooted, r0, r1 = checked
    if name == "loss":
        assert root.node.start.pending.sum() > 0  # some histories are in transit at this root
    if r0.std() > 1e-6 * r0.mean():  # the check can fail: a uniform range of player 0 is caught
        whole, policy = solved(rules)
        reach, _, cf1 = entry_values(whole, policy)
        s0, s1 = sides(whole.tree, node_at(whole.tree, root.public_path))
        wrong = build_rooted_public_tree(rules, root, np.ones_like(r0), r1)
        _, _, w1 = entry_values(wrong, restrict_policy(whole, policy, wrong))
        _, t1 = sides(wrong.tree, 1)
        expect = r1 * cf1[s1] / (r0 @ root.chance @ r1)
        assert np.abs(w1[t1] - expect).max() > 1e-6 * np.abs(expect).max()


@pytest.mark.slow
@pytest.mark.parametrize("rules", [TL2, TL2_INF], ids=["tl2", "tl2-influence"])
def test_slow_early_roots(rules):
    for name in ("deal", "turn-1"):
        check_values_at(rules, HISTORIES[name])


def random_history(rules, picks):
    """A history from the game's start: at each step the legal action (or chance outcome) ``pick``
    modulo their number, stopping before the game would end."""
    state = load_game(rules).new_initial_state()
    for pick in picks:
        moves = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        child = state.child(moves[pick % len(moves)])
        if child.is_terminal():
            break
        state = child
    return state.history()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=12))
def test_rooted_values_equal_the_whole_games_at_random_states(picks):
    assume(check_values_at(TL1_INF, random_history(TL1_INF, picks)) is not None)


def public_tokens(events):
    return tuple(e[1] if e[0] < 0 else e[2] for e in events)


def seen(events, p):
    """What player ``p`` observed of ``events`` (the private token of its own and everyone's)."""
    return tuple(e[1] if (e[0] < 0 or e[0] == p) else e[2] for e in events)


def enumerate_chance(rules, history):
    """``{(what player 0 saw, what player 1 saw): chance probability}`` over every history of the
    OpenSpiel game at the public node of ``history``: the histories whose public events begin with
    the target's, cut where the target's stop (those whose last step goes past it are in transit)."""
    game = load_game(rules)
    target = game.new_initial_state()
    for a in history:
        target.apply_action(a)
    want = public_tokens(target.events)
    n, out = len(want), {}
    start = game.new_initial_state()
    if len(start.events) >= n:  # the game's start itself
        return {(seen(start.events[:n], 0), seen(start.events[:n], 1)): 1.0}
    stack = [(start, 1.0)]
    while stack:
        state, prob = stack.pop()
        moves = state.chance_outcomes() if state.is_chance_node() else [(a, 1.0) for a in state.legal_actions()]
        for a, q in moves:
            child = state.child(a)
            ev = child.events
            if public_tokens(ev[:n]) != want[:len(ev)]:
                continue
            if len(ev) >= n:
                key = (seen(ev[:n], 0), seen(ev[:n], 1))
                out[key] = out.get(key, 0.0) + prob * q
            elif not child.is_terminal():
                stack.append((child, prob * q))
    return out


def private_keys(rules, root, n_events):
    """Each history of ``root``: what each player saw of the first ``n_events`` events."""
    game = load_game(rules)
    keys = []
    for row in root.node.paths:
        state = game.new_initial_state()
        for a in row[row >= 0]:
            state.apply_action(int(a))
        keys.append((seen(state.events[:n_events], 0), seen(state.events[:n_events], 1)))
    return keys


@settings(max_examples=20, deadline=None)
@given(rules=st.sampled_from([TL1, STANDARD, TL2]), picks=st.lists(st.integers(0, 10**6), min_size=0, max_size=14))
def test_root_chance_is_the_games_and_zero_exactly_where_cards_forbid(rules, picks):
    history = random_history(rules, picks)
    root = public_root(rules, history)
    target = load_game(rules).new_initial_state()
    for a in history:
        target.apply_action(a)
    n = len(target.events)
    truth = enumerate_chance(rules, history)
    keys = private_keys(rules, root, n)
    pair_of = {key: (int(e0), int(e1)) for key, (e0, e1) in zip(keys, root.node.entry)}
    assert set(pair_of) == set(truth)  # every history of the game there, and none else
    assert len(set(pair_of.values())) == len(pair_of)  # a pair of private states is what each saw
    for key, (e0, e1) in pair_of.items():
        assert root.chance[e0, e1] == pytest.approx(truth[key], rel=1e-12, abs=1e-15)
    pairs = set(pair_of.values())
    rng = np.random.default_rng(len(picks))
    r0, r1 = rng.uniform(0.1, 1.0, root.num_private[0]), rng.uniform(0.1, 1.0, root.num_private[1])
    w = root.weights(r0, r1)
    assert abs(w.sum() - 1.0) <= 1e-12
    possible = np.zeros(w.shape, bool)
    possible[tuple(np.array(sorted(pairs)).T)] = True
    assert np.array_equal(w > 0, possible)  # zero exactly for the pairs no history has
    state = target.engine_state()
    left = rules.params()[E.P_COPIES:E.P_COPIES + E.NCH].astype(np.int64)
    for p in range(2):
        left = left - state[E.S_FACEUP + E.NCH * p:E.S_FACEUP + E.NCH * (p + 1)]
    counts = [np.array([[(int(h) >> (3 * c)) & 7 for c in range(E.NCH)] for h in root.node.hand[p]])
              for p in range(2)]
    for e0 in range(w.shape[0]):
        for e1 in range(w.shape[1]):
            if np.any(counts[0][e0] + counts[1][e1] > left):
                assert w[e0, e1] == 0.0  # more copies of a character than the public cards leave


def test_rooted_at_the_start_is_the_ordinary_tree():
    for rules in (TL2, STANDARD):
        ordinary = build_public_tree(rules)
        root = public_root(rules, [])
        assert root.num_private == (1, 1)
        rooted = build_rooted_public_tree(rules, root, [0.3], [2.0])
        assert rooted.tree.game_id == ordinary.tree.game_id
        for name, a in ordinary.tree.flat._asdict().items():
            assert np.array_equal(a, getattr(rooted.tree.flat, name)), name
        assert np.array_equal(ordinary.infoset_hash, rooted.infoset_hash)
        policy = np.random.default_rng(3).uniform(0.01, 1.0, ordinary.tree.num_actions)
        policy /= np.repeat(np.add.reduceat(policy, ordinary.tree.infoset_offset), ordinary.tree.infoset_num_actions)
        assert exploitability(rooted, policy) == exploitability(ordinary, policy) > 0


def subtree(tree, v):
    """Nodes, entries and information sets of the subtree of ``tree`` at node ``v``."""
    nodes, frontier = [v], [v]
    while frontier:
        kids = [k for u in frontier if tree.node_kind[u] != solvers.TERMINAL
                for k in range(tree.child_start[u], tree.child_start[u] + tree.num_children[u])]
        nodes += kids
        frontier = kids
    nodes = np.array(nodes)
    entries = int((tree.entry_start[nodes + 1] - tree.entry_start[nodes]).sum())
    return len(nodes), entries, int(np.isin(tree.infoset_node, nodes).sum())


def test_turns_are_counted_from_the_games_start():
    history = HISTORIES["tax"]
    root = public_root(TL2, history)
    assert root.turn == 1 and root.turn_limit_ahead(1) == 1 and root.turn_limit_ahead(2) == 2
    r0, r1 = np.ones(root.num_private[0]), np.ones(root.num_private[1])
    for rules in (TL1, TL2):
        whole = build_public_tree(rules)
        size = count_rooted_public_tree(rules, root, r0, r1)  # a root found under other turn limits
        rooted = build_rooted_public_tree(rules, root, r0, r1, size=size)
        nodes, entries, infosets = subtree(whole.tree, node_at(whole.tree, root.public_path))
        assert (rooted.tree.num_nodes, rooted.tree.num_entries, rooted.tree.num_infosets) == \
            (nodes + 1, entries + 2, infosets) == (size.nodes, size.entries, size.infosets)
    with pytest.raises(ValueError, match="ends the game before the root's turn 2"):
        build_rooted_public_tree(TL1, public_root(TL2, HISTORIES["turn-2"]), np.ones(7), np.ones(25))


def test_bad_ranges_and_rules_are_refused_in_one_line():
    root = public_root(TL1, HISTORIES["turn-1"])
    n0, n1 = root.num_private
    ok0, ok1 = np.ones(n0), np.ones(n1)
    cases = [
        (np.ones(n0 - 1), ok1, "range0 has shape"),
        (ok0, np.ones((n1, 1)), "range1 has shape"),
        (-ok0, ok1, "range0 holds a negative weight"),
        (ok0, np.full(n1, np.nan), "range1 holds a value that is not finite"),
        (np.zeros(n0), ok1, "range0 is all zero"),
    ]
    # Both dealt a Duke: impossible (the third set holds one Duke).
    dealt_duke = [np.array([row[2 + p] == DEAL_DUKE for row in root.private_paths(p)]) for p in range(2)]
    cases.append((dealt_duke[0] * 1.0, dealt_duke[1] * 1.0, "inconsistent with the public cards"))
    for r0, r1, message in cases:
        with pytest.raises(ValueError, match=message) as info:
            build_rooted_public_tree(TL1, root, r0, r1)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="differ from the root's in limit_payoff"):
        build_rooted_public_tree(TL1_INF, root, ok0, ok1)
    with pytest.raises(ValueError, match="cannot hold 'Duke\\+Duke\\+Duke'"):
        root.range_from_hands(0, {"Duke+Duke+Duke": 1.0})
    with pytest.raises(ValueError, match="not legal there"):
        public_root(TL1, [CHOOSE_DUKE, CHOOSE_DUKE, DEAL_DUKE, DEAL_DUKE])
    state = load_game(TL2).new_initial_state()
    for a in HISTORIES["turn-1"]:
        state.apply_action(a)
    from_state = public_root(TL1, state)  # an OpenSpiel state of the game (another turn limit is the same game)
    assert from_state.public_path == root.public_path and np.array_equal(from_state.chance, root.chance)
    with pytest.raises(ValueError, match="of other rules"):
        public_root(STANDARD, state)


def test_hand_ranges_spread_and_sum():
    root = public_root(TL1, HISTORIES["turn-1"])
    r = root.range_from_hands(1, {"Duke+Captain": 2.0, "Assassin+Contessa": 1.0})
    by_hand = root.hand_range(1, r)
    assert len(by_hand) == 15  # every hand of two of the five characters is possible here
    assert {h: x for h, x in by_hand.items() if x > 0} == pytest.approx({"Duke+Captain": 2 / 3,
                                                                          "Assassin+Contessa": 1 / 3})
    assert sum(1 for h in root.hands(1) if h == "Duke+Captain") == 2  # chosen Duke or chosen Captain


def test_the_rooted_value_is_openspiels():
    """Independent of the public tree: each root history's value by recursion through the OpenSpiel
    game under the rooted tree's strategy (looked up by information-set key), weighted as the root."""
    rules = TL1_INF
    whole, policy = solved(rules)
    root, rooted, r0, r1 = check_values_at(rules, HISTORIES["tax"])
    game = load_game(rules)
    sigma = restrict_policy(whole, policy, rooted)
    lookup = PublicTreePolicy(game, rooted, sigma)

    def value(state):
        if state.is_terminal():
            return state.returns()[0]
        if state.is_chance_node():
            return sum(q * value(state.child(a)) for a, q in state.chance_outcomes())
        probs = lookup.action_probabilities(state)
        return sum(q * value(state.child(a)) for a, q in probs.items() if q > 0)

    w = root.node.start.prob * r0[root.node.entry[:, 0]] * r1[root.node.entry[:, 1]]
    w /= w.sum()
    total = 0.0
    for row, weight in zip(root.node.paths, w):
        state = game.new_initial_state()
        for a in row[row >= 0]:
            state.apply_action(int(a))
        total += weight * value(state)
    _, v0, _ = entry_values(rooted, sigma)
    assert abs(total - v0[0]) <= 1e-9


def test_solvers_and_the_analysis_take_a_rooted_tree():
    """Rooted at the first turn (one public node in the card-selection setup) with the solve's own
    ranges, the analysis of the solve's strategy is the whole game's but for the card choice, and a
    solve of the rooted tree converges with the exploitability its solver reports."""
    from coupsolve.analysis import analyse

    rules = TL1_INF
    whole, policy = solved(rules)
    root, rooted, r0, r1 = check_values_at(rules, HISTORIES["turn-1"])
    a, b = analyse(whole, policy), analyse(rooted, restrict_policy(whole, policy, rooted))
    assert b.choice == {} and a.choice != {}
    np.testing.assert_allclose(b.game_value, a.game_value, rtol=0, atol=1e-9)
    for field in ("claims", "by_turn", "by_influence", "hand_value", "hand_best_response"):
        _same(getattr(a, field), getattr(b, field), field)
    first = solvers.solve(rooted.tree, algorithm="cfr+", iterations=1, threads=1, progress=False)
    result = solvers.solve(rooted.tree, algorithm="cfr+", iterations=40, threads=1, progress=False)
    assert abs(result.exploitability - exploitability(rooted, result.average_policy)) <= 1e-12
    assert result.exploitability < first.exploitability / 5


def _same(x, y, where):
    """``x`` and ``y`` (nested dicts, lists, tuples, dataclasses of numbers and names) agree: the same keys and
    names, numbers to 1e-9."""
    if dataclasses.is_dataclass(x):
        x, y = dataclasses.asdict(x), dataclasses.asdict(y)
    if isinstance(x, dict):
        assert isinstance(y, dict) and sorted(x) == sorted(y), where
        for k in x:
            _same(x[k], y[k], f"{where}[{k!r}]")
    elif isinstance(x, (list, tuple)):
        assert isinstance(y, (list, tuple)) and len(x) == len(y), where
        for i, (u, v) in enumerate(zip(x, y)):
            _same(u, v, f"{where}[{i}]")
    elif isinstance(x, str):
        assert x == y, where
    elif not (np.isnan(float(x)) and np.isnan(float(y))):  # a rate of a claim never made: nan in both
        assert abs(float(x) - float(y)) <= 1e-9, f"{where}: {x} != {y}"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(picks=st.lists(st.integers(0, 10**6), min_size=3, max_size=12), prune=st.floats(0.001, 0.6),
       seed=st.integers(0, 2**31))
def test_pruning_leaves_out_at_most_its_share_and_keeps_every_private_state(picks, prune, seed):
    """A pruned root leaves out histories weighing at most ``prune`` in all, keeps the rest in
    proportion, and keeps every private state of both players, in order, at the tree's top."""
    from coupsolve.trees.rooted.build import rooted_start

    root = public_root(TL1_INF, random_history(TL1_INF, picks))
    rng = np.random.default_rng(seed)
    r0, r1 = (rng.random(n) ** 4 for n in root.num_private)
    assume(root.chance.ravel() @ np.outer(r0, r1).ravel() > 0)
    full, cut = rooted_start(root, r0, r1), rooted_start(root, r0, r1, prune)
    key = {s.tobytes() + h.tobytes(): p for s, h, p in zip(full.states, full.hashes, full.prob)}
    kept = np.array([key[s.tobytes() + h.tobytes()] for s, h in zip(cut.states, cut.hashes)])
    assert abs(cut.prob.sum() - 1.0) < 1e-12 and np.allclose(cut.prob, kept / kept.sum(), rtol=1e-9, atol=0)
    dropped = full.prob.sum() - kept.sum()
    assert dropped <= prune + 1e-12
    whole = build_rooted_public_tree(TL1_INF, root, r0, r1)
    pruned = build_rooted_public_tree(TL1_INF, root, r0, r1, prune=prune)
    top = 1 if whole.build_info["chance_root"] else 0
    for coup in (whole, pruned):
        f = coup.tree.flat
        assert f.num_entries0[top] == root.num_private[0]
        assert f.entry_start[top + 1] - f.entry_start[top] == sum(root.num_private)
    lo, hi = whole.tree.flat.entry_start[top], whole.tree.flat.entry_start[top + 1]
    assert np.array_equal(whole.entry_hand[lo:hi], pruned.entry_hand[lo:hi])
    assert pruned.tree.num_nodes <= whole.tree.num_nodes
