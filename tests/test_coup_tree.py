"""The compiled Coup tree builder against OpenSpiel's own enumeration of the Python game."""

import numpy as np
import pytest

import coupsolve
from coupsolve import Rules
from coup_helpers import SMALL_RULES
from solvers.trees.gametree import GameTree
from solvers import Solver

SMALL = SMALL_RULES


# SMALL[0] is SMALL[1]'s tree paying a draw at the turn limit instead of the influence count: its
# OpenSpiel enumeration, one of the two slowest, runs in the slow set
@pytest.fixture(scope="module", params=[pytest.param(0, marks=pytest.mark.slow)] + list(range(1, len(SMALL))),
                ids=lambda i: str(SMALL[i]))
def both_trees(request):
    rules = SMALL[request.param]
    slow = GameTree.from_openspiel(coupsolve.load_game(rules))
    return rules, coupsolve.build_coup_tree(rules, context=False), slow


def test_same_tree_as_openspiel_enumeration(both_trees):
    rules, coup_tree, slow = both_trees
    fast = coup_tree.tree
    assert fast.num_nodes == slow.num_nodes
    assert fast.num_infosets == slow.num_infosets
    assert fast.num_actions == slow.num_actions
    assert np.array_equal(fast.level_start, slow.level_start)
    # the same multiset of payoffs and chance probabilities level by level
    for d in range(fast.depth + 1):
        lo, hi = fast.level_start[d], fast.level_start[d + 1]
        assert np.allclose(np.sort(fast.payoff[lo:hi]), np.sort(slow.payoff[lo:hi]))
        assert np.allclose(np.sort(fast.chance_prob[lo:hi]), np.sort(slow.chance_prob[lo:hi]))
        assert np.array_equal(np.sort(fast.node_kind[lo:hi]), np.sort(slow.node_kind[lo:hi]))


def test_infosets_are_the_observer_information_states(both_trees):
    rules, coup_tree, slow = both_trees
    fast = coup_tree.tree
    assert fast.game_id == slow.game_id
    # every information set of the fast tree renders to a distinct OpenSpiel key with the same
    # owner and legal actions as in OpenSpiel's enumeration
    for i in range(fast.num_infosets):
        j = slow.infoset_index(fast.infoset_key(i))
        assert fast.infoset_player[i] == slow.infoset_player[j]
        assert np.array_equal(fast.actions(i), slow.actions(j))
    # and the partition of decision nodes is the same: the histories of each infoset share its key
    rng = np.random.default_rng(0)
    decisions = np.flatnonzero(fast.node_kind == 0)
    for v in rng.choice(decisions, size=min(300, decisions.size), replace=False):
        state = coup_tree.state_at(int(v))
        key = state.information_state_string(state.current_player())
        assert fast.infoset_key(fast.node_infoset[v]) == key


def test_sizes_of_the_selection_setup_grow_with_the_turn_limit():
    counted = [coupsolve.count_tree(Rules.two_player_selection(turn_limit=t)) for t in (1, 2)]
    sizes = [size.nodes for size in counted]
    assert sizes[0] < sizes[1]
    tree = coupsolve.build_tree(Rules.two_player_selection(turn_limit=2), size=counted[1])
    assert tree.num_nodes == sizes[1]
    assert 2_000_000 < tree.num_nodes < 5_000_000  # "about 3 million histories"


def test_a_given_size_is_not_counted_again(monkeypatch):
    import coupsolve.trees.history.builder

    rules = Rules.two_player_selection(turn_limit=1)
    size = coupsolve.count_tree(rules)

    def no_second_count(_rules):
        raise AssertionError("counted twice")

    monkeypatch.setattr(coupsolve.trees.history.builder, "count_tree", no_second_count)
    coup_tree = coupsolve.build_coup_tree(rules, size=size)
    assert coup_tree.tree.num_nodes == size.nodes
    assert coup_tree.build_info["count_seconds"] == size.seconds
    with pytest.raises(ValueError, match="count_tree"):
        coupsolve.build_tree(rules.replace(limit_payoff="influence"), size=size)


