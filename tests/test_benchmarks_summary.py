"""The benchmark summary (docs/benchmarks.md) is computed from the CSV files, not typed in."""

import csv
import shutil

import pytest

from benchmarks import summary

EXTRA = dict(machine="Test CPU, 2 cores", versions="python 3.11", date="2026-01-01 00:00:00")


# The public benchmarks' own run, on another machine and day than the full run's.
PUBLIC_EXTRA = dict(machine="Other CPU, 8 cores", versions="python 3.12, numba 0.99",
                    date="2026-02-02 12:00:00")


def write(folder, name, rows, extra=EXTRA):
    columns = list(dict.fromkeys(k for row in rows for k in row)) + list(extra)
    with open(folder / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, **extra})


def cells(text, start):
    row = next(line for line in text.splitlines() if line.startswith(start))
    return [c.strip() for c in row.strip("|").split("|")]


def write_public(folder):
    """public.csv as ``benchmarks.public`` writes it: a history row, a public row, and a row with no
    history tree of its turn limit and threads (whose CSV ratios default to 1.0)."""
    history_s, public_s = 0.02, 0.03
    history_mib, public_mib = 100.0 + 50.0, 20.0 + 10.0
    common = dict(build_s=1.5, bytes_per_infoset=400.0, load=0.5)
    write(folder, "public", [
        dict(turn_limit=2, representation="history", threads=1, tree_mib=100.0, solve_mib=50.0,
             seconds_per_iteration=history_s, ns_per_history_pass=3.25, time_ratio=1.0,
             memory_ratio=1.0, **common),
        dict(turn_limit=2, representation="class walk", threads=1, tree_mib=20.0, solve_mib=10.0,
             seconds_per_iteration=public_s, ns_per_history_pass=4.875,
             time_ratio=public_s / history_s, memory_ratio=public_mib / history_mib, **common),
        dict(turn_limit=4, representation="pieces", threads=2, tree_mib=9000.0, solve_mib=3000.0,
             seconds_per_iteration=13.7, ns_per_history_pass=2.25, time_ratio=1.0,
             memory_ratio=1.0, **common),
    ], PUBLIC_EXTRA)


def write_distributed(folder):
    one, ray = 0.04, 0.05
    write(folder, "distributed", [
        dict(turn_limit=3, variant="one process", threads=2, depth="", seconds_per_iteration=one,
             ratio=1.0, bytes_per_iteration=0, largest_part_mib=0.0, load=0.5),
        dict(turn_limit=3, variant="Ray, 2 workers", threads=2, depth=4, seconds_per_iteration=ray,
             ratio=ray / one, bytes_per_iteration=3 * 2 ** 20, largest_part_mib=123.4, load=0.5),
    ], PUBLIC_EXTRA)


@pytest.fixture
def results(tmp_path):
    write(tmp_path, "iteration", [
        dict(game="leduc", histories=9457, library="coupsolve", mode="f64 alt 1T",
             seconds_median=2e-5),
        dict(game="leduc", histories=9457, library="coupsolve", mode="f64 sim 1T",
             seconds_median=1e-5),
        dict(game="leduc", histories=9457, library="OpenSpiel C++", mode="-",
             seconds_median=5e-3),
        dict(game="leduc", histories=9457, library="LiteEFG", mode="1T", seconds_median=8e-4),
        dict(game="leduc", histories=9457, library="LiteEFG", mode="2T", seconds_median=9e-4),
    ])
    write(tmp_path, "target", [
        dict(game="leduc", histories=9457, library="coupsolve", algorithm="dcfr",
             mode="f64 alt 1T", repeats=5, **{"iterations_1e-03": 300,
                                             "seconds_1e-03_median": 0.01}),
        dict(game="leduc", histories=9457, library="OpenSpiel C++", algorithm="cfr+", mode="",
             repeats=1, **{"iterations_1e-03": 600, "seconds_1e-03_median": 4.0}),
    ])
    return tmp_path


