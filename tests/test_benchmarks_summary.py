"""The README's benchmark summary is computed from the CSV files, not typed in."""

import csv

import pytest

from benchmarks import summary

EXTRA = dict(machine="Test CPU, 2 cores", versions="python 3.11", date="2026-01-01 00:00:00")


def write(folder, name, rows):
    columns = list(dict.fromkeys(k for row in rows for k in row)) + list(EXTRA)
    with open(folder / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, **EXTRA})


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
