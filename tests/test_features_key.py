"""The versions of the features key (coupsolve.sampling.keys): version 3 adds the claimant's earlier claims
of the character to a challenge round's key and changes no other key; a strategy file is read with the
keys of the version it was trained with."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import coupsolve
from coupsolve import engine as E
from coupsolve.engine.honest import claimed_character
from coupsolve.sampling import keys as SK
from coupsolve.sampling.game import sampling_game
from coupsolve.strategy.trained import key_of

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")

RULES = coupsolve.Rules(players=2)
CHALLENGES = (E.PH_CHALLENGE, E.PH_BLOCK_CHALLENGE)


def _keys_in_step(rng, games=(2, 3)):
    """One full-length game played at random through the features game of each key version in
    ``games`` at once (their moves are the same); per decision: the phase, the acting seat, each
    version's key of it and the number of times before the claimant of a challenge round claimed the
    character (counted here from the moves, -1 outside a challenge)."""
    init, player, moves, step, _ = SK.FEATURES
    gs = [sampling_game(RULES, "features", key=v) for v in games]
    P = gs[0].params
    states = [np.zeros(g.state_size, np.int32) for g in gs]
    hashes = [np.zeros((g.num_players, 2), np.uint64) for g in gs]
    for g, s, h in zip(gs, states, hashes):
        init(P, s, h, g.scratch)
    acts, probs = np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES)
    claims = np.zeros((RULES.players, E.NCH), np.int64)
    seen = []
    while (pl := player(P, states[0])) != -4:
        s = states[0]
        k = moves(P, s, acts, probs)
        if pl >= 0:
            ph, earlier = s[E.S_PHASE], -1
            if ph in CHALLENGES:
                who = s[E.S_BLOCKER] if ph == E.PH_BLOCK_CHALLENGE else s[E.S_ACTOR]
                earlier = int(claims[who, claimed_character(s, ph)]) - 1  # this claim is counted
            seen.append((int(ph), pl, [tuple(h[pl]) for h in hashes], earlier))
        j = rng.choice(k, p=probs[:k] / probs[:k].sum()) if pl < 0 else rng.integers(k)
        a = int(acts[j])
        if pl >= 0 and a < E.NUM_ACTIONS and E.ACTION_CLAIM[a] >= 0:
            claims[pl, E.CLAIM_CHAR[E.ACTION_CLAIM[a]]] += 1
        for g, s2, h in zip(gs, states, hashes):
            step(P, s2, h, a, g.scratch)
    return seen


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_version_3_adds_the_claimants_earlier_claims_to_a_challenge_key_and_nothing_else(seed):
    rng = np.random.default_rng(seed)
    of = {}  # (version 2's key, earlier claims, at most 2) -> version 3's key
    for _ in range(8):
        for ph, _, (two, three), earlier in _keys_in_step(rng):
            if ph not in CHALLENGES:
                assert two == three
                continue
            assert earlier >= 0
            assert of.setdefault((two, min(earlier, 2)), three) == three  # a function of them ...
            assert three != two
    by_two = {}
    for (two, earlier), three in of.items():
        by_two.setdefault(two, {})[earlier] = three
    for row in by_two.values():  # ... that tells the counts apart
        assert len(set(row.values())) == len(row)


def test_random_games_reach_challenges_of_claims_made_before():
    """The property above is tested where it matters: claims repeated once and twice or more."""
    rng = np.random.default_rng(5)
    counts = np.bincount([min(e, 2) for _ in range(30) for ph, _, _, e in _keys_in_step(rng, (3,))
                          if ph in CHALLENGES], minlength=3)
    assert (counts > 0).all(), counts


def test_key_versions_are_checked():
    assert np.array_equal(SK.field_scratch(), [1.0, 0.0, 0.0, 0.0, SK.KEY_VERSION])
    assert key_of(sampling_game(RULES, "features")) == SK.KEY_VERSION
    assert key_of(sampling_game(RULES, "features", key=2)) == 2 and key_of(sampling_game(RULES)) is None
    with pytest.raises(ValueError, match="versions 2, 3, not 4"):
        sampling_game(RULES, "features", key=4)
    with pytest.raises(ValueError, match="key version needs abstraction='features'"):
        sampling_game(RULES, key=2)


def test_the_older_shipped_blueprint_is_read_with_the_keys_it_was_trained_with():
    """``blueprint-v2`` was trained with version 2 (its path uniform): read with version 2's keys, its
    table holds every challenge round random play reaches; version 3's keys of the same decisions would
    find none. ``blueprint`` is read with version 3's."""
    from coupsolve.strategy.trained import key_version, load_trained
    from coupsolve.strategy.shipped import resolve

    assert key_of(load_trained(resolve("blueprint"))[1].game) == 3
    _, solver, meta = load_trained(resolve("blueprint-v2"))
    version, other = key_version(meta), 3
    assert version == 2 and key_of(solver.game) == version
    rng = np.random.default_rng(2)
    found = {version: [], other: []}
    for _ in range(40):
        for ph, pl, pair, _ in _keys_in_step(rng, (version, other)):
            if ph in CHALLENGES:
                for v, (key, check) in zip((version, other), pair):
                    found[v].append((key, check, pl))
    for v, rows in found.items():
        key, check, owner = (np.array(c) for c in zip(*rows))
        nact = np.full(len(rows), 2, np.int32)  # challenge or not
        hit = solver.find(key.astype(np.uint64), check.astype(np.uint64), owner.astype(np.int8), nact) >= 0
        found[v] = hit.mean()
    assert found[version] > 0.99 and found[other] < 0.01, found
