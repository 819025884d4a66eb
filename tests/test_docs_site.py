"""The documentation site builds strictly, and its tutorial runs as written.

``mkdocs build --strict`` fails on any warning: a broken link between pages, a page missing from the
navigation, an API page whose docstrings do not parse. The tutorial's and the variant how-to's
``sh`` and ``python`` blocks (and the Rules reference's example) run as a reader would type them
(tests/doc_blocks.py), each within a time limit.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from doc_blocks import blocks, run_python_blocks, run_sh_block

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# seconds per block: a safety net against a block that never finishes (issue 48's enumerated
# 3-million-history game), generous because a cold numba cache compiles the public tree's builder and
# solver inside one block (several minutes on a busy two-core machine); warm, the slowest block takes
# about 20 s
LIMIT = 900


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed "
                    "(pip install -e '.[docs]')")
def test_the_site_builds_strictly(tmp_path):
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                            "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
                           cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={"NO_MKDOCS_2_WARNING": "1", "PATH": "", "HOME": str(tmp_path)})
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    site = tmp_path / "site"
    for page in ("tutorial", "architecture", "benchmarks", "reference/api/solvers", "research/horizon"):
        assert (site / page / "index.html").exists(), page
    # the included research note and the API pages have content, not just their titles
    assert "TL4" in (site / "research" / "horizon" / "index.html").read_text(encoding="utf-8")
    assert "exploitability" in (site / "reference" / "api" / "solvers" / "index.html").read_text(encoding="utf-8")


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert pages and not [p for p in pages if p not in nav]


def test_the_tutorial_runs_as_written(tmp_path):
    """Top to bottom in one folder, as a reader would: the command line's blocks, then the Python ones
    (the last of which reads the strategy file the command line wrote)."""
    outs = [run_sh_block(block, tmp_path, LIMIT) for block in blocks(DOCS / "tutorial.md", "sh")]
    assert len(outs) == 4
    assert (tmp_path / "tl2.npz").exists() and (tmp_path / "tl2.png").exists()
    assert "Tax" in outs[2] and (tmp_path / "tl2.json").exists()
    assert "95%" in outs[3] and "game over" in outs[3]
    code = blocks(DOCS / "tutorial.md", "python")
    assert len(code) >= 6
    run_python_blocks(code, tmp_path, LIMIT)
    assert (tmp_path / "tl2-python.npz").exists()


def test_the_variant_how_to_runs(tmp_path):
    for block in blocks(DOCS / "howto" / "variant.md", "sh"):
        run_sh_block(block, tmp_path, LIMIT)
    run_python_blocks(blocks(DOCS / "howto" / "variant.md", "python"), tmp_path, LIMIT)
    assert (tmp_path / "selective.npz").exists()


def test_the_rules_reference_example_runs(tmp_path):
    run_python_blocks(blocks(DOCS / "reference" / "rules-class.md", "python"), tmp_path, LIMIT)


def test_a_block_over_its_time_limit_fails_and_says_which(tmp_path):
    """The limit is enforced (the README's first block once ran for ever): a Python block is ended by
    the watchdog, an ``sh`` block's process group is killed."""
    with pytest.raises(AssertionError, match=r"(?s)ran over 2 s.*python block 2 starts: import time"):
        run_python_blocks(["x = 1", "import time\ntime.sleep(60)"], tmp_path, 2)
    with pytest.raises(AssertionError, match="did not finish in 2 s"):
        run_sh_block("sleep 60", tmp_path, 2)
    assert run_sh_block("coupsolve info --help >/dev/null && echo fine", tmp_path, LIMIT).strip() == "fine"
