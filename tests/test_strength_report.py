"""``examples/strength_report.py``'s report: what the local best response's figure says depends on whom
the responder modelled, and a run with no matches has no empty table."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def script():
    path = os.path.join(ROOT, "examples", "strength_report.py")
    spec = importlib.util.spec_from_file_location("strength_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def doc(rows, **lbr):
    return {"strategy": "bp.npz", "what": "a strategy", "command": "python examples/strength_report.py bp.npz",
            "rows": rows, "lbr": {"games": 200, "rollouts": 2, "gain": 0.41, "half_width": 0.13, **lbr}}


ROW = {"against": "HonestBot", "games": 40, "mean": -0.2, "half_width": 0.18, "reduced_mean": -0.23,
       "reduced_half_width": 0.17, "variance_reduction": 1.1, "win_rate": 0.4}


def test_the_responder_to_the_table_is_named_and_a_negative_gain_bounds_nothing():
    render = script().render
    own = "\n".join(render(doc([ROW], model="itself")))
    assert "| HonestBot | 40 |" in own and "the strategy's table" not in own and "bounds nothing" not in own
    modelled = "\n".join(render(doc([], model="table", gain=-0.61, half_width=0.11)))
    assert "local best response to the strategy's table" in modelled and "bounds nothing" in modelled
    assert "| against |" not in modelled  # no matches, no empty table
    close = "\n".join(render(doc([], model="table", gain=-0.05, half_width=0.11)))
    assert "bounds nothing" not in close  # its interval reaches above zero


def test_no_pilot_games_is_refused_before_any_game():
    import argparse

    import pytest

    pilot = script()._pilot
    assert pilot("20") == 20
    for bad in ("0", "-3", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match="at least 1 pilot game"):
            pilot(bad)


def test_the_honest_prior_names_the_player():
    import argparse

    module = script()
    a = argparse.Namespace(search=1, continuations=2, root="here", safe=False, honest=0.0)
    plain, modelled = module._player(a), module._player(argparse.Namespace(**{**vars(a), "honest": 0.5}))
    assert plain != modelled and "prior 0.5" in modelled  # runs of the two are not paired as one player
