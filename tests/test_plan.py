"""The planner (:mod:`coupsolve.plan`): which tree, builder and precision a solve runs on, decided once
and returned as a :class:`~coupsolve.plan.Plan`; the builder registry and the size protocol its counts
share (:mod:`coupsolve.trees.builders`)."""

import dataclasses

import pytest
from hypothesis import given, strategies as st

import coupsolve
from coupsolve import plan as planner
from coupsolve.plan import Options, PlanError, choose, precision_for
from coupsolve.trees import builders as B

TL1 = coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COUPSOLVE_CACHE_DIR", str(tmp_path / "cache"))


@given(st.sampled_from(["auto", "float64", "float32"]), st.sampled_from(["history", "public", "pieces"]))
def test_auto_precision_is_resolved_by_one_rule(precision, tree):
    chosen = precision_for(Options(precision=precision), tree)
    assert chosen == (precision if precision != "auto" else "float32" if tree == "pieces" else "float64")


@pytest.mark.parametrize("options,builder,precision", [
    (Options(), "history", "float64"),
    (Options(representation="public"), "classbuild", "float64"),
    (Options(representation="pieces", parts=2), "classpieces", "float32"),
    (Options(representation="pieces", parts=2, precision="float64"), "classpieces", "float64"),
    (Options(representation="history", precision="float32"), "history", "float32")])
def test_a_plan_names_its_tree_builder_and_precision(options, builder, precision):
    said = []
    plan = choose(TL1, options, said.append)
    assert plan.builder.name == builder and plan.precision == precision
    assert plan.tree == B.named(builder).tree and B.builder_of(plan.size) is plan.builder
    assert isinstance(plan.size, B.Size) and plan.size.rules == TL1
    # the peak planned is the count's own estimate in the plan's precision: one figure, one rule
    assert plan.peak == plan.size.peak_bytes(plan.precision, False) and plan.budget is not None
    assert plan.histories == (plan.size.nodes if builder == "history" else
                              getattr(plan.size, "histories", None))
    assert said and all(isinstance(line, str) and "\n" not in line for line in said)


def test_a_plan_too_large_for_its_budget_is_refused_in_one_line():
    with pytest.raises(PlanError) as e:
        choose(TL1, Options(representation="history", max_memory=10_000))
    assert isinstance(e.value, ValueError) and "\n" not in str(e.value)
    assert "more than the 9.77 KiB of memory" in str(e.value)
    with pytest.raises(PlanError, match="representation must be one of"):
        Options(representation="whole")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Options().precision = "float32"  # a plan never writes back into its options


def test_the_hint_computes_its_figures_from_the_estimates(monkeypatch):
    """The time of a public count is the history tree's size at the builder's pace; with a count
    by parts cached, the memory is that count's own estimate, whole and in pieces."""
    from coupsolve.plan import public as P
    from coupsolve.trees.pieces.build import PiecesPlan

    monkeypatch.setitem(P.SECONDS_PER_HISTORY, "classbuild", 6e-6)
    assert "(about 100 minutes here, estimated from its 1,000,000,000 histories)" in \
        planner.public_hint(TL1, 10**9)
    assert "whole when it fits the memory, else in pieces" in planner.public_hint(TL1)
    options = Options(parts=2)
    size, peak, _ = planner.measure_public(TL1, options)  # cached: the hint reads it
    hint = planner.public_hint(TL1, options=options)
    pieces = PiecesPlan.of(size, 1)
    assert f"{planner.fmt(peak)} at the peak of a build and solve whole" in hint
    assert f"{planner.fmt(pieces.peak_bytes('float32'))} in pieces" in hint


def test_the_registry_chooses_by_rules_and_by_count(monkeypatch):
    monkeypatch.setattr(B, "_REGISTRY", list(B._REGISTRY))
    assert [b.name for b in B.builders("public")] == ["classbuild", "publicbuild"]
    marked = coupsolve.Rules.two_player_selection(turn_limit=1, marked_cards=True)
    builder, why = B.public_builder(marked)
    assert builder.name == "publicbuild" and "marked cards" in why
    assert B.public_builder(TL1) == (B.named("classbuild"), "")
    B.register(B.Builder("classbuild", "public", "a stand-in", "builtins:int", "builtins:int",
                         "builtins:int", "coupsolve.trees.classwalk.state:supported"))
    assert B.named("classbuild").label == "a stand-in" and B.builder_of(3).label == "a stand-in"
    assert [b.name for b in B.builders()].count("classbuild") == 1
    with pytest.raises(KeyError, match="no tree builder 'elsewhere'"):
        B.named("elsewhere")
    with pytest.raises(TypeError, match="count of no registered tree builder"):
        B.builder_of("a size")


