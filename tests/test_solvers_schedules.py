"""Hyperparameter-scheduled DCFR and PCFR+ (Zhang, McAleer and Sandholm 2024): the schedule's
average weight against its definition, HS-DCFR against OpenSpiel's DCFR with the same exponents."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import discounted_cfr as os_dcfr

import solvers
from solvers import from_openspiel_policy
from solvers.cfr.matching import schedule
from solvers.cfr.state import Params, schedule_fields


def _params(name):
    spec = solvers.ALGORITHMS[name]
    return Params(plus=spec.plus, discount=spec.discount, predictive=spec.predictive,
                  simultaneous=False, alpha=spec.alpha, beta=spec.beta, gamma=spec.gamma,
                  **schedule_fields(spec))


def _exponents(spec, t):
    """The paper's schedules: each exponent linear in min(t / horizon, 1)."""
    p = min(t / spec.horizon, 1.0)
    return tuple(getattr(spec, x) + (getattr(spec, x + "_end") - getattr(spec, x)) * p
                 for x in ("alpha", "beta", "gamma"))


def _log_weight(spec, t):
    """log of prod_(s=2..t) (s / (s-1)) ** gamma_(s-1): DCFR's average discounted by ((s-1)/s) **
    gamma_(s-1) before iteration s, read as the weight of iteration t."""
    return sum(_exponents(spec, s - 1)[2] * math.log(s / (s - 1)) for s in range(2, t + 1))


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["hs-dcfr", "hs-pcfr+"]), t=st.integers(1, 3000),
       horizon=st.integers(1, 1500))
def test_closed_form_weight_equals_the_product(name, t, horizon):
    spec = solvers.ALGORITHMS[name]
    P = _params(name)._replace(horizon=float(horizon))
    spec_h = type("S", (), dict(alpha=spec.alpha, beta=spec.beta, gamma=spec.gamma,
                                alpha_end=spec.alpha_end, beta_end=spec.beta_end,
                                gamma_end=spec.gamma_end, horizon=horizon))
    weight, fpos, fneg = schedule(t, P)
    assert math.isclose(math.log(weight), _log_weight(spec_h, t), rel_tol=1e-12, abs_tol=1e-9)
    if spec.discount:
        alpha, beta, _ = _exponents(spec_h, t)
        assert math.isclose(fpos, t ** alpha / (t ** alpha + 1), rel_tol=1e-12)
        assert math.isclose(fneg, t ** beta / (t ** beta + 1), rel_tol=1e-12)


def test_fixed_exponents_keep_t_to_the_gamma():
    for name in ("dcfr", "pcfr+", "cfr+"):
        assert schedule(7, _params(name))[0] == 7.0 ** solvers.ALGORITHMS[name].gamma


@pytest.mark.parametrize("name, iterations", [("kuhn", 60), ("leduc", 6)])
def test_hs_dcfr_equals_openspiel_dcfr_with_the_scheduled_exponents(name, iterations, request):
    """OpenSpiel's DCFRSolver weighs iteration t's average by t**gamma and discounts with t**alpha,
    t**beta: given, before each iteration, the schedule's exponents and gamma = log(weight) / log(t)
    (the weight from the product above), it runs HS-DCFR."""
    game, tree = request.getfixturevalue(name)
    spec = solvers.ALGORITHMS["hs-dcfr"]
    theirs = os_dcfr.DCFRSolver(game)
    for t in range(1, iterations + 1):
        theirs.alpha, theirs.beta, _ = _exponents(spec, t)
        theirs.gamma = _log_weight(spec, t) / math.log(t) if t > 1 else 0.0
        theirs.evaluate_and_update_policy()
    ours = solvers.solve(tree, "hs-dcfr", iterations=iterations, progress=False)
    average = from_openspiel_policy(tree, theirs.average_policy())
    current = from_openspiel_policy(tree, theirs.current_policy())
    assert np.max(np.abs(ours.average_policy - average)) <= 1e-9
    assert np.max(np.abs(ours.current_policy - current)) <= 1e-9
    assert np.max(np.abs(average - tree.uniform_policy())) > 0.05


@pytest.mark.parametrize("name", ["hs-dcfr", "hs-pcfr+"])
def test_scheduled_algorithms_converge_on_kuhn(name, kuhn):
    _, tree = kuhn
    result = solvers.solve(tree, name, iterations=1000, progress=False)
    assert result.exploitability < 1e-3
    assert abs(result.game_value[0] + 1 / 18) < 2e-3
