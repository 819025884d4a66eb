"""`coupsolve solve --leaves`: a depth-limited solve from the command line, its strategy file read back by
`analyse`, and its bad inputs refused in one line. The command line runs in the tests' process (its
status and what it printed, as a subprocess would give them), so that the kernels are loaded once."""

from types import SimpleNamespace

import pytest

from coupsolve.cli import main
from test_cli_reports import _run

# on the worker of test_depth_exact, which compiles the same exact-leaf kernels (the sampling game's
# key walk and the chain): on two workers at once, both compiled them
pytestmark = pytest.mark.xdist_group("depth_exact")


def run(capsys, *argv):
    """The command line in this process (the kernels are loaded once): its status and what it printed."""
    code, out, err = _run([str(a) for a in argv], capsys)
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


@pytest.fixture(scope="module")
def blueprint(tmp_path_factory):
    path = tmp_path_factory.mktemp("leaves") / "tl2.npz"
    assert main(["solve", "--turn-limit", "2", "--iterations", "20", "--algorithm", "hs-pcfr+", "--out", str(path),
                 "--no-progress"]) == 0
    return path


@pytest.mark.parametrize("representation", [pytest.param("history", marks=pytest.mark.slow), "public"])
def test_solve_with_leaves_then_analyse(blueprint, tmp_path, representation, capsys):
    out = tmp_path / "dl1.npz"
    r = run(capsys, "solve", "--turn-limit", "1", "--leaves", str(blueprint), "--continuations", "2",
            "--iterations", "60", "--out", str(out), "--json", str(tmp_path / "r.json"), "--no-progress",
            "--representation", representation)
    assert r.returncode == 0, r.stderr
    assert ("public nodes" in r.stdout) == (representation == "public")
    assert "with blueprint leaves" in r.stdout and "continuations at its leaves" in r.stdout
    import json

    report = json.loads((tmp_path / "r.json").read_text())
    assert report["leaves"]["continuations"] == 2 and report["leaves"]["estimated"] is False
    assert report["leaves"]["representation"] == representation
    a = run(capsys, "analyse", str(out))
    assert a.returncode == 0, a.stderr
    refused = run(capsys, "analyse", str(out), "--selection")
    assert refused.returncode == 2 and "depth-limited strategy" in refused.stderr
    table = lambda text: text[text.index("claim "):]  # noqa: E731
    assert table(a.stdout).split("\n")[:10] == table(r.stdout).split("\n")[:10]
    from coupsolve.strategy import load

    s = load(out)
    assert s.kind == "depth-limited"
    policy = s.policy()
    import pyspiel

    game = pyspiel.load_game(s.rules.game_string())
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = policy.action_probabilities(state)
    assert sum(probs.values()) == pytest.approx(1.0) and set(probs) == set(state.legal_actions())


@pytest.mark.slow
def test_leaves_on_a_local_ray_cluster_give_the_whole_trees_strategy(blueprint, tmp_path, capsys):
    """``--leaves --ray local``: the depth-limited public tree cut into one part per Ray actor (its leaves
    valued here first) iterates as the whole tree does, through a checkpoint and its resumption too;
    ``analyse`` reads the file as any other."""
    pytest.importorskip("ray")
    import ray
    import solvers

    argv = ("solve", "--turn-limit", "1", "--leaves", blueprint, "--continuations", "2", "--no-progress")
    whole = run(capsys, *argv, "--iterations", "30", "--representation", "public", "--out", tmp_path / "whole.npz")
    ck, on_ray = tmp_path / "ck.npz", ("--ray", "local", "--ray-workers", "2")
    try:
        first = run(capsys, *argv, *on_ray, "--iterations", "15", "--checkpoint", ck)
        cut = run(capsys, *argv, *on_ray, "--iterations", "30", "--resume", ck, "--out", tmp_path / "ray.npz")
    finally:
        ray.shutdown()
    assert whole.returncode == 0 and first.returncode == 0 and cut.returncode == 0, first.stderr + cut.stderr
    assert "one per Ray worker" in first.stdout and "public nodes" in first.stdout  # auto: the public tree
    assert "resuming" in cut.stdout
    mine, theirs = (solvers.SolveResult.load(tmp_path / f"{n}.npz") for n in ("ray", "whole"))
    assert abs(mine.average_policy - theirs.average_policy).max() <= 1e-12
    assert mine.exploitability == pytest.approx(theirs.exploitability, abs=1e-12)
    assert mine.options["leaves"] == theirs.options["leaves"]
    a = run(capsys, "analyse", tmp_path / "ray.npz")
    table = lambda text: text[text.index("claim "):]  # noqa: E731
    assert a.returncode == 0 and table(a.stdout) == table(whole.stdout), a.stderr