GiB = 2**30


@pytest.mark.parametrize("memory,verdict", [
    (50 * GiB, "so a solve builds the public tree whole, and it fits"),
    (20 * GiB, "so a solve builds the public tree in pieces, and it fits"),
    (10 * GiB, "or --ray ADDRESS to hold the parts on a Ray cluster"),
])
def test_info_says_what_a_solve_of_turn_limit_4_builds(memory, verdict):
    """info --turn-limit 4 said "a build and solve does NOT fit" (the history tree) while solve works in
    pieces (issue 48): it goes on as choose() does, from the packaged count of the public tree."""
    rules = coupsolve.Rules.two_player_selection(turn_limit=4)
    lines = []
    planner.survey(rules, Options(max_memory=memory), lines.append)
    text = "\n".join(lines)
    assert "a build and solve does NOT fit" in text  # the history tree's 244 GiB
    assert "a known count, packaged with coupsolve" in text  # nothing counted
    assert lines[-1].startswith(verdict) or verdict in lines[-1]
    if memory > 10 * GiB:
        assert "it counts the public tree first (about 53 minutes here" in lines[-1]


def test_the_packaged_public_count_is_for_info_only():
    from coupsolve.trees import sizecache

    rules = coupsolve.Rules.two_player_selection(turn_limit=4)
    assert sizecache.lookup_public(rules, planner.COUNT_PARTS) is None  # what a solve builds from
    known = sizecache.lookup_public_source(rules, planner.COUNT_PARTS, known=True)
    assert known[1] == sizecache.KNOWN and known[0].nodes == 8_063_906 and len(known[0].parts) == 399
    assert sizecache.lookup_public(rules, planner.COUNT_PARTS, cache=False, known=True) is None  # --no-cache


def test_info_without_a_public_count_says_what_counting_it_takes():
    rules = coupsolve.Rules.two_player_selection(turn_limit=3)
    lines = []
    planner.survey(rules, Options(max_memory=GiB), lines.append)
    assert "a build and solve does NOT fit" in lines[-2]
    assert lines[-1].startswith("a solve goes on to the public tree: --representation public counts")
    assert "coupsolve info --representation public counts it now" in lines[-1]


def test_a_solve_runs_on_the_cores_available_unless_asked(monkeypatch):
    import numba

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(64)))
    threads, why = planner.solve_threads(None)
    assert threads == min(64, numba.config.NUMBA_NUM_THREADS, 16) and why == "the cores available"
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {3})
    assert planner.solve_threads(None) == (1, "the cores available")  # this process's cores only
    assert planner.solve_threads(3) == (3, "--threads")  # asked: wins (checked by the solver)
    assert planner.solve_threads(None, ray=True)[0] == 1  # the Ray workers share the cores


@pytest.mark.parametrize("env,policy", [({}, "passive"), ({"OMP_WAIT_POLICY": "active"}, "active"),
                                        ({"GOMP_SPINCOUNT": "1000"}, None)])
def test_openmp_threads_wait_asleep_unless_the_user_says(env, policy):
    """Spinning OpenMP threads slow every level's parallel loop on a machine shared with another
    process (solvers/__init__.py); the user's own setting is left alone."""
    import os
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
                                                              "KMP_BLOCKTIME")}
    out = subprocess.run([sys.executable, "-c", "import solvers, os; print(os.environ.get('OMP_WAIT_POLICY'))"],
                         env={**clean, **env}, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(policy)


@pytest.mark.parametrize("algorithm,predictive", [("cfr+", False), ("pcfr+", True), ("hs-pcfr+", True),
                                                  ("hs-dcfr", False), ("mmd", False)])
def test_the_plan_counts_the_prediction_of_every_predictive_algorithm(algorithm, predictive):
    assert Options(algorithm=algorithm).predictive is predictive


def test_progress_lines_say_the_total_only_when_known(monkeypatch):
    from coupsolve.plan import options

    clock = iter(range(0, 1000, 10))  # ten seconds between calls: nothing held back
    monkeypatch.setattr(options.time, "perf_counter", lambda: next(clock))
    progress_lines, said = options.progress_lines, []
    progress_lines(said.append)("count", 1234567, None)
    assert said == ["  count: 1,234,567"]
    progress_lines(said.append)("fill", 5, 10)
    assert said[-1] == "  fill: 5 of 10"
