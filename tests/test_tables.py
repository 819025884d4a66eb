"""The pure-Python layout module: importable without numba, and its one encoding of kinds and claims."""

import re
import subprocess
import sys

from coupsolve.engine import tables as T
from coupsolve.names import action_name

NO_NUMBA = """
import sys, types
sys.modules["numba"] = None  # any import of numba fails
for name, path in (("coupsolve", "coupsolve"), ("coupsolve.engine", "coupsolve/engine")):
    pkg = types.ModuleType(name)
    pkg.__path__ = [path]
    sys.modules[name] = pkg  # the packages' faces (the OpenSpiel game, the compiled engine) are not run
from coupsolve.rules import Rules
from coupsolve.names import action_name
print(int(Rules.house().params()[T_P_BUYOUT]), action_name(17))
"""


def test_rules_and_names_need_no_numba():
    code = NO_NUMBA.replace("T_P_BUYOUT", str(T.P_BUYOUT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["5", "Steal", "p1"]


def test_each_claim_is_named_by_the_actions_that_make_it():
    for a in range(T.NUM_ACTIONS):
        c = T.ACTION_CLAIM[a]
        name = action_name(a)
        if c < 0:
            # no claim: every other action, and a block with the Assassin (an id that is never legal)
            assert name == "Block Assassin" or not name.startswith(("Tax", "Steal", "Assassinate", "Exchange",
                                                                    "Block", "Treaty"))
            continue
        claim = T.CLAIM_NAMES[c]
        assert name == claim or name.startswith(claim + " p"), (name, claim)
        if claim.startswith("Block "):
            assert claim == f"Block {('Duke', 'Assassin', 'Captain', 'Ambassador', 'Contessa')[T.CLAIM_CHAR[c]]}"


def test_each_declared_kind_names_its_actions():
    for a in range(T.NUM_ACTIONS):
        kind = T.ACTION_KIND[a]
        if kind < 0:
            continue
        assert kind == T.ACT_VENGEANCE or T.KIND_NAMES[T.KIND_SLOT[kind]] in action_name(a)
        assert T.KIND_TARGETED[kind] == bool(re.search(r" p\d", action_name(a)))
