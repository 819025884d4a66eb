"""The README's code blocks run as written, each within a time limit (issue 48: its first Python block
once asked OpenSpiel to enumerate a game of 3 million histories and never finished)."""

from pathlib import Path

from doc_blocks import blocks, run_python_blocks, run_sh_block

README = Path(__file__).resolve().parent.parent / "README.md"
# seconds per block: a safety net against a block that never finishes (issue 48); a cold numba cache
# compiles the builder and the solver (minutes on a busy two-core machine)
LIMIT = 600


def test_the_readme_has_its_examples():
    assert len(blocks(README, "python")) == 1 and len(blocks(README, "sh")) == 1
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_readmes_command_line_examples_run(tmp_path):
    (block,) = blocks(README, "sh")
    out = run_sh_block(block, tmp_path, LIMIT)
    assert (tmp_path / "tl2.npz").exists()
    assert "Tax" in out and "95%" in out


def test_the_readmes_python_example_runs(tmp_path):
    run_python_blocks(blocks(README, "python"), tmp_path, LIMIT)
    assert (tmp_path / "strategy.npz").exists()
