"""The "features" information-set abstraction of Coup for :mod:`solvers.mccfr.solver` (imperfect recall).

The exact keys of :mod:`coupsolve.sampling.game` hash a player's whole observation sequence, so a
full-length game (turn limit 100) has more information sets than any table holds. Here the acting
player's key is instead hashed from what that player can act on now:

* always: the player's seat (mixed in as a token: ``HASH_SEED + seat``, as the exact keys seed,
  collides with small tokens), the phase and the legal actions (so that a key always has one owner and
  one number of actions: the table's perfect-recall check, ``ERR_RECALL``, still holds);
* in a challenge round (of an action or of a block): only the claimed character, the copies of it the
  player sees (own face-down and every face-up: card counting), the influence of the player and of
  the claimant and (version 3) how many times before the claimant claimed this character (0, 1, 2 or
  more: a claim made again and again is more often true). A challenge is the decision every claim
  meets, so it gets few keys, each seen often;
* every other decision: the player's own face-down cards, its coins (in the buckets of
  ``COIN_BUCKET``: 0, 1-2, 3-6, 7-9, 10 or more) and the number of players still in, and
* at the start of a turn: every opponent's influence, in seat order after the player, and the coins
  of the richest opponent still in, in the buckets of ``TURN_COINS`` (0-2, 3-6, 7 or more);
* in a block or loss round and at an Exchange's keep: the turn's actor (relative to the player), its
  declared action, whether the player is the target, the block's character, why a loss is taken
  (``S_AFTER``); the claimant of the open claim (the blocker, else the actor): its influence, coins
  (bucketed), the character it claimed most recently and whether it has ever claimed the Duke; the
  face-up copies of the claimed character; the two drawn cards at the player's own Exchange keep.

The history features (most recent claim, a Duke ever claimed, the claims of each character) are kept
in the state beside the engine's fields (``X_LAST``, ``X_DUKE``, ``X_CLAIMS``).

**The training field.** The features game can seat baseline bots: the scratch's last array
(:func:`field_scratch`) gives the share of seats played by HonestBot (:mod:`coupsolve.engine.honest`) and by
RandomBot. At the start of each game one chance move per seat draws who plays it (``X_MODEL``); a bot's
decisions are then chance moves (HonestBot's with probability 1), so any MCCFR kernel trains the
strategy against a field of itself and the bots, unchanged. The draws change no key: with no bots (the
default) there are no draws, and the game replays OpenSpiel histories as before. The same array
carries the warm start of probing (:mod:`solvers.mccfr.probe`): with one, the trained strategy's
decisions give HonestBot's move as their prior, so a new information set starts at the honest move.

The turn number, the order of past events, the opponents' coins outside the start of a turn and
most of their claims are not in the key. Two histories a player can tell apart may therefore share a
key: the abstraction has imperfect recall,
and MCCFR over it has no equilibrium guarantee (its average strategy is a heuristic strategy of the
full game, to be measured, e.g. head to head by :mod:`coupsolve.evaluation.arena`). The base game only: rules
with a variant are refused (the variants' state is not in the key).

Only the acting player's row of the hashes ``h`` is kept up to date (the kernels read no other). The
state is the engine's ``int32[S_SIZE]`` followed by ``X_SIZE - S_SIZE`` entries of its own; the engine
never reads past ``S_SIZE``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.mccfr import external as EXT
from solvers.mccfr import kernel as K
from solvers.mccfr import outcome as O
from solvers.mccfr import probe as R

from coupsolve import engine as E
from coupsolve.engine.honest import claimed_character, face_up_copies, honest_choice, seen_copies
from coupsolve.engine.hashing import HASH_MUL, HASH_SEED, mix
from coupsolve.sampling.steps import coup_moves, coup_returns
from coupsolve.engine.tables import ACTION_CLAIM, CLAIM_CHAR, DUKE, MAXP, NCH, NUM_ACTIONS

__all__ = ["FEATURES", "KEY_VERSION", "KEY_VERSIONS", "X_SIZE", "record_claim", "rekey", "COIN_BUCKET", "feature_key",
           "field_scratch", "FIELD_BOTS"]

X_LAST = E.S_SIZE  # + p: the character seat p claimed most recently + 1 (0: none yet)
X_DUKE = X_LAST + MAXP  # + p: 1 once seat p has claimed the Duke (Tax or Block Foreign Aid)
X_CLAIMS = X_DUKE + MAXP  # + NCH * p + c: how many times seat p claimed character c (at most 3; version 3)
X_MODEL = X_CLAIMS + MAXP * NCH  # + p: who plays seat p in this game of the training field (FIELD_*)
X_CURSOR = X_MODEL + MAXP  # the next seat whose player the field draws (players: all drawn)
X_FIELD = X_CURSOR + 1  # + m: the field's probability of FIELD_* m, in millionths
X_PRIOR = X_FIELD + 3  # 1: a decision of the trained strategy gives HonestBot's move as its prior
X_KEY = X_PRIOR + 1  # the version of the key this game computes (KEY_VERSIONS)
X_SIZE = X_KEY + 1
#: The version of :func:`feature_key` a new training keys by; strategy files record theirs, and the
#: game reads a file with the keys of its version (any of ``KEY_VERSIONS``; another is refused: its keys
#: would look up other information sets). 2: the seat mixed in, the coarse challenge and turn keys.
#: 3: a challenge round's key also counts the claimant's earlier claims of the character.
KEY_VERSION = 3
KEY_VERSIONS = (2, 3)
FIELD_FREE, FIELD_HONEST, FIELD_RANDOM = 0, 1, 2  # the strategy being trained, HonestBot, RandomBot
FIELD_WARM, FIELD_KEY = 3, 4  # the field array's last entries: the warm start's regret (0: none), the key's version
FIELD_BOTS = ("honest", "random")  # field_scratch's keywords, FIELD_HONEST and FIELD_RANDOM
_MILLION = 1_000_000
# coins -> bucket: 0 | 1-2 | 3-6 (can Assassinate) | 7-9 (can Coup) | 10 or more (must Coup)
COIN_BUCKET = np.array([0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4], dtype=np.int32)
# an opponent's coins at the start of a turn -> 0-2 (nothing to fear) | 3-6 (can Assassinate) | 7 or more
TURN_COINS = np.array([0, 0, 0, 1, 1, 1, 1, 2], dtype=np.int32)


@njit(cache=True, inline="always")
def _mix2(a, tok):
    a[0] = mix(a[0], tok, HASH_MUL[0])
    a[1] = mix(a[1], tok, HASH_MUL[1])


@njit(cache=True)
def _coins(s, q):
    return COIN_BUCKET[min(s[E.S_COINS + q], COIN_BUCKET.shape[0] - 1)]


@njit(cache=True)
def feature_key(P, s, p, acts, k, out):
    """The two hashes of seat ``p``'s features at the decision ``s`` (legal actions ``acts[:k]``)
    into ``out`` (uint64, (2,)); the features are listed in the module docstring."""
    out[0] = HASH_SEED[0]  # not HASH_SEED + p, as the exact keys: (seed + p) ^ a small token collides
    out[1] = HASH_SEED[1]  # for two seats p and small tokens, in the low bits, before any multiply
    _mix2(out, p)
    ph = s[E.S_PHASE]
    _mix2(out, ph)
    if ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE:
        _challenge_key(P, s, p, ph, out)
    else:
        _situation_key(P, s, p, ph, out)
    _mix2(out, k)
    for a in range(k):
        _mix2(out, acts[a])


@njit(cache=True)
def _challenge_key(P, s, p, ph, out):
    """A challenge round's features: the claimed character, the copies of it the player sees (own
    face-down and every face-up), the player's influence and the claimant's; version 3: how many
    times before the claimant claimed it (0, 1, 2 or more; this claim is recorded already)."""
    claim = claimed_character(s, ph)
    who = s[E.S_BLOCKER] if ph == E.PH_BLOCK_CHALLENGE else s[E.S_ACTOR]
    _mix2(out, claim)
    _mix2(out, seen_copies(P, s, p, claim) if claim >= 0 else -1)
    _mix2(out, E.influence(s, p))
    _mix2(out, E.influence(s, who) if who >= 0 else -1)
    if s[X_KEY] >= 3 and who >= 0 and claim >= 0:
        _mix2(out, min(s[X_CLAIMS + NCH * who + claim] - 1, 2))


@njit(cache=True)
def _situation_key(P, s, p, ph, out):
    """Every other decision's features (the module docstring)."""
    n = P[E.P_PLAYERS]
    for c in range(NCH):
        _mix2(out, s[E.S_HAND + NCH * p + c])
    _mix2(out, _coins(s, p))
    _mix2(out, E.num_living(P, s))
    if ph == E.PH_TURN:  # every opponent's influence, in seat order after p; the richest one's coins
        richest = 0
        for j in range(1, n):
            q = (p + j) % n
            infl = E.influence(s, q)
            _mix2(out, infl)
            if infl > 0:
                richest = max(richest, s[E.S_COINS + q])
        _mix2(out, TURN_COINS[min(richest, TURN_COINS.shape[0] - 1)])
    else:  # the turn's context and the claimant of the open claim
        actor = s[E.S_ACTOR]
        _mix2(out, (actor - p) % n)
        _mix2(out, s[E.S_ACTION])
        _mix2(out, s[E.S_TARGET] == p)
        _mix2(out, s[E.S_BLOCK_CHAR] + 1)
        _mix2(out, s[E.S_AFTER] if ph == E.PH_LOSE else -1)
        who = s[E.S_BLOCKER] if s[E.S_BLOCKER] >= 0 else actor
        claim = s[E.S_BLOCK_CHAR] if s[E.S_BLOCKER] >= 0 else -1
        if claim < 0 and s[E.S_ACTION] >= 0 and ACTION_CLAIM[s[E.S_ACTION]] >= 0:
            claim = CLAIM_CHAR[ACTION_CLAIM[s[E.S_ACTION]]]
        if who >= 0:
            _mix2(out, E.influence(s, who))
            _mix2(out, _coins(s, who))
            _mix2(out, s[X_LAST + who])
            _mix2(out, s[X_DUKE + who])
        _mix2(out, face_up_copies(P, s, claim) if claim >= 0 else -1)  # card counting
        if ph == E.PH_KEEP and actor == p:
            for c in range(NCH):
                _mix2(out, s[E.S_POOL + c])


