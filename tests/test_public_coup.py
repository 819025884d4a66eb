"""Coup's public tree built from the engine against the history tree: by the history-stepping walk
(coupsolve.trees.stepwalk.build) and by the class walk (coupsolve.trees.classwalk.build), which must give the same
information sets, action lists, history counts, contexts and values."""

import functools
import time

import numpy as np
import pytest

import solvers.memory
from coupsolve import Rules, build_coup_tree
from coupsolve import engine as E
from coupsolve.trees.classwalk.build import build_class_tree
from coupsolve.trees.stepwalk.build import build_public_tree, count_public_tree, sequence_hashes
from solvers import CHANCE, DECISION, TERMINAL

from coup_helpers import SMALL_RULES, node_parents as _parents

TL1 = Rules.two_player_selection(turn_limit=1)
TL2 = Rules.two_player_selection(turn_limit=2)
CASES = [TL1, TL2, SMALL_RULES[1], SMALL_RULES[2], SMALL_RULES[3]]


BUILDERS = {"walk": build_public_tree, "class": build_class_tree}


@functools.lru_cache(maxsize=4)
def history_tree(rules):
    return build_coup_tree(rules)


def history_public_pair(rules, builder="walk"):
    """``(CoupTree, CoupPublicTree, perm)`` of ``rules``: ``perm`` maps the history tree's flat policy
    positions to the public tree's (``public_policy[perm]`` is the same policy on the history tree)."""
    history, public = history_tree(rules), BUILDERS[builder](rules)
    hashes = history.infoset_hashes()
    order = np.argsort(public.infoset_hash)
    j = order[np.searchsorted(public.infoset_hash[order], hashes)]
    assert np.array_equal(public.infoset_hash[j], hashes)
    T, P = history.tree, public.tree
    perm = np.concatenate([P.infoset_offset[j[i]] + np.arange(T.infoset_num_actions[i])
                           for i in range(T.num_infosets)])
    assert np.array_equal(P.infoset_actions[perm], T.infoset_actions)
    return history, public, perm


def _history_uniform_value(t):
    """Player 0's expected payoff on the history tree when both players play uniformly at random."""
    parent, _ = _parents(t.child_start, t.num_children, t.node_kind)
    reach = np.ones(t.node_kind.shape[0])
    for d in range(1, t.level_start.shape[0] - 1):
        v = np.arange(t.level_start[d], t.level_start[d + 1])
        p = parent[v]
        step = np.where(t.node_kind[p] == CHANCE, t.chance_prob[v], 1.0 / t.num_children[p])
        reach[v] = reach[p] * step
    term = t.node_kind == TERMINAL
    return float(np.sum(reach[term] * t.payoff[term]))


def _public_uniform_value(tree):
    """The same on the public tree: own reach per entry going down, the matrices at the terminals."""
    f = tree.flat
    n = f.node_kind.shape[0]
    parent, _ = _parents(f.child_start, f.num_children, f.node_kind)
    counts = np.diff(f.entry_start)
    node_of = np.repeat(np.arange(n), counts)
    local = np.arange(f.entry_start[-1]) - f.entry_start[node_of]
    player1 = local >= f.num_entries0[node_of]
    reach = np.ones(f.entry_start[-1])
    for d in range(1, f.level_start.shape[0] - 1):
        e = np.arange(f.entry_start[f.level_start[d]], f.entry_start[f.level_start[d + 1]])
        pn = parent[node_of[e]]
        pe = f.entry_start[pn] + np.where(player1[e], f.num_entries0[pn], 0) + f.entry_parent[e]
        acted = f.entry_slot[e] >= 0
        step = np.ones(e.shape[0])
        step[acted] = 1.0 / f.infoset_num_actions[f.entry_ref[pe[acted]]]
        reach[e] = reach[pe] * step
    total = 0.0
    for z in np.nonzero(f.node_kind == TERMINAL)[0]:
        U = tree.dense_matrix(f.term_matrix[z])
        b, n0, end = f.entry_start[z], f.num_entries0[z], f.entry_start[z + 1]
        sub = U[np.ix_(f.entry_ref[b:b + n0], f.entry_ref[b + n0:end])]
        total += f.term_scale[z] * (reach[b:b + n0] @ sub @ reach[b + n0:end])
    return total


def _case_id(rules):
    return f"{rules.setup}-tl{rules.turn_limit}-{rules.characters}"


@pytest.fixture(scope="module", params=[(r, b) for r in CASES for b in BUILDERS],
                ids=lambda rb: f"{_case_id(rb[0])}-{rb[1]}")