def test_ratios_come_from_the_csv_files(results):
    text = summary.summary(results)
    row = next(line for line in text.splitlines() if line.startswith("| Leduc | 9,457"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "20 us" and cells[3] == "10 us (f64 sim 1T)"
    assert cells[4] == "5 ms: **250x**"  # against the OpenSpiel-exact mode, not the fastest
    assert cells[5] == "-"  # OpenSpiel Python was not in the run
    assert cells[6] == "800 us, 1T: **40x**"  # LiteEFG's faster thread count
    target = next(line for line in text.splitlines() if line.startswith("| Leduc | 1e-3"))
    assert "10 ms (dcfr, 300 it.)" in target and "4 s (cfr+): **400x**" in target
    assert "Test CPU, 2 cores" in text and "2026-01-01" in text


def test_no_results_says_so(tmp_path):
    assert "not been run" in summary.summary(tmp_path)


def test_readme_block_is_replaced_and_nothing_else(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# t\n\nbefore\n{summary.START}\nold\n{summary.END}\nafter\n")
    summary.update_readme("new table", readme)
    assert readme.read_text() == f"# t\n\nbefore\n{summary.START}\nnew table\n{summary.END}\nafter\n"
    readme.write_text("no markers")
    with pytest.raises(ValueError, match="bench:start"):
        summary.update_readme("x", readme)


def test_public_tables_come_from_their_csv_files(tmp_path):
    write_public(tmp_path)
    write_distributed(tmp_path)
    text = summary.public_summary(tmp_path)
    header = text.splitlines()[0]
    assert "Other CPU, 8 cores" in header and "python 3.12, numba 0.99" in header
    assert "2026-02-02 12:00:00" in header and "Test CPU" not in header
    assert "`python -m benchmarks.public`" in header and "`python -m benchmarks.distributed`" in header
    history = cells(text, "| Coup TL2 | history |")
    assert history[3:] == ["1.5 s", "20 ms", "150.0 MiB", "400", "3.25", "1x", "1x"]
    public = cells(text, "| Coup TL2 | class walk |")
    assert public[4:6] == ["30 ms", "30.0 MiB"]
    assert public[7:] == ["4.88", "1.5x", "0.2x"]  # 0.03 / 0.02 and 30 / 150 MiB
    pieces = cells(text, "| Coup TL4 | pieces |")
    assert pieces[4] == "13.7 s" and pieces[-2:] == ["-", "-"]  # no history tree: no ratio
    ray = cells(text, "| Coup TL3 | Ray, 2 workers |")
    assert ray[2:] == ["2", "50 ms", "1.2x", "3,072 KiB", "123.4 MiB", "4"]  # 0.05 / 0.04
    assert cells(text, "| Coup TL3 | one process |")[4:] == ["1x", "-", "-", "-"]


def test_public_block_has_only_the_tables_of_the_files_that_exist(tmp_path):
    assert "not been run" in summary.public_summary(tmp_path)
    write_distributed(tmp_path)
    text = summary.public_summary(tmp_path)
    assert "Ray cluster" in text and "against history tree" not in text
    assert "benchmarks.distributed" in text and "`python -m benchmarks.public`" not in text
    write_public(tmp_path)
    (tmp_path / "distributed.csv").unlink()
    text = summary.public_summary(tmp_path)
    assert "against history tree" in text and "Ray cluster" not in text
    assert "not been run" in summary.summary(tmp_path)  # the main block reads none of them


def block(text, start, end):
    return text.split(start, 1)[1].split(end, 1)[0]


@pytest.fixture
def readme(tmp_path):
    """A copy of the real benchmarks page (docs/benchmarks.md), with its marker pairs."""
    copy = tmp_path / "README.md"
    shutil.copy(summary.README, copy)
    text = copy.read_text()
    assert summary.START in text and summary.END in text
    assert summary.PUBLIC_START in text and summary.PUBLIC_END in text
    return copy


def test_readme_keeps_the_main_block_when_only_the_public_files_exist(tmp_path, readme):
    results = tmp_path / "results"
    results.mkdir()
    write_public(results)
    before = readme.read_text()
    assert summary.write_readme(results, readme) == [summary.PUBLIC_START]
    after = readme.read_text()
    assert block(after, summary.START, summary.END) == block(before, summary.START, summary.END)
    assert after.split(summary.PUBLIC_START)[0] == before.split(summary.PUBLIC_START)[0]
    public = block(after, summary.PUBLIC_START, summary.PUBLIC_END)
    assert "| Coup TL2 | class walk |" in public and "Other CPU, 8 cores" in public


def test_readme_keeps_the_public_block_when_only_the_main_files_exist(results, readme):
    kept = "\nan earlier public run's tables\n"
    summary.update_readme(kept.strip(), readme, summary.PUBLIC_START, summary.PUBLIC_END)
    before = readme.read_text()
    assert summary.write_readme(results, readme) == [summary.START]
    after = readme.read_text()
    assert block(after, summary.PUBLIC_START, summary.PUBLIC_END) == kept
    assert after.split(summary.PUBLIC_START, 1)[1] == before.split(summary.PUBLIC_START, 1)[1]
    main = block(after, summary.START, summary.END)
    assert "| Leduc | 9,457" in main and "Test CPU, 2 cores" in main and "Other CPU" not in main


def test_readme_is_left_as_it_is_without_any_csv_file(tmp_path, readme, monkeypatch, capsys):
    before = readme.read_text()
    monkeypatch.setattr(summary, "README", readme)
    summary.main(["--results", str(tmp_path / "nothing"), "--readme"])
    assert readme.read_text() == before
    assert "not been run" in capsys.readouterr().out  # printed, not written
    write_distributed(tmp_path)
    summary.main(["--results", str(tmp_path), "--readme"])  # the command writes the public block
    assert "| Coup TL3 | Ray, 2 workers |" in readme.read_text()
    assert block(readme.read_text(), summary.START, summary.END) == block(
        before, summary.START, summary.END)


def test_sampling_block_comes_from_mccfr_csv_and_only_its_block_is_written(tmp_path, readme):
    results = tmp_path / "results"
    results.mkdir()
    assert "not been run" in summary.sampling_summary(results)
    write(results, "mccfr", [  # as benchmarks.mccfr writes it: speed rows, then training rows
        dict(players=2, turn_limit=2, threads=1, coupsolve_it_per_s=30000.0,
             openspiel_it_per_s=40.0, ratio=750, infosets=99675),
        dict(players=2, turn_limit=2, threads=2, coupsolve_it_per_s=52000.0,
             openspiel_it_per_s=40.0, ratio=1300, infosets=99680),
        dict(players=4, turn_limit=4, threads=1, coupsolve_it_per_s=1600.0, openspiel_it_per_s=3.2,
             ratio=500, infosets=8953649),
        dict(sampling="external", regret="rm+", average="linear", threads=2, iterations=240189,
             seconds=30.1, exploitability=0.00301234),
    ], PUBLIC_EXTRA)
    text = summary.sampling_summary(results)
    assert "`python -m benchmarks.mccfr` (finished 2026-02-02 12:00:00) on Other CPU, 8 cores" in text
    assert cells(text, "| 2 | 2 | 1 |")[3:] == ["30,000", "40.00", "750x", "99,675"]
    assert cells(text, "| 2 | 2 | 2 |")[3:] == ["52,000", "40.00", "1,300x", "99,680"]
    assert cells(text, "| 4 | 4 | 1 |")[5:] == ["500x", "8,953,649"]
    assert cells(text, "| external | rm+ |")[3:] == ["2", "240,189", "30.1", "0.0030"]
    assert "the same wall time each" in text  # no times in these rows
    before = readme.read_text()
    assert summary.write_readme(results, readme) == [summary.SAMPLING_START]
    after = readme.read_text()
    assert after.split(summary.SAMPLING_START)[0] == before.split(summary.SAMPLING_START)[0]
    assert "| 2 | 2 | 1 | 30,000 |" in block(after, summary.SAMPLING_START, summary.SAMPLING_END)


def test_sampling_block_says_when_openspiel_ran_longer(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    write(results, "mccfr", [
        dict(players=2, turn_limit=2, threads=1, coupsolve_it_per_s=30000.0, coupsolve_seconds=20.0,
             openspiel_it_per_s=40.0, openspiel_seconds=60.4, ratio=750, infosets=99675),
    ], PUBLIC_EXTRA)
    text = summary.sampling_summary(results)
    assert "OpenSpiel for about 3 times coupsolve's wall time" in text
    assert "the same wall time each" not in text