@njit(cache=True)
def rekey(P, s, h, W):
    """The acting player's row of ``h`` from the features of ``s`` (nothing at chance or the end)."""
    buf = W[1]
    if E.is_terminal(s) or E.is_chance(s):
        return
    p = E.current_player(s)
    feature_key(P, s, p, buf, E.legal_actions(P, s, buf), h[p])


@njit(cache=True)
def features_init(P, s, h, W):
    """The initial state (after its forced steps), the history features cleared, the field's
    probabilities (``W[3]``, see :func:`field_scratch`) recorded, the actor's key."""
    ev, buf, prob, field = W
    E.initial_state(P, s, ev, buf, prob)
    s[E.S_SIZE:] = 0
    s[X_FIELD + FIELD_HONEST] = int(round(field[FIELD_HONEST] * _MILLION))
    s[X_FIELD + FIELD_RANDOM] = int(round(field[FIELD_RANDOM] * _MILLION))
    s[X_FIELD + FIELD_FREE] = _MILLION - s[X_FIELD + FIELD_HONEST] - s[X_FIELD + FIELD_RANDOM]
    s[X_CURSOR] = 0 if s[X_FIELD + FIELD_FREE] < _MILLION else P[E.P_PLAYERS]
    s[X_PRIOR] = 1 if field[FIELD_WARM] > 0.0 else 0
    s[X_KEY] = int(field[FIELD_KEY])
    rekey(P, s, h, W)


