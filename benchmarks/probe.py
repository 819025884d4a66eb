"""Measurements that need a fresh process: compile time, build time, peak memory, large trees.

Run by the other benchmarks as ``python -m benchmarks.probe <task> ...``; prints one
JSON object on its last line of output. Tasks:

``compile``
    Time of the first call of each compiled kernel (layout, CFR passes in
    each mode, best response) and of a second, warm call, on Kuhn poker. Run
    with ``NUMBA_CACHE_DIR`` pointing at an empty directory it measures
    numba's compilation (a fresh machine); run again with the same directory,
    the loading of the cached machine code.
``build --game G --repeats R``
    Build the tree ``R`` times: seconds, bytes per history and the peak
    resident memory of the first build.
``solve --game G --modes M --repeats R --block S``
    Build the tree once, then per coupsolve mode (``precision/updates/threads``,
    e.g. ``float32/simultaneous/2``): the peak resident memory while a solver
    of that mode is set up, runs and evaluates its exploitability once, and its
    seconds per iteration (``R`` blocks of about ``S`` seconds).
``phases --game G --repeats R --warm W``
    The profile of one iteration (float64, alternating, one thread): after
    ``W`` CFR+ iterations (so that the reach is as sparse as in a real
    solve), each phase of a pass is timed alone, ``R`` times per player:
    the forward pass, the backward pass, the information-set step, and a
    plain sequential read of the bytes the forward pass moves (the
    bandwidth-bound ideal of that pass). See :func:`task_phases`.

Peak memory is the kernel's high-water mark of the resident set (``VmHWM``),
reset before each mode through ``/proc/self/clear_refs``.
"""

from __future__ import annotations

import argparse
import gc
import json
import time


def _status(field):
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _game(key):
    from .games import all_games

    return all_games()[key]


def task_compile(_args):
    """First and second call of each compiled step on Kuhn poker, then a first solve()."""
    began = time.perf_counter()
    import pyspiel

    import solvers
    from solvers.history.layout import layout_for

    out = {"import": time.perf_counter() - began}
    tree = solvers.GameTree.from_openspiel(pyspiel.load_game("kuhn_poker"))
    began = time.perf_counter()
    layout_for(tree)
    out["solver layout"] = time.perf_counter() - began
    # run_iterations is compiled once per reach/value type; the options
    # (algorithm, updates, threads) are runtime arguments of that one kernel.
    for precision in ("float64", "float32"):
        solver = solvers.Solver(tree, "cfr+", precision=precision)
        began = time.perf_counter()
        solver.step(1)
        first = time.perf_counter() - began
        began = time.perf_counter()
        solver.step(1)
        out[f"CFR iterations ({precision})"] = [first, time.perf_counter() - began]
    solver = solvers.Solver(tree, "cfr+")
    began = time.perf_counter()
    solver.exploitability()
    first = time.perf_counter() - began
    solver.step(1)  # a new average: evaluated again
    began = time.perf_counter()
    solver.exploitability()
    out["exploitability (best response)"] = [first, time.perf_counter() - began]
    leduc = solvers.GameTree.from_openspiel(pyspiel.load_game("leduc_poker"))
    began = time.perf_counter()
    solvers.solve(leduc, "cfr+", iterations=10, progress=False)
    out["first solve() of Leduc, 10 iterations"] = time.perf_counter() - began
    return out


def task_build(args):
    game = _game(args.game)
    _reset_peak()
    times, info = [], {}
    for _ in range(args.repeats):
        game.drop_tree()
        gc.collect()
        began = time.perf_counter()
        tree = game.tree()
        times.append(time.perf_counter() - began)
        if not info:
            info = dict(peak_rss=_status("VmHWM"), histories=tree.num_nodes,
                        infosets=tree.num_infosets, actions=tree.num_actions,
                        tree_bytes=tree.nbytes, bytes_per_history=tree.nbytes / tree.num_nodes,
                        build_info={k: v for k, v in game.build_info.items()
                                    if isinstance(v, (int, float))})
        del tree
    game.drop_tree()
    return dict(info, seconds=times)


