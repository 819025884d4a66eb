"""Write a :class:`solvers.GameTree` as a LiteEFG game file.

LiteEFG reads OpenSpiel games by walking them in Python and writing a text
file (``LiteEFG.OpenSpielEnv``); for the Python Coup game at turn limit 2
(3 million histories) that walk takes far longer than the solve being
measured. The same file can be written straight from coupsolve's tree of the
game, which OpenSpiel's enumeration equals (``tests/test_coup_tree.py``), so
that LiteEFG's solver runs on exactly the same game. The format is the one
``OpenSpielEnv`` writes: ``node <name> chance actions <child>=<p> ...``,
``node <name> player <1|2> actions <child> ...``, ``node <name> leaf payoffs
1=<u> 2=<-u>`` and ``infoset <name> nodes <node> ...``, after a header whose
``Opt`` block names ``openspiel`` and ``players: 2`` (without ``openspiel``
LiteEFG 1.0.0's parser exhausts memory).
"""

from __future__ import annotations

import numpy as np


def write_liteefg(tree, handle):
    """Write ``tree`` to the text file ``handle`` in LiteEFG's format."""
    kind, player, infoset = tree.node_kind, tree.node_player, tree.node_infoset
    child_start, num_children = tree.child_start, tree.num_children
    handle.write(f"# exported from coupsolve: {tree.num_nodes} histories\n#\n"
                 "# Opt {\n#     openspiel,\n#     players: 2,\n# }\n#\n")
    write = handle.write
    probs = tree.chance_prob
    payoff = tree.payoff
    for i in range(tree.num_nodes):
        k = kind[i]
        if k == 2:
            u = float(payoff[i])
            write(f"node n{i} leaf payoffs 1={u!r} 2={-u!r}\n")
            continue
        c0 = int(child_start[i])
        cs = range(c0, c0 + int(num_children[i]))
        if k == 1:
            write(f"node n{i} chance actions " + " ".join(f"n{c}={float(probs[c])!r}" for c in cs)
                  + "\n")
        else:
            write(f"node n{i} player {int(player[i]) + 1} actions " + " ".join(f"n{c}" for c in cs)
                  + "\n")
    decision = np.flatnonzero(kind == 0)
    ids = infoset[decision]
    order = np.argsort(ids, kind="stable")
    bounds = np.flatnonzero(np.diff(ids[order])) + 1
    count = [0, 0]
    for group in np.split(decision[order], bounds):
        if group.size == 0:
            continue
        s = int(infoset[group[0]])
        p = int(tree.infoset_player[s])
        write(f"infoset pl{p + 1}_{count[p]}__I{s} nodes " + " ".join(f"n{i}" for i in group)
              + "\n")
        count[p] += 1
