"""The observer honours OpenSpiel's IIGObservationType: public only, one player, all players, recall or not."""

import itertools

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

import coupsolve
from coupsolve import Rules
from coupsolve import engine as E
from coupsolve.openspiel.observer import NUM_CODES
from coup_helpers import SMALL_RULES, histories, play, play_randomly

NONE = pyspiel.PrivateInfoType.NONE
SINGLE = pyspiel.PrivateInfoType.SINGLE_PLAYER
ALL = pyspiel.PrivateInfoType.ALL_PLAYERS
FLAGS = list(itertools.product((False, True), (False, True), (NONE, SINGLE, ALL)))  # recall, public, private

RULE_SETS = {
    "standard": Rules.standard(players=3, turn_limit=6),
    "selection": Rules.two_player_selection(turn_limit=4),
    "variants": Rules.standard(players=3, turn_limit=6, characters="Duke+Ambassador+Contessa+Assassin",
                               factions=True, event_mat=True, marked_cards=True, selective_coup=True,
                               decline_proof=True),
}
PRIVATE_PIECES = {"player", "hand", "hands", "exchange", "marked"}


def observer(game, recall, public, private):
    return make_observation(game, pyspiel.IIGObservationType(perfect_recall=recall, public_info=public,
                                                             private_info=private))


def view(obs, state, player):
    """(string, tensor copy) of what ``player`` sees through ``obs``."""
    obs.set_from(state, player)
    return obs.string_from(state, player), obs.tensor.copy()


@pytest.fixture(scope="module", params=list(RULE_SETS))
def game_states(request):
    """A game of each rule set and every state along a few seeded random games."""
    game = coupsolve.load_game(RULE_SETS[request.param])
    states = []
    for seed in range(4):
        end = play_randomly(game.new_initial_state(), np.random.default_rng(seed),
                            lambda s: states.append(s.clone()))
        states.append(end)
    return game, states


def public_facts(state):
    """The public facts of a state, read from its accessors (not from the observer)."""
    s = state.engine_state()
    return (state.phase, state.turn, state.current_player() if not state.is_terminal() else -9,
            tuple(state.coins), tuple(map(tuple, state.face_up)), tuple(state.influence),
            tuple(state.factions), tuple(state.event_flipped),
            tuple(tuple(state.marks(E.LOC_FACEUP + p)) for p in range(state.num_players_)),
            int(s[E.S_ACTION]), int(s[E.S_TARGET]), int(s[E.S_BLOCKER]), int(s[E.S_CHALLENGER]))


@pytest.mark.parametrize("recall", [False, True])
def test_public_only_and_all_players_views_are_the_same_for_every_player(game_states, recall):
    game, states = game_states
    for private in (NONE, ALL):
        obs = observer(game, recall, True, private)
        for state in states:
            first = view(obs, state, 0)
            for p in range(1, game.num_players()):
                other = view(obs, state, p)
                assert other[0] == first[0] and np.array_equal(other[1], first[1])


def test_public_observations_differ_between_states_that_differ_publicly(game_states):
    game, states = game_states
    obs = observer(game, False, True, NONE)
    seen = {}
    for state in states:
        string, tensor = view(obs, state, 0)
        seen.setdefault(public_facts(state), set()).add((string, tensor.tobytes()))
    assert all(len(v) == 1 for v in seen.values())  # a function of the public facts ...
    strings = [next(iter(v))[0] for v in seen.values()]
    tensors = [next(iter(v))[1] for v in seen.values()]
    assert len(set(strings)) == len(set(tensors)) == len(seen)  # ... telling all of them apart


def p1_exchanging(hand, drawn):
    """p0 holds Duke+Captain, p1 ``hand``; p1's Exchange drew ``drawn`` and p1 is to keep cards."""
    return play(Rules(), ["Deal Duke+Captain", f"Deal {hand}", "Income", "Exchange", "Pass", f"Draw {drawn}"])


def test_single_player_shows_own_private_info_and_not_the_opponents():
    a = p1_exchanging("Contessa+Contessa", "Duke+Assassin")
    b = p1_exchanging("Captain+Contessa", "Ambassador+Assassin")
    game = a.get_game()
    for recall, public in itertools.product((False, True), (False, True)):
        single = observer(game, recall, public, SINGLE)
        sa0, ta0 = view(single, a, 0)
        sb0, tb0 = view(single, b, 0)
        assert sa0 == sb0 and np.array_equal(ta0, tb0)  # p1's hand and draw are hidden from p0
        assert "Contessa" not in sa0 and "Draw" not in sa0.replace("drew", "")
        assert "Duke+Captain" in sa0 and single.dict["hand"].tolist() == [1, 0, 1, 0, 0]
        sa1, ta1 = view(single, a, 1)
        sb1, tb1 = view(single, b, 1)
        assert sa1 != sb1 and not np.array_equal(ta1, tb1)
        assert ("Contessa+Contessa" if recall else "hand Contessa+Contessa") in sa1
        assert ("p1 Draw Duke+Assassin" if recall else "drew Duke+Assassin") in sa1
        if not recall:
            view(single, a, 1)
            assert single.dict["exchange"].tolist() == [1, 1, 0, 0, 0]