@njit(cache=True)
def features_player(P, s):
    """The seat to act; -1 at chance, at the field's draws and at a seat a bot plays; -4 at the end."""
    if s[X_CURSOR] < P[E.P_PLAYERS]:
        return K.CHANCE
    p = E.current_player(s)
    return K.CHANCE if p >= 0 and s[X_MODEL + p] != FIELD_FREE else p


@njit(cache=True)
def features_moves(P, s, out, prob):
    """The engine's moves, except at the field's draws (who plays the next seat) and at a seat a bot
    plays (the bot's action distribution, as chance). At a decision of the trained strategy the
    probabilities are its prior (read by a warm start only): HonestBot's move with a warm start,
    else uniform."""
    if s[X_CURSOR] < P[E.P_PLAYERS]:
        for m in range(3):
            out[m] = m
            prob[m] = s[X_FIELD + m] / _MILLION
        return 3
    if E.is_chance(s) or E.is_terminal(s):
        return coup_moves(P, s, out, prob)
    k = E.legal_actions(P, s, out)
    model = s[X_MODEL + E.current_player(s)]
    if model == FIELD_HONEST:
        out[0] = out[honest_choice(P, s, out, k)]
        prob[0] = 1.0
        return 1
    if model == FIELD_FREE and s[X_PRIOR]:
        honest = honest_choice(P, s, out, k)
        for j in range(k):
            prob[j] = 1.0 if j == honest else 0.0
        return k
    for j in range(k):
        prob[j] = 1.0 / k
    return k


