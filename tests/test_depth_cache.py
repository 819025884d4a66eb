"""The cache of leaf values played by rollouts (coupsolve.depth.cache): a second build of the same cut
game reads them instead of playing them again, with the very same arrays; another seed, blueprint or
number of continuations is another entry; a damaged file, or one whose arrays do not fit the game, is
ignored in one line and the values are played again."""

import os

import numpy as np
import pytest

from coupsolve import build_coup_tree
from coupsolve.depth.build import leaf_values
from coupsolve.depth.cache import key_of, remember_values
from coupsolve.sampling.keys import KEY_VERSION
from tests.test_search import FULL, blueprint

pytestmark = pytest.mark.xdist_group("search")
TL1 = FULL.replace(turn_limit=1)


@pytest.fixture(scope="module")
def cut():
    return build_coup_tree(TL1, leaves=True)


def opened():
    bp = blueprint()
    return "trained", (FULL, bp.solver, {"rules": FULL.to_dict(), "abstraction": "features",
                                     "features_key": KEY_VERSION})


def values(cut, source, said, k=2, seed=3, cache=True):
    return leaf_values(cut, str(source), k, rollouts=2, seed=seed, opened=opened(), say=said.append, threads=1,
                       cache=cache)


def same(a, b):
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("leaves", "values", "stderr", "row_of")) \
        and a.continuations == b.continuations and a.states == b.states


def cache_files():
    folder = os.environ["COUPSOLVE_CACHE_DIR"]
    return sorted(f for f in os.listdir(folder) if f.startswith("leaf-values-")) if os.path.isdir(folder) else []


def test_a_second_build_reads_the_values_kept_and_another_key_plays_them(cut, tmp_path):
    source = tmp_path / "bp.npz"
    source.write_bytes(b"a blueprint's bytes")
    said = []
    first = values(cut, source, said)
    assert any("states in" in s for s in said) and len(cache_files()) == 1
    assert any("kept them for the next build" in s and cache_files()[0] in s for s in said)
    said.clear()
    again = values(cut, source, said)
    assert any("read from the cache" in s for s in said) and same(first, again)
    said.clear()
    other = values(cut, source, said, seed=4)  # another seed: played, and kept apart
    assert not any("read from the cache" in s for s in said) and len(cache_files()) == 2
    assert not np.array_equal(other.values, first.values)
    values(cut, source, said, k=1)
    source.write_bytes(b"another blueprint's bytes")  # another digest: played again
    said.clear()
    values(cut, source, said)
    assert not any("read from the cache" in s for s in said) and len(cache_files()) == 4
    said.clear()
    fresh = values(cut, source, said, cache=False)  # kept, but not read; and nothing new kept
    assert any("states in" in s for s in said) and not any("cache" in s for s in said)
    assert len(cache_files()) == 4 and same(fresh, values(cut, source, []))


@pytest.mark.parametrize("damage", ["bytes", "arrays"])
def test_a_damaged_or_unfitting_file_is_ignored_in_one_line(cut, tmp_path, damage):
    source = tmp_path / "bp.npz"
    source.write_bytes(b"a blueprint's bytes")
    said = []
    first = values(cut, source, said)
    (name,) = cache_files()
    path = os.path.join(os.environ["COUPSOLVE_CACHE_DIR"], name)
    if damage == "bytes":
        data = bytearray(open(path, "rb").read())
        data[len(data) // 2] ^= 0xFF
        open(path, "wb").write(bytes(data))
    else:  # a well-formed entry whose rows point past its values: never read into a kernel
        import hashlib

        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        remember_values(key_of(digest, TL1, 2, 2, 3), first._replace(row_of=first.row_of + first.values.shape[0]))
    said.clear()
    again = values(cut, source, said)
    warnings = [s for s in said if "ignoring the cached leaf values" in s]
    assert len(warnings) == 1 and "\n" not in warnings[0] and same(first, again)
    assert ("do not fit" in warnings[0]) == (damage == "arrays")


def test_the_key_names_everything_the_values_depend_on():
    base = key_of("d", TL1, 2, 4, 0)
    assert len({base, key_of("e", TL1, 2, 4, 0), key_of("d", TL1.replace(turn_limit=2), 2, 4, 0),
                key_of("d", TL1, 3, 4, 0), key_of("d", TL1, 2, 5, 0), key_of("d", TL1, 2, 4, 1)}) == 6
    assert key_of("d", TL1, 2, 4, 0) == base
