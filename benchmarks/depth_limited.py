"""The depth-limited game against the plain turn-limit game of the same depth, on the history tree
and on the public tree: nodes, solve bytes and seconds per CFR+ iteration, as ratios in one run.

On the history tree the continuation choices are grafted below each leaf history as decision nodes
(``K + K**2`` per leaf, :func:`solvers.trees.leaves.graft_leaf_choices`); on the public tree below
each leaf public node, its value a matrix over pairs of entries per pair of continuations
(:mod:`coupsolve.depth.public`). Each is compared with the plain cut of its own representation. The
leaf values here are exact, from a CFR+ strategy of the game one turn longer (their seconds are
reported apart, as is the compile: the first iteration is not timed). Solve bytes are the tree's and
the solver's working memory as the solvers estimate it before allocating.

The public rows also give the least reads ratio (:func:`least_reads_ratio`): what no exact solve of the
depth-limited game can go below, whatever its layout. A pass of the plain public tree reads each entry,
each action and, at each node with a matrix, that matrix's cells; the depth-limited game has every node
of the cut above its leaves, and at each leaf must read, for every pair of private states with a chance
weight, the ``K * K`` values of the pair (generic values share nothing), where the plain leaf read its
matrix of chance weights. Reads are a model of a pass's memory traffic, not of its time.
"""

from __future__ import annotations

import sys
import time

from .common import bench_parser, load_average, machine_line, print_table, timed_main, write_csv


def _per_iteration(tree, iterations):
    import solvers

    solver = solvers.Solver(tree, "cfr+")
    solver.step(1)  # compiles (first run only): not timed
    t0 = time.perf_counter()
    solver.step(iterations)
    return (time.perf_counter() - t0) / iterations


def _solve_bytes(tree):
    """The tree's bytes and the solve's working memory (CFR+, float64, one thread)."""
    import solvers
    from solvers.public.rep import estimate_public_solve_bytes

    if isinstance(tree, solvers.PublicTree):
        return tree.nbytes + estimate_public_solve_bytes(tree.num_entries, tree.num_actions,
                                                         num_nodes=tree.num_nodes)
    return tree.nbytes + solvers.estimate_solve_bytes(tree.num_nodes, tree.num_infosets, tree.num_actions)


def _cells_read(f, nodes):
    """The matrix cells the public-tree arrays ``f`` read at ``nodes``: each node's matrix, whole."""
    m = f.term_matrix[nodes]
    m = m[m >= 0]
    return int((f.matrix_start[m + 1] - f.matrix_start[m]).sum())


def pass_reads(tree) -> int:
    """A pass's reads of the public tree ``tree`` in the model of the module docstring: every entry,
    every action, and each matrix's cells at every node that reads it."""
    f = tree.flat
    return f.entry_parent.shape[0] + int(f.infoset_num_actions.sum()) + _cells_read(f, slice(None))


def least_reads_ratio(cut_public, K) -> float:
    """The least per-pass reads of the depth-limited game with ``K`` continuations a player, over the
    plain public tree ``cut_public``'s (module docstring)."""
    from coupsolve.depth.public import public_leaves
    from solvers.trees.leaves.public import public_leaf_pairs

    leaves = public_leaves(cut_public)
    plain = pass_reads(cut_public.tree)
    pairs = public_leaf_pairs(cut_public.tree, leaves).leaf.size
    return (plain - _cells_read(cut_public.tree.flat, leaves) + K * K * pairs) / plain


def _row(k, K, name, plain_tree, plain, tree, each, made, least=None):
    """One table row and its CSV row: ``tree`` (``each`` seconds an iteration) against ``plain_tree``."""
    node_ratio = tree.num_nodes / plain_tree.num_nodes
    byte_ratio = _solve_bytes(tree) / _solve_bytes(plain_tree)
    return ([f"cut after turn {k}", f"K = {K}", name, f"{tree.num_nodes:,}", f"{node_ratio:.2f}x",
             f"{byte_ratio:.2f}x", f"{1e3 * plain:.1f} ms", f"{1e3 * each:.1f} ms", f"{each / plain:.2f}x",
             "-" if least is None else f"{least:.2f}x", f"{made:.1f} s"],
            dict(cut=k, continuations=K, tree=name, nodes=tree.num_nodes, plain_nodes=plain_tree.num_nodes,
                 node_ratio=node_ratio, solve_byte_ratio=byte_ratio, plain_seconds=plain, seconds=each,
                 time_ratio=each / plain, least_reads_ratio=least, leaf_value_seconds=made))


def _parser():
    parser = bench_parser("depth_limited", __doc__, "turn limit 1 only")
    parser.add_argument("--iterations", type=int, default=20)
    return parser


def run(args, info):
    """Time each cut plain and with K = 1, 2 and 4 leaves; print the table; returns the CSV's path."""
    import solvers

    import coupsolve
    from coupsolve import Rules, depth

    from coupsolve.depth.public import public_depth_limited_game
    from coupsolve.trees.stepwalk.build import build_public_tree

    rows, csv_rows = [], []
    for k in (1,) if args.quick else (1, 2):
        cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k), leaves=True)
        public = build_public_tree(cut.rules)
        longer = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k + 1))
        blueprint = solvers.solve(longer.tree, iterations=20, progress=False).average_policy
        where = depth.node_map(cut.tree, longer.tree)
        plain = {"history": _per_iteration(cut.tree, args.iterations),
                 "public": _per_iteration(public.tree, args.iterations)}
        print(f"cut after turn {k}: {cut.tree.num_nodes:,} histories, {len(cut.leaf_node):,} leaves",
              file=sys.stderr, flush=True)
        for K in (1, 2, 4):
            t0 = time.perf_counter()
            values = depth.values_from_longer_game(cut.tree, cut.leaf_node, longer, blueprint, K, where=where)
            made = time.perf_counter() - t0
            for name, plain_tree in (("history", cut.tree), ("public", public.tree)):
                t0 = time.perf_counter()
                game = (depth.depth_limited_game(cut.rules, values, cut=cut) if name == "history" else
                        public_depth_limited_game(cut.rules, values, cut, cut_public=public))
                graft = time.perf_counter() - t0
                row, csv_row = _row(k, K, name, plain_tree, plain[name], game.tree,
                                    _per_iteration(game.tree, args.iterations), made + graft,
                                    least_reads_ratio(public, K) if name == "public" else None)
                rows.append(row)
                csv_rows.append(csv_row)
                del game
    print_table("The depth-limited game against the plain cut of the same tree (CFR+, one thread, float64)",
                ["game", "leaves", "tree", "nodes", "nodes ratio", "solve bytes ratio", "plain / it",
                 "depth-limited / it", "time ratio", "least reads ratio", "leaf values + graft"], rows,
                note=f"{machine_line(info)}; load average {load_average():.2f}")
    return write_csv("depth_limited", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