def both(request):
    rules, builder = request.param
    began = time.perf_counter()
    public = BUILDERS[builder](rules)
    seconds = time.perf_counter() - began
    return rules, history_tree(rules), public, seconds


def test_sizes_match_the_history_tree(both):
    rules, ct, pt, seconds = both
    t, p = ct.tree, pt.tree
    assert p.num_infosets == t.infoset_player.shape[0]
    assert p.num_actions == t.infoset_actions.shape[0]
    assert p.num_histories == int(np.count_nonzero(t.node_kind == DECISION))
    print(f"\n{rules}: {p.num_nodes:,} public nodes, {p.num_entries:,} entries, "
          f"{p.flat.matrix_data.shape[0]:,} matrix cells, {p.num_infosets:,} information sets, "
          f"{p.num_actions:,} actions, build {seconds:.2f} s, {pt.build_info['bytes']:,} bytes")


def test_information_sets_are_the_history_trees(both):
    rules, ct, pt, _ = both
    t, f = ct.tree, pt.tree.flat
    hashes = ct.infoset_hashes()
    assert np.array_equal(np.sort(hashes), np.sort(pt.infoset_hash))
    assert np.unique(hashes).shape[0] == hashes.shape[0]
    # each one's owner, action list and number of histories, matched by hash
    where = np.argsort(hashes)[np.searchsorted(np.sort(hashes), pt.infoset_hash)]
    assert np.array_equal(t.infoset_player[where], f.infoset_player)
    assert np.array_equal(t.infoset_num_actions[where], f.infoset_num_actions)
    counts = np.bincount(t.node_infoset[t.node_kind == DECISION], minlength=hashes.shape[0])
    assert np.array_equal(counts[where], f.infoset_count)
    for i in range(0, f.infoset_player.shape[0], max(1, f.infoset_player.shape[0] // 200)):
        j = where[i]
        mine = pt.tree.infoset_actions[f.infoset_offset[i]:][:f.infoset_num_actions[i]]
        theirs = t.infoset_actions[t.infoset_offset[j]:][:t.infoset_num_actions[j]]
        assert np.array_equal(mine, theirs)


def test_uniform_play_value_matches(both):
    _, ct, pt, _ = both
    assert abs(_public_uniform_value(pt.tree) - _history_uniform_value(ct.tree)) < 1e-12


def test_context_and_game_id(both):
    rules, ct, pt, _ = both
    assert pt.tree.game_id == ct.tree.game_id
    assert pt.infoset_context.dtype == ct.node_context.dtype
    assert pt.infoset_hash.dtype == np.uint64
    # every information set's context is the one its histories carry in the history tree
    hashes = ct.infoset_hashes()
    where = np.argsort(hashes)[np.searchsorted(np.sort(hashes), pt.infoset_hash)]
    theirs, mine = ct.node_context[ct.infoset_rep[where]], pt.infoset_context
    if "pairs" in pt.build_info:
        # the class walk takes the context of a decision on the opponent's claim (challenge, block,
        # block challenge) from another of its histories than the history tree's first one: only
        # whether the *claimant* holds the card may differ (a fact about the opponent, not about the
        # information set; the analysis reads the entries' hands for it)
        phase = mine & 15  # CTX_PHASE: bits 0-3
        fuzzy = np.isin(phase, [E.PH_CHALLENGE, E.PH_BLOCK, E.PH_BLOCK_CHALLENGE])
        bit = np.uint32(1 << E.CTX_HOLDS)
        theirs = np.where(fuzzy, theirs & ~bit, theirs)
        mine = np.where(fuzzy, mine & ~bit, mine)
    assert np.array_equal(theirs, mine)


def test_count_agrees_with_fill_and_reports_progress():
    seen = []
    size = count_public_tree(TL1, progress=lambda *a: seen.append(a))
    built = build_public_tree(TL1, size, progress=lambda *a: seen.append(a))
    assert {s[0] for s in seen} == {"count", "fill"}
    assert all(s[2] is None for s in seen if s[0] == "count")
    assert all(s[2] == size.histories for s in seen if s[0] == "fill")
    p = built.tree
    assert (p.num_nodes, p.num_entries, p.num_infosets) == (size.nodes, size.entries, size.infosets)
    # the tree keeps the non-zero cells of the count's dense matrices, and says what it holds
    assert 0 < p.flat.matrix_data.shape[0] <= size.cells and np.all(p.flat.matrix_data != 0)
    assert p.nbytes <= size.tree_bytes() + size.sparse_bytes()
    assert size.level_nodes.sum() == size.nodes and size.level_entries.sum() == size.entries
    assert "public nodes" in size.describe()


def test_refusals(monkeypatch):
    with pytest.raises(ValueError, match="two-player"):
        count_public_tree(Rules.standard(players=3, turn_limit=1))
    with pytest.raises(TypeError):
        count_public_tree("coup")
    size = count_public_tree(TL1)
    with pytest.raises(ValueError, match="these very rules"):
        build_public_tree(TL2, size)
    monkeypatch.setattr(solvers.memory, "available_bytes", lambda: 1000)
    with pytest.raises(MemoryError, match=r"needs an estimated .* but only .* is available"):
        build_public_tree(TL1, size)


def test_sequence_hashes():
    one = sequence_hashes(TL1, [54, 54])
    rows = sequence_hashes(TL1, np.array([[54, 54, -1], [54, -1, -1]]))
    assert one.shape == (2, 2) and rows.shape == (2, 2, 2)
    assert np.array_equal(rows[0], one) and not np.array_equal(rows[1], one)
    by_index = sequence_hashes(TL1, [0, 0], by_index=True)
    assert np.array_equal(by_index, one)
    with pytest.raises(ValueError, match="not legal"):
        sequence_hashes(TL1, [0])


@pytest.mark.slow
def test_turn_limit_3_matches_the_history_tree():
    rules = Rules.two_player_selection(turn_limit=3)
    began = time.perf_counter()
    pt = build_public_tree(rules)
    seconds = time.perf_counter() - began
    ct = build_coup_tree(rules)
    test_sizes_match_the_history_tree((rules, ct, pt, seconds))
    test_information_sets_are_the_history_trees((rules, ct, pt, seconds))
    test_uniform_play_value_matches((rules, ct, pt, seconds))


def test_class_walk_counts_what_it_builds_and_refuses_hidden_cards():
    from coupsolve.trees.classwalk.count import count_class_tree

    size = count_class_tree(TL1)
    built = build_class_tree(TL1)
    p = built.tree
    assert (p.num_nodes, p.num_entries, p.num_infosets, p.num_actions) == \
        (size.nodes, size.entries, size.infosets, size.actions)
    assert p.flat.matrix_data.shape[0] == size.pair_cells and size.decision_histories >= p.num_histories
    assert p.flat.row_ptr.shape[0] == size.row_entries
    held = p.nbytes + built.infoset_hash.nbytes + built.infoset_context.nbytes + \
        built.entry_hand.nbytes  # the count's bytes are the tree's, but for level_start and the
    assert 0 <= held - size.tree_bytes() <= 8 * (p.flat.level_start.shape[0] + 3)  # arrays' ends
    assert sum(p.dense_matrix(m).size for m in range(p.flat.matrix_cols.shape[0])) == size.cells
    assert size.level_nodes.sum() == size.nodes and size.level_entries.sum() == size.entries
    assert "class walk" in size.describe()
    # the marked cards' places are hidden from both players: no class holds them
    with pytest.raises(ValueError, match="marked cards"):
        build_class_tree(Rules.standard(players=2, turn_limit=1, marked_cards=True))


@pytest.mark.parametrize("rules", [r for r in SMALL_RULES if not (r.marked_cards or r.event_mat)],
                         ids=str)
def test_class_walk_steps_one_pair_per_bucket_of_the_seat_a_step_reads(rules):
    """At a decision the class walk steps one pair per bucket of the seat whose cards the step reads
    (coupsolve.engine.step_reads) and reuses it for the other pairs; stepping every pair (which also
    checks, per pair, that a seat not read keeps its class and learns nothing private) gives the
    same tree to the bit, for the variants too."""
    fast, full = build_class_tree(rules), build_class_tree(rules, every_pair=True)
    assert fast.build_info["pairs"] == full.build_info["pairs"] > 0
    for name, a, b in zip(fast.tree.flat._fields, fast.tree.flat, full.tree.flat):
        assert np.array_equal(a, b), name
    assert np.array_equal(fast.infoset_hash, full.infoset_hash)
    assert np.array_equal(fast.infoset_context, full.infoset_context)
    assert np.array_equal(fast.entry_hand, full.entry_hand)


@pytest.mark.parametrize("rules", SMALL_RULES[4:7], ids=str)
def test_class_walk_on_the_variants_is_the_history_tree(rules):
    """The variants' extra phases and events (Blocking Contessa, bounty, declined proofs, Selective
    Coup, buyouts, Factions, the halved steal) through the class walk: the same information sets,
    sizes and uniform-play value as the history tree."""
    case = (rules, history_tree(rules), build_class_tree(rules), 0.0)
    test_sizes_match_the_history_tree(case)
    test_information_sets_are_the_history_trees(case)
    test_uniform_play_value_matches(case)