def test_a_changed_blueprint_is_named(blueprint, tmp_path, capsys):
    import shutil

    copy = tmp_path / "bp.npz"
    shutil.copy(blueprint, copy)
    out = tmp_path / "dl.npz"
    assert run(capsys, "solve", "--turn-limit", "1", "--leaves", str(copy), "--continuations", "1", "--iterations",
               "5", "--out", str(out), "--no-progress").returncode == 0
    with open(copy, "ab") as f:
        f.write(b"\0")
    a = run(capsys, "analyse", str(out))
    assert a.returncode == 2 and "has changed since" in a.stderr and "Traceback" not in a.stderr


@pytest.mark.parametrize("argv, message", [
    (("--turn-limit", "1", "--leaves", "no-such.npz"), "--leaves no-such.npz: no such file"),
    (("--turn-limit", "3", "--leaves", "{bp}"), "not a blueprint of this game"),
    (("--turn-limit", "1", "--leaves", "{bp}", "--limit-payoff", "influence"), "--limit-payoff"),
    (("--turn-limit", "1", "--leaves", "{bp}", "--pieces", "2"), "--ray deals that tree's parts"),
    (("--turn-limit", "1", "--leaves", "{bp}", "--representation", "pieces"), "drop --pieces"),
    (("--turn-limit", "1", "--leaves", "{bp}", "--ray", "local", "--representation", "history"),
     "--ray solves the public tree: drop --representation history"),
    (("--turn-limit", "4", "--leaves", "blueprint-v2", "--max-memory", "20GiB"),
     "is made from its history tree, 3,049,696,500 histories"),  # at once, from the known size: no count
    (("--turn-limit", "1", "--rollouts", "4"), "--rollouts does nothing without --leaves"),
    (("--turn-limit", "1", "--leaves", "{bp}", "--continuations", "5"), "at most 4"),
    (("--turn-limit", "1", "--leaves", "{bp}", "--max-memory", "3MiB"),  # the cut tree fits, not the graft
     "left of --max-memory beside the cut tree: it does not fit"),
])
def test_bad_leaves_are_one_line(blueprint, argv, message, capsys):
    r = run(capsys, "solve", *(a.format(bp=blueprint) for a in argv))
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Two trainings of the turn-limit-2 game: over the features abstraction, and keyed by histories."""
    folder = tmp_path_factory.mktemp("trained")
    paths = {}
    for abstraction in ("features", "exact"):
        paths[abstraction] = folder / f"{abstraction}.npz"
        assert main(["train", "--players", "2", "--turn-limit", "2", "--abstraction", abstraction, "--iterations",
                     "300", "--seed", "4", "--out", str(paths[abstraction]), "--no-progress"]) == 0
    return paths


def test_exact_leaf_values_from_the_command_line(trained, tmp_path, capsys, monkeypatch):
    """`--rollouts exact`: the leaves valued by the blueprint's chain, said so, kept in the cache (the
    second solve reads them), `analyse` rebuilds the game; a blueprint keyed by histories is refused."""
    monkeypatch.setenv("COUPSOLVE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "dl1.npz"
    argv = ("solve", "--turn-limit", "1", "--leaves", trained["features"], "--continuations", "2",
            "--rollouts", "exact", "--iterations", "20", "--out", out)
    r = run(capsys, *argv)
    assert r.returncode == 0, r.stderr
    said = r.stdout + r.stderr
    assert "exactly under 2 continuations" in said and "turn starts" in said and "leaf states, exact" in said
    again = run(capsys, *argv, "--force")
    assert again.returncode == 0 and "read from the cache (exact values of" in again.stdout + again.stderr
    a = run(capsys, "analyse", out)
    assert a.returncode == 0 and "valued by the blueprint's game exactly" in a.stdout, a.stderr
    bad = run(capsys, "solve", "--turn-limit", "1", "--leaves", trained["exact"], "--rollouts", "exact")
    assert bad.returncode == 2 and "need a features blueprint" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
