"""benchmarks.perfmap: the perf map names numba's compiled functions at their addresses."""

import json
import os
import subprocess
import sys

SCRIPT = r"""
import json, os, numba
from benchmarks.perfmap import compiled_functions, write_map

@numba.njit
def twice(x):
    return 2 * x

@numba.njit
def caller(x):
    return twice(x) + 1

caller(3)
rows = compiled_functions(("__main__",))
cres = next(iter(caller.overloads.values()))
name = cres.fndesc.llvm_func_name
entry = cres.library.get_pointer_to_function(name)
path = os.path.join(os.environ["MAP_DIR"], "perf.map")
count = write_map(path, ("__main__",))
lines = open(path).read().split("\n")
print(json.dumps({"at_entry": [n for a, s, n in rows if a == entry],
                  "name": name, "count": count, "rows": len(rows),
                  "ordered": all(a + s <= b for (a, s, _), (b, _, _) in zip(rows, rows[1:])),
                  "line": [l for l in lines if l.endswith(name)]}))
"""


def test_map_names_a_compiled_function_at_its_entry(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "MAP_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                         timeout=300, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["at_entry"] == [data["name"]]
    assert data["count"] == data["rows"] >= 2  # the caller and the function it calls, at least
    assert data["ordered"]
    address, size, name = data["line"][0].split()
    assert int(address, 16) > 0 and int(size, 16) > 0 and name == data["name"]