def test_the_coup_tree_holds_a_bare_game_tree():
    rules = Rules.two_player_selection(turn_limit=1)
    coup_tree = coupsolve.build_coup_tree(rules)
    assert type(coup_tree.tree) is GameTree and not hasattr(coup_tree.tree, "rules")
    assert coup_tree.rules == rules and coup_tree.node_context.shape == (coup_tree.tree.num_nodes,)
    assert coup_tree.infoset_rep.shape == (coup_tree.tree.num_infosets,)
    assert coup_tree.build_info["histories"] == coup_tree.tree.num_nodes
    assert coupsolve.build_coup_tree(rules, context=False).node_context is None


def test_refuses_what_it_cannot_build(monkeypatch):
    three = coupsolve.build_tree(Rules.standard(players=3, turn_limit=1, characters="Duke+Captain"))
    with pytest.raises(ValueError, match="two-player"):  # built for NashConv, refused by CFR
        Solver(three)
    import solvers.memory
    monkeypatch.setattr(solvers.memory, "available_bytes", lambda: 1_000_000)
    with pytest.raises(MemoryError, match="game tree"):
        coupsolve.build_tree(Rules.two_player_selection(turn_limit=2))


LARGER_VARIANTS = [
    Rules.standard(players=2, turn_limit=2, characters="Duke+Captain+Contessa", copies=2, starting_coins="2,2",
                   contessa_blocks_tax=True, challenge_bounty=1, decline_proof=True),
    Rules.standard(players=2, turn_limit=2, characters="Duke+Ambassador+Contessa", copies=2, marked_cards=True),
    Rules.standard(players=2, turn_limit=2, characters="Duke+Assassin+Contessa", copies=2, starting_coins="7,7",
                   marked_cards=True, selective_coup=True, challenge_buyout=1),
]


@pytest.mark.slow
@pytest.mark.parametrize("rules", LARGER_VARIANTS, ids=str)
def test_larger_variant_trees_match_openspiel(rules):
    fast, slow = coupsolve.build_tree(rules), GameTree.from_openspiel(coupsolve.load_game(rules))
    assert (fast.num_nodes, fast.num_infosets, fast.num_actions) == (slow.num_nodes, slow.num_infosets,
                                                                      slow.num_actions)
    for i in range(0, fast.num_infosets, 7):
        j = slow.infoset_index(fast.infoset_key(i))
        assert np.array_equal(fast.actions(i), slow.actions(j))


def test_a_build_from_a_cached_count_compiles_before_its_progress():
    """A fill whose kernel is not yet compiled in the process (the count came from the cache) compiles
    it first, for the very types of the fill's call (one specialisation, not two), with its seconds
    kept apart from the fill's and no progress reported while it compiles."""
    import json
    import os
    import subprocess
    import sys

    rules = Rules.two_player_selection(turn_limit=1)
    size = coupsolve.count_tree(rules)
    fields = [size.nodes, size.decision_nodes, size.decision_children, size.levels.tolist(), size.seconds,
              size.infosets, size.infoset_actions, size.chance_nodes, size.chance_edges]
    script = f"""
import json, numpy as np
from coupsolve import Rules
from coupsolve.trees.history import builder as B
from coupsolve.trees.history.size import TreeSize
f = {json.dumps(fields)}
size = TreeSize(Rules.two_player_selection(turn_limit=1), f[0], f[1], f[2], np.array(f[3]), *f[4:])
assert not B._walk.signatures
calls = []
out, iset, counts, info = B.fill_tree(size.rules, size, progress=lambda d, n: calls.append(len(B._walk.signatures)))
print(json.dumps(dict(signatures=len(B._walk.signatures), compile=info["compile_seconds"],
                      fill=info["fill_seconds"], nodes=int(counts[0]), calls=calls)))
"""
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["signatures"] == 1 and got["nodes"] == size.nodes
    assert got["compile"] > 0 and got["fill"] >= 0
    assert all(c == 1 for c in got["calls"])  # any progress came after the compile
