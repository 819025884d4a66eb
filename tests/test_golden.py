"""Golden digests: the engine and the tree builder produce exactly what they produced before.

The digests were computed with the code of commit 90f80e3, before the engine was split by phase. They
change only when the rules or the tree layout change on purpose, and such a commit says so. Covered:

- the flat trees of the card-selection setup at turn limit 2 (both limit payoffs) and of every small
  rule set that ``test_coup_tree`` checks against OpenSpiel's enumeration (every variant is in one);
- 100 seeded random engine games per rule set for 2 to 6 players with the variants, hashing every legal
  action list, chosen action, event buffer and state vector along the way.
"""

import hashlib

import numpy as np
import pytest

import coupsolve
from coupsolve import Rules
from coup_helpers import SMALL_RULES, random_engine_game

TREE_FIELDS = ("node_kind", "node_player", "node_infoset", "child_start", "num_children", "chance_prob",
               "payoff", "level_start", "infoset_player", "infoset_num_actions", "infoset_offset",
               "infoset_actions")

TREES = [
    (Rules.two_player_selection(turn_limit=2), "b1dc8949bd075333c320adae98d69afd8548a173a35cc8284360965c2c3962e9"),
    (Rules.two_player_selection(turn_limit=2, limit_payoff="influence"),
     "1e8e69045d798bb1441bf560d275aafe0d5abd087b82ed730fba717b617ccf00"),
] + list(zip(SMALL_RULES, (
    "27641906b1500e999d1b71ad1b11bbe7a86ad9b019ff2fc7511d3c481b4af79d",
    "adb8653cf3c545529a51844c5d6e70294fd1e664373d08bd41981e8f2e2152bb",
    "0448834d656b65d36fc64f4b3cbcbf5e22bc25dc35c03992ed5abfcc26ef6e69",
    "1ee412552b1d3d0709f690f3a860d388786a332c0120f3f29ac75957e7352e0f",
    "8099603ecedf4835ad6c95539be1d154205be6aff3e7b0191bd2707e9e3a29b7",
    "bc936113ad2e6bb745d7fc500385c50762c3da1f74258435c361c4e041585fb8",
    "aabb005fd184f2b1f686c154335f7453d5e288efb9dd7f357adcb673013dc9fe",
    "71fe830f7cbb4345bdb3c583b112abd43eaabf774ffc7d619b15192a84797a1c",
    "2bc70ef9566b42af16c52a440eecbc2be3fca2f200042ccafe5d5c5b6a27d97a",
    "3db18c5295548b50cde5afd525ecfb84d8a9c5071abf50432c677bdf8c77e932",
    "cdec1a7fce65e1eba8fee88d9f5c36080a39a7b5cac18b9e1786bff4d0b5ee56",
), strict=True))

_HOUSE = dict(starting_coins="0,1", ambassador_halves_steal=True, challenge_bounty=1, challenge_buyout=5,
              marked_cards=True, event_mat=True)
GAME_RULES = [
    Rules.standard(players=2, turn_limit=30),
    Rules.standard(players=3, turn_limit=30),
    Rules.standard(players=4, turn_limit=30),
    Rules.standard(players=6, turn_limit=30),
    Rules.standard(players=2, turn_limit=30, **_HOUSE),
    Rules.standard(players=3, turn_limit=30, **_HOUSE),
    Rules.standard(players=5, turn_limit=30, **_HOUSE),
    Rules.standard(players=4, turn_limit=30, selective_coup=True, factions=True, contessa_blocks_tax=True,
                   decline_proof=True),
    Rules.two_player_selection(turn_limit=30),
]
GAMES = list(zip(GAME_RULES, (
    "f84e70328b1d72479babd7226cd2036d221800ecc1250b2bf8678965f6615f69",
    "53d4a76e89cf8c43440b0daa70274d108a9d3b2ac931d362c6c9d4afe3fade40",
    "a940af11b21b5055d3d95c1de822cb7fe98e9699e6c48e98bbf4e19b56027064",
    "fcdd24b2c70d91cf819ffeb78a9da99023daa4dfab16dd7f7cef994bf848356f",
    "9a6cd5ac0bb21ae09b6939671e39ab2835dd397bdcb831ff9aae50d075986b25",
    "0113de0e48d674a7ec4dd4f46a5813abd8d16f36347922a61f5564c6ed5cc1c6",
    "5c43d4baa35c2c771d16803159b285e0812e9bb2dfb64d6133bcf01a5661dff6",
    "5d2e8a0a49e3e22ee6243cf27a7d730dde381465444c619633488fb3aa1315ad",
    "cd2ae48c2d9f9a0aac6abb0b502becf86e8ed89691f1c91ea7ef5dbc1f04bbd0",
), strict=True))


def tree_digest(tree) -> str:
    h = hashlib.sha256()
    for name in TREE_FIELDS:
        a = np.ascontiguousarray(getattr(tree, name))
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def games_digest(rules, games=100, seed=7) -> str:
    h = hashlib.sha256()

    def on_step(before, action, legal, after, events):
        h.update(np.int64(action).tobytes())
        h.update(legal.tobytes())
        h.update(after.tobytes())
        h.update(events.tobytes())

    for g in range(games):
        random_engine_game(rules, seed + g, on_step)
    return h.hexdigest()


@pytest.mark.parametrize("rules, digest", TREES, ids=[str(r) for r, _ in TREES])
def test_tree_arrays_are_unchanged(rules, digest):
    assert tree_digest(coupsolve.build_tree(rules)) == digest


@pytest.mark.parametrize("rules, digest", GAMES, ids=[str(r) for r, _ in GAMES])
def test_engine_games_are_unchanged(rules, digest):
    assert games_digest(rules) == digest
