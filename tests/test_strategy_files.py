"""Strategy files from the library (:mod:`coupsolve.strategy`), without the command line: a solve
planned, built, solved, recorded and saved, then loaded with its tree rebuilt, made an OpenSpiel
policy and analysed by the one entry (:func:`coupsolve.analysis.analyse`)."""

import json

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.analysis import analyse
from coupsolve.openspiel.policy import HistoryTreePolicy, PublicTreePolicy
from coupsolve.plan import Options, choose
from coupsolve.strategy import Strategy, StrategyError, load, record

TL1 = coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence")


def _solve(path, representation):
    plan = choose(TL1, Options(representation=representation))
    tree, analysed = plan.build()
    result = solvers.solve(tree, iterations=30, precision=plan.precision, progress=False)
    record(result, plan, analysed)
    result.save(path)
    return plan, analysed, result


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("strategies")
    return {rep: (folder / f"{rep}.npz",) + _solve(folder / f"{rep}.npz", rep)
            for rep in ("history", "public")}


@pytest.mark.parametrize("rep,policy_type", [("history", HistoryTreePolicy), ("public", PublicTreePolicy)])
def test_a_solved_file_loads_onto_its_tree_with_its_policy(files, rep, policy_type):
    path, plan, analysed, result = files[rep]
    said = []
    strategy = load(path, said.append)
    assert isinstance(strategy, Strategy) and strategy.kind == rep and strategy.rules == TL1
    assert said and said[-1].startswith("building the")
    assert strategy.result.options.get("tree_builder") == (None if rep == "history" else "classbuild")
    np.testing.assert_array_equal(strategy.result.average_policy, result.average_policy)
    game = strategy.game()
    policy = strategy.policy(game)
    assert isinstance(policy, policy_type) and strategy.what == result.algorithm
    # the policy reads the flat policy at the information set of each state it is asked about
    tree = analysed.tree
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    dist = policy.action_probabilities(state)
    assert sorted(dist) == sorted(state.legal_actions()) and sum(dist.values()) == pytest.approx(1.0)
    offsets = {int(o) for o in tree.infoset_offset}
    rows = [result.average_policy[o:o + len(dist)] for o in offsets]
    assert any(np.allclose(sorted(dist.values()), sorted(r)) for r in rows if len(r) == len(dist))
    # one analysis entry, whatever the tree: the same figures as the file's own analysis
    mine = analyse(strategy.tree, strategy.result.average_policy)
    assert json.dumps(mine.to_dict(), sort_keys=True) == \
        json.dumps(strategy.analyse().to_dict(), sort_keys=True)
    assert json.dumps(mine.to_dict(), sort_keys=True) == \
        json.dumps(analyse(analysed, result.average_policy).to_dict(), sort_keys=True)


def test_the_history_and_public_analyses_agree(files):
    """The same game solved on its two trees: two strategies, each analysed on its own tree; each
    one's value lies within its exploitability of the game's value, so the two within the sum."""
    a, b = load(files["history"][0]), load(files["public"][0])
    gap = 2 * (a.result.exploitability + b.result.exploitability)
    assert abs(a.analyse().game_value[0] - b.analyse().game_value[0]) <= gap


def test_a_file_that_cannot_be_used_says_why_in_one_line(files, tmp_path):
    with pytest.raises(StrategyError, match="no such file"):
        load(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not a strategy")
    with pytest.raises(ValueError, match="is not a coupsolve strategy file"):
        load(tmp_path / "text.npz")
    path = files["public"][0]
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["__metadata__"][()]))
    meta["options"]["tree_builder"] = "history"  # a history builder for a public tree
    arrays["__metadata__"] = np.array(json.dumps(meta, sort_keys=True))
    np.savez(tmp_path / "odd.npz", **arrays)
    with pytest.raises(StrategyError, match="built by 'history', which this version does not know"):
        load(tmp_path / "odd.npz")
    with pytest.raises(TypeError, match="analyse takes"):
        analyse("a tree", np.ones(3))