def _bytes_per_pass(tree, layout, precision, updates, live_fraction):
    """Bytes each phase of one pass moves (model), counting each array element once.

    Forward (:func:`solvers.history.passes.pull`), every non-terminal: parent
    slot and edge (index size each), the parent's reach, the edge's
    probability (float64), its own reach and its entry in the list of reached
    histories. Backward, each reached non-terminal (``live_fraction`` of
    them): its list entry, node, first child and strategy offset, its reach,
    its value, then per child the child's value and (decisions) the strategy,
    and at the updated player's decisions the regret (read and written; half
    of the decision edges in an alternating pass). The information-set step:
    six float64 per action of the updated player(s) (strategy, sequence
    reach, average weight and regret, the last two read and written).
    """
    real = 8 if precision == "float64" else 4
    size = layout.node.itemsize
    nt = layout.node.shape[0]
    n = tree.num_nodes
    edges = layout.cprob.shape[0]
    decision_edges = n - 1 - edges
    both = updates == "simultaneous"
    reach = 2 if both else 1
    forward = nt * (2 * size + 2 * reach * real + 8 + 4)
    per_child = real + 8 * (decision_edges / max(n - 1, 1))
    regret = decision_edges * 16 * (1.0 if both else 0.5)
    backward = live_fraction * (nt * (4 * size + reach * real + real)
                                + (n - 1) * per_child + regret)
    infosets = tree.num_actions * (1.0 if both else 0.5) * 6 * 8
    return dict(forward=forward, backward=backward, infosets=infosets)


def task_solve(args):
    import numba

    import solvers
    from solvers.history.layout import layout_for
    from solvers.memory import estimate_solve_bytes

    game = _game(args.game)
    began = time.perf_counter()
    tree = game.tree()
    out = dict(build_seconds=time.perf_counter() - began, histories=tree.num_nodes,
               infosets=tree.num_infosets, actions=tree.num_actions, tree_bytes=tree.nbytes,
               build_peak_rss=_status("VmHWM"))
    gc.collect()
    began = time.perf_counter()
    layout = layout_for(tree)
    out["layout_seconds"] = time.perf_counter() - began
    out["layout_bytes"] = layout.nbytes
    out["rss_with_tree"] = _status("VmRSS")
    modes = []
    for text in args.modes.split(","):
        precision, updates, threads = text.split("/")
        threads = min(int(threads), numba.config.NUMBA_NUM_THREADS)
        modes.append((precision, updates, threads))
    results = []
    for precision, updates, threads in modes:
        gc.collect()
        reset = _reset_peak()
        rss0 = _status("VmRSS")
        row = dict(precision=precision, updates=updates, threads=threads)
        try:
            solver = solvers.Solver(tree, "cfr+", precision=precision, updates=updates,
                                    threads=threads)
        except MemoryError as exc:
            row["error"] = str(exc)
            results.append(row)
            continue
        began = time.perf_counter()
        solver.step(1)
        row["first_iteration_seconds"] = time.perf_counter() - began
        began = time.perf_counter()
        solver.step(1)
        estimate = max(time.perf_counter() - began, 1e-9)
        k = max(1, int(args.block / estimate))
        per_iteration = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            solver.step(k)
            per_iteration.append((time.perf_counter() - began) / k)
        live_fraction = solver.representation.live_fraction()
        began = time.perf_counter()
        value = solver.exploitability()
        row.update(seconds=per_iteration, iterations_per_block=k, live_fraction=live_fraction,
                   exploitability_seconds=time.perf_counter() - began,
                   exploitability=value, iterations=solver.iterations,
                   peak_rss=_status("VmHWM") if reset else -1, rss_before=rss0,
                   estimate_bytes=estimate_solve_bytes(
                       tree.num_nodes, tree.num_infosets, tree.num_actions, False,
                       precision=precision, updates=updates, threads=threads,
                       chance_edges=layout.cprob.shape[0], nonterminals=layout.node.shape[0],
                       layout=False),
                   bytes_per_pass=sum(_bytes_per_pass(tree, layout, precision, updates,
                                                      live_fraction).values()))
        del solver
        results.append(row)
    out["modes"] = results
    return out


def _stream():
    """A kernel reading the forward pass's bytes in order, with no indirection (compiled on first use)."""
    import numba

    @numba.njit(cache=False)
    def stream(par, edge, q, live):
        total = 0.0
        for j in range(par.shape[0]):
            q[j] = q[j] * 0.5 + float(par[j]) + float(edge[j])
            live[j] = par[j]
        for j in range(q.shape[0]):
            total += q[j]
        return total

    global _STREAM
    if _STREAM is None:
        _STREAM = stream
    return _STREAM


