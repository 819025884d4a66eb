"""docs/rules.md keeps up with the code: every name the game prints and every option is documented."""

import dataclasses
import pathlib
import re

import pytest

import coupsolve
from coup_helpers import SMALL_RULES, histories
from coupsolve import Rules
from coupsolve.names import all_action_names

RULES_MD = pathlib.Path(__file__).resolve().parent.parent / "docs" / "rules.md"
# The names made of a verb and a hand (or, for Events, one to four cards): documented as the verb and the
# list of hands, not one by one.
HAND_VERBS = ("Deal", "Draw", "Keep")


@pytest.fixture(scope="module")
def documented():
    """Every `quoted` name in docs/rules.md."""
    return set(re.findall(r"`([^`\n]+)`", RULES_MD.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def printed_names():
    """Every action and chance outcome name on any history of the small rule sets."""
    names, seen = set(), set()
    for rules in SMALL_RULES:
        key = rules.replace(limit_payoff="draw")  # the payoff changes no name
        if key in seen:
            continue
        seen.add(key)
        for _, _, path in histories(coupsolve.load_game(rules)):
            names.update(name for _, name in path)
    return names


def _is_documented(name, documented):
    verb, _, rest = name.partition(" ")
    if verb in HAND_VERBS:
        return f"`{verb}`" in RULES_MD.read_text(encoding="utf-8") and rest in documented
    if verb == "Events":
        return all(card in documented for card in rest.split("+"))
    return name in documented


def test_every_name_the_small_games_print_is_documented(printed_names, documented):
    assert len(printed_names) > 100  # the walk reached every kind of decision and chance event
    missing = sorted(name for name in printed_names if not _is_documented(name, documented))
    assert not missing, f"docs/rules.md does not name: {missing}"


def test_every_hand_is_documented(documented):
    hands = {name.removeprefix("Keep ") for name in all_action_names() if name.startswith("Keep ")}
    assert len(hands) == 41 and hands <= documented


def test_every_option_is_documented():
    text = RULES_MD.read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \|", text, flags=re.M))
    assert rows == {f.name for f in dataclasses.fields(Rules)}


def test_the_readme_points_to_the_rules_in_the_repository():
    readme = (RULES_MD.parent.parent / "README.md").read_text(encoding="utf-8")
    assert "(docs/rules.md)" in readme and "RULES.md" not in readme
