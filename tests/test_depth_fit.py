"""What a depth-limited game needs in memory, known before its leaves are valued
(coupsolve.depth.build.fit): the most continuations and the tree that fit a budget, and a refusal in one
line that names what would fit."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coupsolve import Rules, build_coup_tree
from coupsolve.depth.build import MOST_CONTINUATIONS, fit, graft_bytes
from coupsolve.depth.continuations import CONTINUATIONS

TL1 = Rules(turn_limit=1)


@pytest.fixture(scope="module")
def cut():
    return build_coup_tree(TL1, leaves=True)


def room(cut, tree, budget):
    return budget + (cut.tree.nbytes if tree == "public" else 0)  # the public build lets the history tree go


def test_the_most_continuations_are_the_continuations_there_are():
    assert MOST_CONTINUATIONS == len(CONTINUATIONS)


def test_needs_grow_with_the_continuations(cut):
    needs = [graft_bytes(cut, k) for k in range(1, MOST_CONTINUATIONS + 1)]
    for tree in ("history", "public"):
        assert all(a[tree] < b[tree] for a, b in zip(needs, needs[1:]))


def test_unknown_memory_fits_the_request(cut):
    assert fit(cut, None, "auto", None) == (MOST_CONTINUATIONS, "history")
    assert fit(cut, 2, "public", None) == (2, "public")


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 1.2), st.sampled_from([None, 1, 2, 3, 4]), st.sampled_from(["auto", "history", "public"]))
def test_what_it_chooses_fits_and_nothing_larger_would(cut, share, k, representation):
    budget = int(share * graft_bytes(cut, MOST_CONTINUATIONS)["history"])
    trees = ("history", "public") if representation == "auto" else (representation,)
    fits = lambda c, tree: graft_bytes(cut, c)[tree] <= room(cut, tree, budget)  # noqa: E731
    try:
        chosen, tree = fit(cut, k, representation, budget)
    except MemoryError as e:
        message = str(e)
        assert "\n" not in message and "needs about" in message
        assert not any(fits(c, t) for c in ([k] if k else range(1, MOST_CONTINUATIONS + 1)) for t in trees)
        most = max((c for c in range(1, MOST_CONTINUATIONS + 1) if any(fits(c, t) for t in trees)), default=None)
        assert (f"try --continuations {most}" in message) if most else "even with one" in message
        return
    assert tree in trees and fits(chosen, tree)
    assert k is None or chosen == k
    if k is None:
        assert not any(fits(c, t) for c in range(chosen + 1, MOST_CONTINUATIONS + 1) for t in trees)
    if representation == "auto" and tree == "public":
        assert not fits(chosen, "history")  # the history tree whenever it fits


def test_bad_representations_are_refused(cut):
    with pytest.raises(ValueError, match="representation must be"):
        fit(cut, 2, "pieces", None)
