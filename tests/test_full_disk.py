"""A full disk (issue 48): with --out, --checkpoint or train --out on a full filesystem the whole run
ended in OSError tracebacks and nothing was kept. Now a checkpoint that cannot be written is one
warning line and the run goes on; an --out that cannot be written is one error line naming where the
finished strategy was saved instead."""

import errno
import os

import pytest

import solvers.npz
from coupsolve.cli import main
from solvers import SolveResult
from solvers.mccfr.tablefile import read_table


@pytest.fixture
def full(tmp_path, monkeypatch):
    """A folder whose every durable write fails with ENOSPC, as on a full filesystem."""
    folder = tmp_path / "full"
    folder.mkdir()
    original = solvers.npz.replace_durably

    def replace(path, write, staged=None):
        if os.path.dirname(os.path.abspath(path)) == str(folder):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return original(path, write, staged)

    monkeypatch.setattr(solvers.npz, "replace_durably", replace)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # the rescued file: in the test's folder
    return folder


def _errors(err):
    return [line for line in err.splitlines() if line.startswith("coupsolve: error")]


def test_a_solve_on_a_full_disk_keeps_its_strategy(full, tmp_path, capsys):
    code = main(["solve", "--turn-limit", "1", "--iterations", "2", "--no-progress",
                 "--out", str(full / "s.npz"), "--checkpoint", str(full / "c.npz"), "--checkpoint-every", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    (line,) = _errors(err)
    rescued = solvers.npz.rescue_path(full / "s.npz")
    assert f"saved to {rescued} instead" in line and "No space left on device" in line
    assert SolveResult.load(rescued).iterations == 2
    assert "warning: checkpoint" in err and "the run goes on" in err


def test_a_train_on_a_full_disk_keeps_its_strategy(full, tmp_path, capsys):
    code = main(["train", "--turn-limit", "1", "--iterations", "10", "--games", "4", "--no-progress",
                 "--out", str(full / "t.npz"), "--checkpoint", str(full / "tc.npz")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    (line,) = _errors(err)
    rescued = solvers.npz.rescue_path(full / "t.npz")
    assert f"saved to {rescued} instead" in line
    meta, _ = read_table(rescued)
    assert meta["iterations"] == 10 and meta["trained"]
