"""Shared fixtures: OpenSpiel games and their flat trees, built once per session."""

import pyspiel
import pytest

from solvers import GameTree


@pytest.fixture(scope="session")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, GameTree.from_openspiel(game)


@pytest.fixture(scope="session")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    return game, GameTree.from_openspiel(game)