@njit(cache=True, inline="always")
def record_claim(s, p, c):
    """Record in the features entries of ``s`` that seat ``p`` claimed character ``c``: its most
    recent claim, whether it ever claimed the Duke and (version 3) how many times it claimed ``c``."""
    s[X_LAST + p] = c + 1
    if c == DUKE:
        s[X_DUKE + p] = 1
    if s[X_KEY] >= 3:
        s[X_CLAIMS + NCH * p + c] = min(s[X_CLAIMS + NCH * p + c] + 1, 3)


@njit(cache=True)
def features_step(P, s, h, a, W):
    """A field draw recorded; or: record a claim made by ``a``, apply it and its forced steps, key the
    next actor."""
    ev, buf, prob = W[0], W[1], W[2]
    if s[X_CURSOR] < P[E.P_PLAYERS]:
        s[X_MODEL + s[X_CURSOR]] = a
        s[X_CURSOR] += 1
        return
    if not (E.is_terminal(s) or E.is_chance(s)) and a < NUM_ACTIONS and ACTION_CLAIM[a] >= 0:
        p = E.current_player(s)
        record_claim(s, p, CLAIM_CHAR[ACTION_CLAIM[a]])
    E.apply(P, s, a, ev, 0, buf, prob)
    rekey(P, s, h, W)


FEATURES = (features_init, features_player, features_moves, features_step, coup_returns)


def field_scratch(honest=0.0, random=0.0, warm_start=0.0, key=KEY_VERSION):
    """The field's probabilities, the warm start and the key's version (float64, (5,): the trained
    strategy, HonestBot, RandomBot, ``warm_start``, ``key``) that a features game's scratch ends with:
    each seat of each training game is played by HonestBot with probability ``honest``, by RandomBot
    with probability ``random``, else by the strategy being trained (all of them by default: plain
    self-play, and no draws); with ``warm_start > 0`` the strategy's decisions give HonestBot's move as
    their prior (:func:`features_moves`); the keys are those of version ``key`` (``KEY_VERSIONS``)."""
    if key not in KEY_VERSIONS:
        raise ValueError(f"the features key has versions {', '.join(map(str, KEY_VERSIONS))}, not {key!r}")
    honest, random, warm_start = float(honest), float(random), float(warm_start)
    if not (0.0 <= honest and 0.0 <= random and honest + random < 1.0):
        raise ValueError(f"the field's bot shares must be at least 0 and leave the trained strategy a "
                         f"share: honest {honest:g} + random {random:g} must be below 1")
    if not 0.0 <= warm_start < float("inf"):
        raise ValueError(f"the warm start must be a regret of at least 0, got {warm_start:g}")
    return np.array([1.0 - honest - random, honest, random, warm_start, key], np.float64)


# The kernels bound to the features (cached here; see solvers.mccfr.kernel on why).
@njit(cache=True)
def run_iterations(P, W, table, regret, avg, rng, stats, count, plus, linear, max_depth, state_size,
                   max_moves):
    """``solvers.mccfr.external.run_iterations`` for Coup's features."""
    return EXT.run_iterations(FEATURES, P, W, table, regret, avg, rng, stats, count, plus, linear,
                            max_depth, state_size, max_moves)


@njit(cache=True)
def replay_keys(P, W, moves_taken, n, state_size, max_moves, out):
    """``solvers.mccfr.kernel.replay_keys`` for Coup's features."""
    return K.replay_keys(FEATURES, P, W, moves_taken, n, state_size, max_moves, out)


@njit(cache=True)
def tree_infoset_keys(P, W, n, state_size, max_moves, max_depth, node_infoset, node_player,
                      child_start, num_children, keys, checks):
    """``solvers.mccfr.kernel.tree_infoset_keys`` for Coup's features."""
    return K.tree_infoset_keys(FEATURES, P, W, n, state_size, max_moves, max_depth, node_infoset,
                               node_player, child_start, num_children, keys, checks)


@njit(cache=True)
def run_outcome(P, W, table, regret, avg, rng, stats, count, plus, linear, eps, max_depth,
                state_size, max_moves):
    """``solvers.mccfr.outcome.run_outcome`` for Coup's features."""
    return O.run_outcome(FEATURES, P, W, table, regret, avg, rng, stats, count, plus, linear, eps,
                         max_depth, state_size, max_moves)


@njit(cache=True)
def run_probe(P, W, table, regret, avg, rng, stats, count, plus, linear, prior, explore, max_depth,
              state_size, max_moves):
    """``solvers.mccfr.probe.run_probe`` for Coup's features."""
    return R.run_probe(FEATURES, P, W, table, regret, avg, rng, stats, count, plus, linear, prior,
                       explore, max_depth, state_size, max_moves)


KERNELS = (run_iterations, replay_keys, tree_infoset_keys, run_outcome, run_probe)
