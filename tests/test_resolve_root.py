"""Where a re-solve is rooted (coupsolve.search.resolve.root_length): at the decision itself, or (root
"turn") at the start of the current turn or after the acting player's latest choice in it, so that the
opponent's moves since are re-solved, not taken at the blueprint's rates; and the belief at the
decision through the re-solve's strategy for those moves."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coupsolve import load_game
from coupsolve.search import ROOTS, SearchSettings, resolve, root_length
from tests.test_search import FULL, TAX, blueprint

pytestmark = pytest.mark.xdist_group("search")


def random_decisions(seed, most=60):
    """The decisions of one game of random legal moves (seeded), as (history, state) pairs."""
    rng = np.random.default_rng(seed)
    state, out = load_game(FULL).new_initial_state(), []
    while not state.is_terminal() and len(out) < most:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        out.append((list(state.history()), state.clone()))
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    return out


def prefixes(history):
    """The state after each prefix of ``history``."""
    state, out = load_game(FULL).new_initial_state(), []
    for a in history:
        out.append(state.clone())
        state.apply_action(a)
    return out + [state]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_the_root_is_the_turns_start_or_the_first_decision_after_the_players_choice(seed):
    """At every decision of a random game: the root is a decision of the current turn; the acting
    player makes no choice from there on; and the decision of the turn before it, if any, is that
    player's choice with only chance between (the latest root that allows, not an earlier one)."""
    for history, now in random_decisions(seed):
        r = root_length(FULL, history, "turn")
        assert root_length(FULL, history) == root_length(FULL, history, "here") == len(history)
        states = prefixes(history)
        me = now.current_player()
        root = states[r]
        assert 0 <= r <= len(history) and not root.is_chance_node() and not root.is_terminal()
        assert root.turn == now.turn
        for s in states[r:-1]:
            assert s.is_chance_node() or not (s.current_player() == me and len(s.legal_actions()) > 1)
        before = [s for s in states[:r] if not s.is_chance_node() and s.turn == now.turn]
        if before:
            assert before[-1].current_player() == me and len(before[-1].legal_actions()) > 1


def test_a_history_that_does_not_stop_at_a_decision_or_an_unknown_root_is_refused():
    with pytest.raises(ValueError, match="decision"):
        root_length(FULL, TAX[:2])  # the deal is due: chance
    with pytest.raises(ValueError, match="root is one of"):
        root_length(FULL, TAX, "there")
    assert ROOTS == ("here", "turn")


def test_the_answer_to_a_claim_re_solves_the_claim():
    """Player 1 answering player 0's Tax: the re-solve is rooted where player 0 chose it, so the
    subgame holds player 0's choice (its information sets at the root), and the move is one of the
    answer's; at the turn's start both roots are the same public state and give the same strategy."""
    from coupsolve.trees.stepwalk.build import sequence_hashes

    bp, small = blueprint(), SearchSettings(lookahead=1, rollouts=1, iterations=20, root="turn")
    r = resolve(bp, TAX, small)
    assert r.player == 1 and r.root.actions == tuple(TAX[:-1]) and r.root.player == 0
    state = load_game(FULL).new_initial_state()
    for a in TAX:
        state.apply_action(a)
    assert sorted(r.probabilities) == sorted(state.legal_actions())
    taxer = sequence_hashes(FULL, TAX[:-1])[0, 0]  # player 0's information set where it taxed
    assert taxer in set(r.game.coup_tree.infoset_hash.tolist())
    here = resolve(bp, TAX, small._replace(root="here"))
    assert here.root.actions == tuple(TAX) and here.root.player == 1
    root, expect = here.root, {}  # rooted here, the belief is the root's chance with the range
    w = root.chance[:, int(root.node.entry[root.node.target, 1])] * here.ranges[0]
    for hand, x in zip(root.hands(0), w / w.sum()):
        expect[hand] = expect.get(hand, 0.0) + x
    belief = here.belief(TAX)
    assert set(belief) <= set(expect) and all(abs(belief.get(h, 0.0) - x) < 1e-12 for h, x in expect.items())
    start = TAX[:-1]
    a, b = resolve(bp, start, small), resolve(bp, start, small._replace(root="here"))
    assert a.root.actions == b.root.actions == tuple(start)
    assert a.probabilities == b.probabilities



#: Player 0 to answer player 1's Tax in turn 10, after an Exchange: histories at that public state (and
#: at its turn's start) are of 26 to 28 moves, as a forced move is no move
LONG = [55, 56, 1, 2, 0, 2, 22, 17, 22, 26, 22, 2, 22, 3, 22, 8, 46, 4, 32, 0, 2, 22, 11, 22, 22, 2]


@pytest.mark.parametrize("history", [TAX, LONG], ids=["turn 1", "turn 10"])
def test_the_belief_after_a_claim_weighs_the_claim_by_the_re_solved_strategy(history):
    """The answering player's belief about the claimant's hand after its Tax, against a sum over the
    root's private states: chance with the answerer's own, times the claimant's range there, times the
    probability the re-solve gives the Tax at the claimant's information set of that hand (found by
    hash)."""
    from coupsolve.search.own import infoset_strategy
    from coupsolve.trees.stepwalk.build import sequence_hashes

    r = resolve(blueprint(), history, SearchSettings(lookahead=1, rollouts=1, iterations=20, root="turn"))
    me, you = r.player, 1 - r.player
    root, tree, coup = r.root, r.game.tree, r.game.coup_tree
    assert root.actions == tuple(history[:-1]) and root.player == you
    lengths = (root.node.paths >= 0).sum(axis=1)
    assert history is TAX or lengths.min() < lengths.max()  # the case a prefix of one length would miss
    mine = int(root.node.entry[root.node.target, me])
    prior, expect = {}, {}
    for i, (hand, path) in enumerate(zip(root.hands(you), root.private_paths(you))):
        h = sequence_hashes(FULL, [int(a) for a in path if a >= 0])[you, 0]
        k = int(np.flatnonzero(coup.infoset_hash == h)[0])
        w = (root.chance[mine, i] if me == 0 else root.chance[i, mine]) * r.ranges[you][i]
        prior[hand] = prior.get(hand, 0.0) + w
        expect[hand] = expect.get(hand, 0.0) + w * infoset_strategy(tree, r.result.average_policy, k)[history[-1]]
    total, before = sum(expect.values()), sum(prior.values())
    belief = r.belief(history)
    assert set(belief) <= set(expect) and abs(sum(belief.values()) - 1.0) < 1e-12
    for hand, x in expect.items():
        assert abs(belief.get(hand, 0.0) - x / total) < 1e-9
    assert max(abs(expect[h] / total - prior[h] / before) for h in expect) > 1e-3  # the Tax moved it