def test_all_players_shows_every_hand_and_draw():
    a = p1_exchanging("Contessa+Contessa", "Duke+Assassin")
    game = a.get_game()
    for recall, public in itertools.product((False, True), (False, True)):
        every = observer(game, recall, public, ALL)
        string, _ = view(every, a, 0)
        assert "Duke+Captain" in string and "Contessa+Contessa" in string and "Duke+Assassin" in string
        assert every.dict["hands"].tolist() == [[1, 0, 1, 0, 0], [0, 0, 0, 0, 2]]
        if not recall:
            assert every.dict["exchange"].tolist() == [1, 1, 0, 0, 0]
    none = observer(game, False, True, NONE)
    string, _ = view(none, a, 1)
    assert "Contessa" not in string and "Duke" not in string and not PRIVATE_PIECES & set(none.dict)


def test_perfect_recall_refines_the_current_observation():
    """For every observation type showing anything, perfect recall groups histories more finely than the
    current observation (some histories reach the same current view by different paths), never more
    coarsely (the recalled sequence determines the current view)."""
    game = coupsolve.load_game(SMALL_RULES[2])
    states = [state for state, _, _ in histories(game)]
    for _, public, private in FLAGS[len(FLAGS) // 2:]:
        if not public and private == NONE:
            continue
        now, recall = observer(game, False, public, private), observer(game, True, public, private)
        current, finer = {}, 0
        for state in states:
            for p in range(game.num_players()):
                seen_now = view(now, state, p)
                seen = view(recall, state, p)
                key = (p, seen[0], seen[1].tobytes())
                assert current.setdefault(key, seen_now[0]) == seen_now[0], (public, private, key[1])
        by_now = {}
        for (p, recalled, _), seen_now in current.items():
            by_now.setdefault((p, seen_now), set()).add(recalled)
        finer = sum(len(v) > 1 for v in by_now.values())
        assert finer > 0, (public, private)


def test_without_public_info_nothing_public_is_shown(game_states):
    game, states = game_states
    for recall in (False, True):
        assert observer(game, recall, False, NONE).tensor.size == 0
        for private in (SINGLE, ALL):
            obs = observer(game, recall, False, private)
            assert set(obs.dict) <= PRIVATE_PIECES | {"events"}
            for state in states:
                for p in range(game.num_players()):
                    string, _ = view(obs, state, p)
                    sep = "; " if recall else " | "
                    for part in filter(None, string.removeprefix(f"p{p}: ").split(sep)):
                        _assert_private(part, recall, p if private == SINGLE else None)


def _assert_private(part, recall, player):
    """A part of a public_info=False string names a private fact of ``player`` (any seat when None)."""
    words = part.split(" ")
    if player is not None and not recall and words[0] != f"p{player}":
        words = [f"p{player}"] + words  # the single player's parts follow their seat
    assert words[0] == f"p{player}" if player is not None else words[0].startswith("p"), part
    private = ("Deal", "Draw", "Choose", "Keep", "shows", "marked:") if recall else ("hand", "drew", "marked")
    assert part == f"p{player}" or words[1] in private, part


def _revealed(before, after):
    """The cards turned face up between two states, as (seat, 'Lose' name) pairs, and the event-mat flips."""
    out = []
    for p in range(after.num_players_):
        cards = list(after.face_up[p])
        for c in before.face_up[p]:
            cards.remove(c)
        marked = [m for m in after.marks(E.LOC_FACEUP + p) if m not in before.marks(E.LOC_FACEUP + p)]
        for m in marked:
            cards.remove(m.split(" (")[0])
        out += [(p, f"Lose {c}") for c in sorted(cards + marked)]
    flips = list(after.event_flipped)
    for c in before.event_flipped:
        flips.remove(c)
    marked = [m for m in after.marks(E.LOC_EVENT_UP) if m not in before.marks(E.LOC_EVENT_UP)]
    for m in marked:
        flips.remove(m.split(" (")[0])
    return out + [(-1, f"Flip {c}") for c in sorted(flips + marked)]


def public_event_key(path, states):
    """The public events of a history, computed from its action names and states' public facts alone.

    A forced step (one legal choice or outcome) is taken inside the step before it, so the same public
    events can come from paths of different lengths: losses and event-mat flips are read from the
    face-up cards (the chosen one first when the step was a decision), every other step gives its
    public label (how many cards a deal or draw took, not which; a proof decision only by its outcome).
    """
    key = []
    for (player, name), before, after in zip(path, states, states[1:]):
        verb, _, rest = name.partition(" ")
        revealed = _revealed(before, after)
        if player < 0 and verb in ("Deal", "Draw"):
            key.append((verb, rest.count("+") + 1))
        elif verb in ("Keep", "Choose"):
            key.append((player, verb))
        elif (player, name) in revealed:
            revealed.remove((player, name))
            key.append((player, name))
        elif verb not in ("Lose", "Flip", "Events", "Prove", "Decline"):
            key.append((player, name))
        key += revealed
    return tuple(key), public_facts(states[-1])


@pytest.mark.parametrize("index", [2, 3, 4, 5, 6, 7, 8, 9])
def test_public_observation_history_groups_histories_by_their_public_events(index):
    game = coupsolve.load_game(SMALL_RULES[index])
    obs = observer(game, True, True, NONE)
    by_observer, by_events, pairs = {}, {}, []
    after = {(): game.new_initial_state()}
    for state, _, path in histories(game):
        after[path] = state
        string, tensor = view(obs, state, 0)
        for p in range(1, game.num_players()):  # one public history, whoever looks
            other = view(obs, state, p)
            assert other[0] == string and np.array_equal(other[1], tensor)
        key = public_event_key(path, [after[path[:i]] for i in range(len(path) + 1)])
        pairs.append(((string, tensor.tobytes()), key))
    for mine, theirs in pairs:
        by_observer.setdefault(mine, set()).add(theirs)
        by_events.setdefault(theirs, set()).add(mine)
    assert all(len(v) == 1 for v in by_observer.values())
    assert all(len(v) == 1 for v in by_events.values())
    assert len(by_observer) > 10


@pytest.mark.parametrize("players,turn_limit,variants", [(2, 1, False), (3, 5, True), (6, 100, False)])
def test_information_state_tensor_is_one_hot_events_of_a_documented_size(players, turn_limit, variants):
    extra = dict(factions=True, marked_cards=True, event_mat=True) if variants else {}
    rules = Rules.standard(players=players, turn_limit=turn_limit, **extra)
    game = coupsolve.load_game(rules)
    n, L = players, game.max_events
    assert game.information_state_tensor_size() == n + E.NCH + L * (n + NUM_CODES)
    assert L >= game.max_game_length()
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    obs = observer(game, True, True, SINGLE)
    state = play_randomly(game.new_initial_state(), np.random.default_rng(3))
    for p in range(n):
        assert np.array_equal(state.information_state_tensor(p), view(obs, state, p)[1])
        rows = obs.dict["events"]
        used = rows.sum(axis=1)
        tokens = obs.tokens(state, p)
        assert set(used.tolist()) <= {0.0, 2.0} and (used > 0).sum() == len(tokens) and used[:len(tokens)].all()
        seats = rows[:len(tokens), :n].argmax(axis=1)
        codes = rows[:len(tokens), n:].argmax(axis=1)
        assert ((seats + 1) * E.TOKEN_SEAT + codes).tolist() == tokens


def test_observation_tensor_carries_the_variants_state():
    game = coupsolve.load_game(RULE_SETS["variants"])
    states = []
    for seed in range(4):
        states.append(play_randomly(game.new_initial_state(), np.random.default_rng(seed),
                                    lambda s: states.append(s.clone())))
    r = game.rules
    assert not {"factions", "event_flipped", "marked", "marked_face_up"} & set(
        observer(coupsolve.load_game(RULE_SETS["standard"]), False, True, SINGLE).dict)
    obs = observer(game, False, True, SINGLE)
    n = game.num_players()
    for state in states:
        view(obs, state, 0)
        d = obs.dict
        assert ("factions" in d) == r.factions and ("event_flipped" in d) == bool(r.event_mat)
        assert ("marked_face_up" in d) == ("marked" in d) == r.marked_cards
        if r.factions:
            assert d["factions"].tolist() == [float(f == "Down") for f in state.factions]
        if r.event_mat:
            assert d["event_flipped"].sum() == len(state.event_flipped)
        if r.marked_cards:
            up = sum(len(state.marks(E.LOC_FACEUP + p)) for p in range(n)) + len(state.marks(E.LOC_EVENT_UP))
            assert d["marked_face_up"].sum() == up
            keeping = state.phase == E.PH_KEEP and state.engine_state()[E.S_ACTOR] == 0
            assert d["marked"].sum() == len(state.marks(E.LOC_HAND)) + keeping * len(state.marks(E.LOC_POOL))