_STREAM = None


def task_phases(args):
    """Time each phase of a CFR+ pass alone (float64, alternating, one thread).

    The phases are the kernels :func:`solvers.history._kernel.run_iterations`
    calls, called here one at a time on copies of a warm solver's buffers:
    ``forward`` (:func:`~solvers.history.passes.pull`, every non-terminal),
    ``backward`` (:func:`~solvers.history.passes.backward`, the reached
    non-terminals only) and ``infosets``
    (:func:`~solvers.history._kernel._infosets`, the updated player's
    information sets). ``stream`` reads the forward pass's bytes in order
    (its index arrays, the reach written and read back, the list of reached
    histories) with no indirection: the difference from ``forward`` is the
    cost of the random parent and strategy reads.
    """
    import numpy as np

    import solvers
    from solvers.history import _kernel as K
    from solvers.history import passes
    from solvers.history.layout import layout_for

    game = _game(args.game)
    tree = game.tree()
    lay = layout_for(tree)
    solver = solvers.Solver(tree, "cfr+")
    began = time.perf_counter()
    solver.step(args.warm)
    warm = (time.perf_counter() - began) / max(args.warm, 1)
    began = time.perf_counter()
    solver.step(1)
    iteration = time.perf_counter() - began
    rep = solver.representation  # the phases run on copies of its buffers
    L, params = lay.arrays, rep.params
    nseg = lay.seg_kind.shape[0]
    state = rep.state._replace(tab=rep.state.tab.copy(), regret=rep.state.regret.copy(),
                               cumulative=rep.state.cumulative.copy(), own=rep.state.own.copy(),
                               inst=np.zeros((0, 0)))
    a = state.own.shape[0] - 1
    tab = state.tab
    sigma, cprob = tab[:a], tab[a:lay.one]
    reg = np.zeros_like(state.regret)
    q0, q1, v, live, live_count = state.q0, state.q1, state.v, state.live, state.live_count
    q_scratch = np.zeros_like(q0)
    live_scratch = np.empty_like(live)
    del solver, rep

    def forward(p):
        passes.pull(L, 0, nseg, tab, q0, q1, p, live, live_count)

    def backward(p):
        passes.backward(L, 0, nseg, cprob, sigma, q0, q1, v, reg, p, live, live_count)

    def infosets(p):
        state.own[a] = 1.0
        lo, hi = (0, lay.split) if p == 0 else (lay.split, lay.order.shape[0])
        K._infosets(L, state, lo, hi, sigma, False, 1.0, 1.0, 1.0, params)

    def read(_p):
        _stream()(lay.par, lay.edge, q_scratch, live_scratch)

    phases = {"forward": forward, "backward": backward, "infosets": infosets, "stream": read}
    seconds = {name: [] for name in phases}
    live_fraction = []
    for p in (0, 1):
        forward(p)
        backward(p)
        infosets(p)
        read(p)  # compiles stream
        for _ in range(args.repeats):
            for name, phase in phases.items():
                began = time.perf_counter()
                phase(p)
                seconds[name].append(time.perf_counter() - began)
            live_fraction.append(float(live_count.sum()) / max(lay.node.shape[0], 1))
    fraction = float(np.mean(live_fraction))
    bytes_ = _bytes_per_pass(tree, lay, "float64", "alternating", fraction)
    bytes_["stream"] = lay.node.shape[0] * (2 * lay.par.itemsize + 8 + 8 + live.itemsize)
    return dict(histories=tree.num_nodes, nonterminals=int(lay.node.shape[0]),
                actions=tree.num_actions, warm_iterations=args.warm,
                warm_seconds_per_iteration=warm, iteration_seconds=iteration,
                live_fraction=fraction, seconds=seconds, bytes=bytes_)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.probe")
    parser.add_argument("task", choices=("compile", "build", "solve", "phases"))
    parser.add_argument("--game", default="kuhn")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--block", type=float, default=0.3)
    parser.add_argument("--modes", default="float64/alternating/1")
    parser.add_argument("--warm", type=int, default=20)
    args = parser.parse_args(argv)
    task = {"compile": task_compile, "build": task_build, "solve": task_solve,
            "phases": task_phases}[args.task]
    try:
        result = task(args)
    except MemoryError as exc:
        result = {"error": f"MemoryError: {exc}"}
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
