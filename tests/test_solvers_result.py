"""SolveResult: OpenSpiel policies, save/load round trip, refusing other games."""

import json

import numpy as np
import pyspiel
import pytest

import solvers
from solvers import GameTree, SolveResult, from_openspiel_policy


@pytest.fixture(scope="module")
def kuhn_result(kuhn):
    _, tree = kuhn
    return solvers.solve(tree, "dcfr", iterations=120, seed=7, check_every=40, progress=False)


def test_openspiel_policy_round_trip(kuhn, kuhn_result):
    game, tree = kuhn
    tabular = kuhn_result.to_openspiel_policy(game)
    assert np.array_equal(from_openspiel_policy(tree, tabular), kuhn_result.average_policy)
    current = kuhn_result.to_openspiel_policy(game, which="current")
    assert np.array_equal(from_openspiel_policy(tree, current), kuhn_result.current_policy)
    # Rows hold probabilities over the game's full action space.
    row = tabular.policy_for_key(tree.infoset_key(0))
    assert row.shape == (game.num_distinct_actions(),) and row.sum() == pytest.approx(1.0)


def test_policy_for_maps_actions_to_probabilities(kuhn, kuhn_result):
    _, tree = kuhn
    for i in range(tree.num_infosets):
        key = tree.infoset_key(i)
        probs = kuhn_result.policy_for(key)
        assert list(probs) == list(tree.actions(i))
        o = tree.infoset_offset[i]
        assert list(probs.values()) == list(kuhn_result.average_policy[o:o + len(probs)])
    with pytest.raises(KeyError):
        kuhn_result.policy_for("not an information state")
    with pytest.raises(ValueError, match="which must be"):
        kuhn_result.policy_for(tree.infoset_key(0), which="best")


def test_infosets_missing_from_the_tree_stay_uniform(kuhn):
    game, _ = kuhn
    # A partial tree with two of Kuhn's information states ("0": card J, "1": card Q).
    root = ("chance", [(0.5, ("decision", 0, "0", [(0, ("terminal", 1)), (1, ("terminal", 2))])),
                       (0.5, ("decision", 0, "1", [(0, ("terminal", 3)), (1, ("terminal", 0))]))])
    tree = GameTree.from_nested(root, str(game))
    policy = np.array([1.0, 0.0, 0.25, 0.75])
    tabular = solvers.to_openspiel_policy(tree, policy, game)
    assert list(tabular.policy_for_key("0")) == [1.0, 0.0]
    assert list(tabular.policy_for_key("1")) == [0.25, 0.75]
    assert list(tabular.policy_for_key("2")) == [0.5, 0.5]
    assert list(tabular.policy_for_key("0pb")) == [0.5, 0.5]


def test_openspiel_conversion_refuses_another_game(kuhn_result, leduc):
    game, _ = leduc
    with pytest.raises(ValueError, match="OpenSpiel game 'leduc_poker\\(\\)' does not match the "
                                         "tree's game 'kuhn_poker\\(\\)'"):
        kuhn_result.to_openspiel_policy(game)


def test_unknown_keys_are_refused_by_openspiel_conversion(kuhn):
    game, _ = kuhn
    tree = GameTree.from_nested(("decision", 0, "no such state", [(0, ("terminal", 1))]), str(game))
    with pytest.raises(ValueError, match="no information state 'no such state'"):
        solvers.to_openspiel_policy(tree, np.ones(1), game)


def test_save_load_round_trip(tmp_path, kuhn, kuhn_result):
    _, tree = kuhn
    path = tmp_path / "kuhn.npz"
    kuhn_result.save(path)
    loaded = SolveResult.load(path, tree=tree)
    for name in ("average_policy", "current_policy", "curve_iterations", "curve_seconds",
                 "curve_exploitability", "game_value", "infoset_num_actions", "infoset_actions"):
        original, restored = getattr(kuhn_result, name), getattr(loaded, name)
        assert restored.dtype == original.dtype and np.array_equal(restored, original), name
    for name in ("game_id", "algorithm", "iterations", "seed", "seconds", "interrupted", "version"):
        assert getattr(loaded, name) == getattr(kuhn_result, name), name
    assert loaded.tree is tree
    assert loaded.policy_for(tree.infoset_key(5)) == kuhn_result.policy_for(tree.infoset_key(5))
    # The metadata is plain JSON readable without pickle.
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["__metadata__"][()]))
    assert meta["game_id"] == "kuhn_poker()" and meta["algorithm"] == "dcfr"
    assert meta["iterations"] == 120 and meta["seed"] == 7 and "version" in meta


