"""GameTree: the flat-array contract, its validation, builders and memory checks."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib

import solvers
import solvers.memory
from solvers import GameTree
from solvers.trees.gametree import BYTES_PER_INFOSET, BYTES_PER_NODE


def small_tree_arrays():
    """Chance (1/2, 1/2) -> player 0 (knows the outcome) -> player 1 (does not).

    Level order: 0 | 1 2 | 3 4 5 6 | 7 8 9 10.
    """
    return dict(
        node_kind=np.array([1, 0, 0, 0, 2, 0, 2, 2, 2, 2, 2], np.int8),
        node_player=np.array([-1, 0, 0, 1, -1, 1, -1, -1, -1, -1, -1], np.int8),
        node_infoset=np.array([-1, 0, 1, 2, -1, 2, -1, -1, -1, -1, -1], np.int32),
        child_start=np.array([1, 3, 5, 7, 0, 9, 0, 0, 0, 0, 0], np.int64),
        num_children=np.array([2, 2, 2, 2, 0, 2, 0, 0, 0, 0, 0], np.int32),
        chance_prob=np.array([1, .5, .5, 1, 1, 1, 1, 1, 1, 1, 1], np.float64),
        payoff=np.array([0, 0, 0, 0, 1, 0, -1, 2, -1, -2, 1], np.float64),
        level_start=np.array([0, 1, 3, 7, 11], np.int64),
        infoset_player=np.array([0, 0, 1], np.int8),
        infoset_num_actions=np.array([2, 2, 2], np.int32),
        infoset_offset=np.array([0, 2, 4], np.int64),
        infoset_actions=np.array([0, 1, 0, 1, 0, 1], np.int32),
        game_id="small",
        infoset_keys=["L", "R", "after a0"],
    )


def test_small_tree_is_accepted_without_copies():
    arrays = small_tree_arrays()
    tree = GameTree(**arrays)
    assert (tree.num_nodes, tree.num_infosets, tree.num_actions, tree.depth) == (11, 3, 6, 3)
    assert tree.node_kind is arrays["node_kind"]  # right dtype: kept, not copied
    assert tree.infoset_index("after a0") == 2 and tree.infoset_key(1) == "R"
    assert list(tree.actions(2)) == [0, 1]


def test_integer_arrays_of_other_dtypes_are_converted():
    arrays = small_tree_arrays()
    arrays["node_kind"] = arrays["node_kind"].astype(np.int64)
    arrays["child_start"] = list(arrays["child_start"])
    tree = GameTree(**arrays)
    assert tree.node_kind.dtype == np.int8 and tree.child_start.dtype == np.int64


def _set(field, index, value):
    def mutate(arrays):
        arrays[field] = arrays[field].copy()
        arrays[field][index] = value
    return mutate


def _replace(field, value):
    def mutate(arrays):
        arrays[field] = value
    return mutate


def _add_unused_infoset(arrays):
    arrays.update(infoset_player=np.array([0, 0, 1, 1], np.int8),
                  infoset_num_actions=np.array([2, 2, 2, 2], np.int32),
                  infoset_offset=np.array([0, 2, 4, 6], np.int64),
                  infoset_actions=np.array([0, 1, 0, 1, 0, 1, 0, 1], np.int32),
                  infoset_keys=["L", "R", "after a0", "nowhere"])


BAD_TREES = [
    (_set("node_kind", 4, 3), "node_kind[4]"),
    (_set("node_player", 1, 1), "different from infoset_player"),
    (_set("node_player", 1, 5), "node_player not in"),
    (_set("node_infoset", 1, 7), "outside [0, num_infosets)"),
    (_set("node_infoset", 4, 0), "terminal node 4"),
    (_set("num_children", 1, 3), "different from infoset_num_actions"),
    (_set("child_start", 2, 4), "breaks level order"),
    (_set("chance_prob", 1, 0.7), "do not sum to 1"),
    (_set("chance_prob", 1, -0.5), "negative or not finite"),
    (_set("chance_prob", 3, 0.5), "parent of node 3 is not a chance node"),
    (_set("payoff", 1, 1.0), "payoff[1] must be 0"),
    (_set("payoff", 7, np.inf), "payoff[7] is not finite"),
    (_replace("level_start", np.array([0, 1, 3, 8, 11])), "not all in the level after"),
    (_replace("level_start", np.array([0, 2, 3, 7, 11])), "level_start must start with 0, 1"),
    (_replace("level_start", np.array([0, 1, 3, 3, 7, 11])), "strictly increasing"),
    (_replace("infoset_offset", np.array([0, 2, 3])), "cumulative sum"),
    (_replace("infoset_actions", np.array([0, 0, 0, 1, 0, 1])), "same action id twice"),
    (_replace("infoset_actions", np.array([0, 1, 0, 1, 0])), "infoset_actions has length 5"),
    (_replace("node_infoset", np.zeros(10, np.int32)), "node_infoset has length 10"),
    (_set("infoset_player", 2, 0), "different from infoset_player"),
    (_replace("infoset_num_actions", np.array([2, 2, 0])), "at least 1"),
    (_replace("infoset_keys", ["L", "R"]), "infoset_keys has 2 entries"),
    (_add_unused_infoset, "information set 3 has no decision node"),
]


@pytest.mark.parametrize("mutate, message", BAD_TREES)
def test_invalid_arrays_are_refused_naming_the_problem(mutate, message):
    arrays = small_tree_arrays()
    mutate(arrays)
    with pytest.raises(ValueError) as info:
        GameTree(**arrays)
    assert message in str(info.value)


@pytest.mark.parametrize("field, value", [
    ("node_kind", np.zeros(11, np.float64)),
    ("game_id", ""),
    ("infoset_keys", [0, 1, 2]),
    ("infoset_keys", "LR?"),
])
def test_wrong_types_are_refused(field, value):
    arrays = small_tree_arrays()
    arrays[field] = value
    with pytest.raises(TypeError):
        GameTree(**arrays)


def test_out_of_range_integers_are_refused():
    arrays = small_tree_arrays()
    arrays["node_player"] = arrays["node_player"].astype(np.int64)
    arrays["node_player"][1] = 300
    with pytest.raises(ValueError, match="outside the range of int8"):
        GameTree(**arrays)


def test_imperfect_recall_is_refused():
    # Player 0 acts, then acts again without remembering the first action.
    forget = ("decision", 0, "B", [(0, ("terminal", 1)), (1, ("terminal", 0))])
    root = ("decision", 0, "A", [(0, forget), (1, forget)])
    with pytest.raises(ValueError, match="perfect recall"):
        GameTree.from_nested(root, "forgetful")


def test_infoset_with_inconsistent_actions_is_refused():
    root = ("chance", [(0.5, ("decision", 0, "X", [(0, ("terminal", 1))])),
                       (0.5, ("decision", 0, "X", [(1, ("terminal", 1))]))])
    with pytest.raises(ValueError, match="different players or legal actions"):
        GameTree.from_nested(root, "bad")


def test_callable_keys_are_rendered_lazily():
    arrays = small_tree_arrays()
    calls = []

    def key_fn(i):
        calls.append(i)
        return f"infoset-{i}"

    arrays["infoset_keys"] = key_fn
    tree = GameTree(**arrays)
    assert calls == []
    assert tree.infoset_key(2) == "infoset-2"
    assert tree.infoset_index("infoset-1") == 1
    with pytest.raises(KeyError, match="no information set"):
        tree.infoset_index("missing")
    with pytest.raises(IndexError):
        tree.infoset_key(3)


def test_duplicate_keys_are_reported():
    arrays = small_tree_arrays()
    arrays["infoset_keys"] = ["same", "same", "other"]
    tree = GameTree(**arrays)
    with pytest.raises(ValueError, match="same key"):
        tree.infoset_index("other")


def _walk(state, counts, keys):
    if state.is_terminal():
        counts["terminal"] += 1
        return
    if state.is_chance_node():
        counts["chance"] += 1
        for action, _ in state.chance_outcomes():
            _walk(state.child(action), counts, keys)
        return
    counts["decision"] += 1
    keys.add(state.information_state_string())
    for action in state.legal_actions():
        _walk(state.child(action), counts, keys)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_from_openspiel_matches_a_recursive_walk(name, request):
    game, tree = request.getfixturevalue(name)
    counts, keys = {"terminal": 0, "chance": 0, "decision": 0}, set()
    _walk(game.new_initial_state(), counts, keys)
    assert tree.game_id == str(game)
    assert np.sum(tree.node_kind == 2) == counts["terminal"]
    assert np.sum(tree.node_kind == 1) == counts["chance"]
    assert np.sum(tree.node_kind == 0) == counts["decision"]
    tree_keys = {tree.infoset_key(i) for i in range(tree.num_infosets)}
    assert tree_keys == keys == set(policy_lib.TabularPolicy(game).state_lookup)
    parents = np.flatnonzero(tree.node_kind != 2)
    assert np.all(tree.child_start[parents] > parents)
    # Under uniform play the terminal probabilities sum to one.
    reach = np.ones(tree.num_nodes)
    for i in parents:
        c = slice(tree.child_start[i], tree.child_start[i] + tree.num_children[i])
        step = tree.chance_prob[c] if tree.node_kind[i] == 1 else 1.0 / tree.num_children[i]
        reach[c] = reach[i] * step
    assert abs(reach[tree.node_kind == 2].sum() - 1.0) < 1e-12


def test_from_openspiel_children_follow_legal_actions(kuhn):
    game, tree = kuhn
    state = game.new_initial_state()
    node = 0
    for action in [0, 1]:  # deal card 0 to player 0, card 1 to player 1
        outcomes = [a for a, _ in state.chance_outcomes()]
        node = tree.child_start[node] + outcomes.index(action)
        state = state.child(action)
    assert tree.node_kind[node] == 0
    info = tree.node_infoset[node]
    assert tree.infoset_key(info) == state.information_state_string()
    assert list(tree.actions(info)) == state.legal_actions()
    bet = tree.child_start[node] + 1
    assert tree.infoset_key(tree.node_infoset[bet]) == state.child(1).information_state_string()


@pytest.mark.parametrize("game_string, message", [
    ("matrix_rps", "not sequential"),
    ("sheriff", "not zero-sum"),
    ("tiny_hanabi", "not zero-sum"),
])
def test_unsupported_openspiel_games_are_refused(game_string, message):
    with pytest.raises(ValueError, match=message):
        GameTree.from_openspiel(pyspiel.load_game(game_string))


def test_estimate_bytes_matches_the_arrays(leduc):
    _, tree = leduc
    estimate = GameTree.estimate_bytes(tree.num_nodes, tree.num_infosets, tree.num_actions,
                                       tree.depth)
    assert estimate == tree.nbytes
    assert BYTES_PER_NODE == sum(getattr(tree, f).itemsize for f in (
        "node_kind", "node_player", "node_infoset", "child_start", "num_children",
        "chance_prob", "payoff"))
    assert BYTES_PER_INFOSET == sum(getattr(tree, f).itemsize for f in (
        "infoset_player", "infoset_num_actions", "infoset_offset"))
    with pytest.raises(ValueError, match="non-negative integer"):
        GameTree.estimate_bytes(-1, 0, 0)


def test_available_bytes_is_positive():
    available = solvers.memory.available_bytes()
    assert available is not None and available > 0


def test_check_fits_names_estimate_and_available(monkeypatch):
    monkeypatch.setattr(solvers.memory, "available_bytes", lambda: 1000)
    solvers.check_fits(1000, "a small thing")
    with pytest.raises(MemoryError) as info:
        solvers.check_fits(5000, "the big tree")
    text = str(info.value)
    assert "the big tree" in text and "5000 bytes" in text and "1000 bytes" in text


def test_builders_and_solver_refuse_before_allocating(monkeypatch, kuhn):
    game, tree = kuhn
    monkeypatch.setattr(solvers.memory, "available_bytes", lambda: 100)
    with pytest.raises(MemoryError, match="game tree of kuhn_poker"):
        GameTree.from_openspiel(game)
    with pytest.raises(MemoryError, match="solving kuhn_poker"):
        solvers.solve(tree, iterations=1, progress=False)


def test_estimate_solve_bytes_counts_per_action_state():
    from solvers.memory import (SOLVE_BYTES_PER_ACTION, SOLVE_BYTES_PER_CHANCE_EDGE,
                                SOLVE_BYTES_PER_INFOSET, SOLVE_BYTES_PER_NODE,
                                SOLVE_BYTES_PER_NONTERMINAL)
    base = solvers.estimate_solve_bytes(10, 2, 4, nonterminals=3, chance_edges=5)
    assert base == (10 * SOLVE_BYTES_PER_NODE + 3 * SOLVE_BYTES_PER_NONTERMINAL
                    + 2 * SOLVE_BYTES_PER_INFOSET + 4 * SOLVE_BYTES_PER_ACTION
                    + 5 * SOLVE_BYTES_PER_CHANCE_EDGE)
    # Unknown counts are bounded by the number of histories.
    assert solvers.estimate_solve_bytes(10, 2, 4) >= base
    # Predictive algorithms keep two more float64 per action; threads one per thread.
    assert solvers.estimate_solve_bytes(10, 2, 4, predictive=True, nonterminals=3,
                                        chance_edges=5) == base + 4 * 16
    assert solvers.estimate_solve_bytes(10, 2, 4, threads=2, nonterminals=3,
                                        chance_edges=5) == base + 4 * 16
    # float32 halves the reach but keeps a float64 value buffer for the evaluation.
    assert solvers.estimate_solve_bytes(10, 2, 4, precision="float32", nonterminals=3,
                                        chance_edges=5) == base + 10 * 4 - 3 * 4
    assert solvers.estimate_solve_bytes(10, 2, 4, updates="simultaneous", nonterminals=3,
                                        chance_edges=5) == base + 3 * 8
    # A cached layout is not counted again.
    assert solvers.estimate_solve_bytes(10, 2, 4, layout=False, nonterminals=3,
                                        chance_edges=5) < base
