"""Every Python code block of the README runs as written (at turn limit 1 instead of 2, to stay fast)."""

import re
import runpy
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_python_blocks():
    assert len(python_blocks()) >= 2


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    code = "\n".join(python_blocks())
    assert "turn_limit=2)" in code
    script = tmp_path / "readme.py"
    script.write_text(code.replace("turn_limit=2)", "turn_limit=1)"))
    monkeypatch.chdir(tmp_path)  # the blocks save files
    names = runpy.run_path(str(script))
    assert (tmp_path / "strategy.npz").exists() and (tmp_path / "checkpoint.npz").exists()
    assert names["solver"].iterations == 100
    assert names["result"].exploitability <= 1e-3