def test_load_without_tree_needs_one_for_policy_for(tmp_path, kuhn_result):
    path = tmp_path / "kuhn.npz"
    kuhn_result.save(path)
    loaded = SolveResult.load(path)
    assert np.array_equal(loaded.average_policy, kuhn_result.average_policy)
    with pytest.raises(ValueError, match="has no tree"):
        loaded.policy_for("0")


def test_loading_against_another_game_is_refused(tmp_path, kuhn_result, leduc):
    _, leduc_tree = leduc
    path = tmp_path / "kuhn.npz"
    kuhn_result.save(path)
    with pytest.raises(ValueError, match="saved for game 'kuhn_poker\\(\\)'.*'leduc_poker\\(\\)'"):
        SolveResult.load(path, tree=leduc_tree)


def test_loading_against_another_layout_is_refused(tmp_path, kuhn_result):
    path = tmp_path / "kuhn.npz"
    kuhn_result.save(path)
    other = GameTree.from_nested(("decision", 0, "0", [(0, ("terminal", 1))]), "kuhn_poker()")
    with pytest.raises(ValueError, match="laid out differently"):
        SolveResult.load(path, tree=other)


def test_non_result_files_are_refused(tmp_path, kuhn):
    _, tree = kuhn
    checkpoint = tmp_path / "state.npz"
    solvers.solve(tree, iterations=2, checkpoint=checkpoint, progress=False)
    with pytest.raises(ValueError, match="checkpoint"):
        SolveResult.load(checkpoint)
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.zeros(3))
    with pytest.raises(ValueError, match="no metadata"):
        SolveResult.load(plain)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="not a readable .npz"):
        SolveResult.load(garbage)


def test_liars_dice_parameter_name():
    # The spec'd game string must load with one die each.
    game = pyspiel.load_game("liars_dice(numdice=1)")
    assert game.get_parameters()["numdice"] == 1


def test_single_array_files_are_refused(tmp_path):
    path = tmp_path / "array.npy"
    np.save(path, np.zeros(3))
    with pytest.raises(ValueError, match="not an .npz archive"):
        SolveResult.load(path)


def test_result_from_an_openspiel_policy(kuhn, tmp_path):
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import exploitability as os_exploitability

    game, tree = kuhn
    solver = os_cfr.CFRSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    result = SolveResult.from_openspiel_policy(tree, solver.average_policy())
    expected = os_exploitability.exploitability(game, solver.average_policy())
    assert abs(result.exploitability - expected) <= 1e-9
    assert result.algorithm == "openspiel" and result.iterations == 0
    assert result.game_value[0] == pytest.approx(solvers.expected_values(tree, result.average_policy)[0])
    path = tmp_path / "os.npz"
    result.save(path)
    assert np.array_equal(SolveResult.load(path, tree=tree).average_policy, result.average_policy)
    with pytest.raises(ValueError, match="tabular policy's game 'leduc_poker"):
        SolveResult.from_openspiel_policy(tree, os_cfr.CFRSolver(pyspiel.load_game("leduc_poker"))
                                          .average_policy())


def test_a_document_attached_to_a_result_file(tmp_path, kuhn, kuhn_result):
    """An attachment is kept with the file (rewritten durably), read back as written, replaced by a
    second of its name, and ignored by load; a file that solvers did not write is refused."""
    path = tmp_path / "kuhn.npz"
    kuhn_result.save(path)
    assert SolveResult.attachment(path, "analysis") is None
    SolveResult.attach(path, "analysis", {"value": -1 / 18, "rows": [1, None]})
    SolveResult.attach(path, "note", {"text": "kept"})
    SolveResult.attach(path, "analysis", {"value": 0.5})
    assert SolveResult.attachment(path, "analysis") == {"value": 0.5}
    assert SolveResult.attachment(path, "note") == {"text": "kept"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kuhn.npz"]  # no staged file left
    back = SolveResult.load(path, tree=kuhn[1])
    assert np.array_equal(back.average_policy, kuhn_result.average_policy)
    assert back.iterations == kuhn_result.iterations
    np.savez(tmp_path / "other.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="not written by solvers"):
        SolveResult.attach(tmp_path / "other.npz", "analysis", {})
