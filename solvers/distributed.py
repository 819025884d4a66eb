"""The public-tree solver on a Ray cluster: parts of the tree resident in workers, the trunk in the driver.

``solvers.solve(tree, ..., backend=RayBackend(...))`` (or ``Solver(tree, ..., backend=...)``) solves a
:class:`~solvers.public.PublicTree` or a :class:`~solvers.PublicPieces` with the same algorithms and
options as one process, and the same iterates. A ``PublicTree`` is cut at a shallow public level
(:func:`solvers.public_split.split`) into a trunk and one part per worker; a ``PublicPieces`` (Coup at
turn limit 4: a trunk and 400 parts) keeps its own cut, and its parts are dealt out to the workers as
runs of consecutive parts (:mod:`solvers.public_groups`). The trunk stays with the driver; each Ray
actor (a :class:`~solvers.public_groups.GroupRunner`) holds its parts' arrays, regrets, average weights
and strategy for the whole run. Per pass the driver sends each actor the reach of its roots' entries
and receives their values (and PCFR+'s predictions): ``2 x 8`` bytes per entry at the cut per pass,
nothing else (:meth:`RayPartsRep.traffic`). Policies, checkpoints and exploitability gather through
the same seam (:mod:`solvers.public_parts`).

Placement by memory: every actor's arrays and working memory are estimated before anything is
allocated (:func:`~solvers.public_groups.group_bytes`), actors are placed largest first on the alive
nodes with room (Ray's ``memory`` resource of each node, reserved per actor), and a cluster that cannot
hold one is refused with the figures.

Lost workers: each pass's inputs to a part are logged by the driver until the part's next checkpoint
(``checkpoint_dir`` and ``checkpoint_every``: every part saves its state there). When an actor dies, the
driver starts a new one on the same part, restores its last checkpoint (or the initial state), replays
the logged passes (the kernels are deterministic, so this redoes the same arithmetic) and goes on: no
finished iteration is lost. A restarted driver resumes from the solver's own checkpoint
(``solve(..., checkpoint=, resume=)``), which gathers every part's state.

What it does not do yet: the driver builds the whole tree (or all its pieces) and ships the parts, and
it gathers the policies and checkpoints whole. A tree too large for the driver (turn limit 5 of Coup)
needs each worker to build its own parts from the game and to keep its share of the strategy.
"""

from __future__ import annotations

import os

import numpy as np

from . import _npz
from .memory import check_fits, format_bytes
from .public_groups import GroupRunner, group, group_bytes, groups
from .public_parts import PartsRep
from .public_pieces import PublicPieces
from .public_split import choose_depth, count, piece_bytes, split

__all__ = ["RayBackend", "RayPartsRep"]

_CHECKPOINT_KIND = "coupsolve.solvers.PartCheckpoint"


def _ray():
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - the extra is installed in the test environment
        raise ImportError("the Ray backend needs ray: pip install 'coupsolve[ray]'") from exc
    return ray


class _Runner(GroupRunner):
    """A :class:`~solvers.public_groups.GroupRunner` as a Ray actor: it also saves and restores its
    state, and says its pid (its parts' runners copy the read-only arrays Ray hands it, once per
    actor)."""

    def pid(self):
        return os.getpid()

    def save(self, path, meta):
        _npz.save(path, _CHECKPOINT_KIND, dict(meta, iterations=self.iterations()), self.get_state())
        return self.iterations()

    def restore(self, path):
        meta, arrays = _npz.load(path, _CHECKPOINT_KIND)
        return self.set_state(arrays, int(meta["iterations"]))


class RayBackend:
    """Where and how to run a public-tree solve on Ray.

    Parameters
    ----------
    address : str, optional
        A running cluster's address (or ``"auto"``); None starts a local one in this process
        (``ray.init(num_cpus=num_cpus)``) unless Ray is initialised already.
    workers : int
        Actors. A :class:`~solvers.public.PublicTree` is cut into as many parts, one an actor; the
        parts of a :class:`~solvers.PublicPieces` (cut where it was built) are dealt out to them as
        runs of consecutive parts balanced by their entries and actions
        (:func:`solvers.public_groups.groups`).
    split_depth : int, optional
        The public level to cut a ``PublicTree`` at (:func:`choose_depth` when None).
    threads_per_worker : int
        numba threads in each actor.
    checkpoint_dir : str or os.PathLike, optional
        Where each part saves its state every ``checkpoint_every`` iterations (a lost worker then
        replays only the passes since); without it a lost worker replays from iteration 0.
    checkpoint_every : int, optional
    num_cpus : int, optional
        CPUs of a local cluster started here.
    """

    def __init__(self, address=None, *, workers=2, split_depth=None, threads_per_worker=1,
                 checkpoint_dir=None, checkpoint_every=None, num_cpus=None):
        if int(workers) < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if (checkpoint_dir is None) != (checkpoint_every is None):
            raise ValueError("checkpoint_dir and checkpoint_every go together")
        self.address, self.workers, self.split_depth = address, int(workers), split_depth
        self.threads_per_worker, self.num_cpus = int(threads_per_worker), num_cpus
        self.checkpoint_dir, self.checkpoint_every = checkpoint_dir, checkpoint_every

    def connect(self):
        """Initialise Ray (once); returns the module."""
        ray = _ray()
        if not ray.is_initialized():
            if self.address is None:
                ray.init(num_cpus=self.num_cpus, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=self.address, log_to_driver=False)
        return ray

    def representation(self, tree, spec, precision, updates, threads):
        """The representation a :class:`~solvers.Solver` iterates (its constructor's signature)."""
        return RayPartsRep(tree, spec, precision, updates, threads, self)


def _place(needs, nodes):
    """Node index per part, largest part first on the node with most room left; or MemoryError."""
    room = [float(n["Resources"].get("memory", 0.0)) for n in nodes]
    where = [0] * len(needs)
    for i in sorted(range(len(needs)), key=lambda i: -needs[i]):
        k = int(np.argmax(room))
        if needs[i] > room[k]:
            total = ", ".join(format_bytes(r) for r in room)
            raise MemoryError(f"part {i} needs {format_bytes(needs[i])} and no Ray node has that much "
                              f"memory left (room per node now: {total}; parts need "
                              f"{format_bytes(sum(needs))} in all): add nodes or workers")
        room[k] -= needs[i]
        where[i] = k
    return where


def _cut(tree, backend):
    """``(trunk, groups, cut level)``: a ``PublicPieces``' own trunk and its parts dealt out to the
    backend's workers, or a ``PublicTree`` cut into one part per worker."""
    if isinstance(tree, PublicPieces):
        depth = tree.trunk.num_levels - 1
        if backend.split_depth not in (None, depth):
            raise ValueError(f"{tree!r} is cut at level {depth}, where it was built; split_depth "
                             f"{backend.split_depth} cannot cut it elsewhere")
        return tree.trunk, groups(tree.parts, backend.workers), depth
    depth = backend.split_depth or choose_depth(tree, backend.workers)
    trunk, parts = split(tree, depth, backend.workers)
    return trunk, [group([q]) for q in parts], depth


class RayPartsRep(PartsRep):
    """:class:`~solvers.public_parts.PartsRep` with Ray actors for parts (module docstring)."""

    def __init__(self, tree, spec, precision, updates, threads, backend):
        ray = backend.connect()
        self._ray, self.backend = ray, backend
        trunk, parts, depth = _cut(tree, backend)
        self.depth = depth
        check_fits(piece_bytes(trunk) + 8 * count(trunk.actions) * 5,
                   f"the trunk of {tree.game_id} cut at level {depth}")
        self._log = [[] for _ in parts]
        self._base = [None] * len(parts)  # per part: its checkpoint file, or (state, iterations)
        super().__init__(tree, spec, precision, updates, threads, trunk, parts, self._start,
                         ray.get)

    def _start(self, parts, params, precision):
        ray = self._ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._needs = [group_bytes(g, params.predictive, precision) for g in parts]
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        where = _place(self._needs, nodes)
        self._refs = [ray.put(q) for q in parts]
        self._actor = ray.remote(_Runner)
        self._options = [dict(num_cpus=0, memory=int(need), max_restarts=0,
                              scheduling_strategy=NodeAffinitySchedulingStrategy(
                                  nodes[k]["NodeID"], soft=False))
                         for need, k in zip(self._needs, where)]
        self._args = (params, precision, self.backend.threads_per_worker)
        return [self._new_actor(i) for i in range(len(parts))]

    def _new_actor(self, i):
        return self._actor.options(**self._options[i]).remote(self._refs[i], *self._args)

    def _call_parts(self, method, args):
        ray = self._ray
        refs = [getattr(h, method).remote(*a) for h, a in zip(self.handles, args)]
        out = []
        for i, ref in enumerate(refs):
            try:
                out.append(ray.get(ref))
            except ray.exceptions.RayActorError:
                self._recover(i)
                out.append(ray.get(getattr(self.handles[i], method).remote(*args[i])))
        if method == "run_pass":
            for log, a in zip(self._log, args):
                log.append(a)
        return out

    def _recover(self, i):
        """A new actor for part ``i`` in the state of the last finished pass."""
        ray = self._ray
        self.handles[i] = self._new_actor(i)
        base = self._base[i]
        if isinstance(base, str):
            ray.get(self.handles[i].restore.remote(base))
        elif base is not None:
            ray.get(self.handles[i].set_state.remote(*base))
        for a in self._log[i]:
            ray.get(self.handles[i].run_pass.remote(*a))
        self.recovered = getattr(self, "recovered", 0) + 1

    def iterate(self, count):
        every = self.backend.checkpoint_every
        for _ in range(count):
            super().iterate(1)
            if every and self.iterations % every == 0:
                self._checkpoint_parts()

    def _checkpoint_parts(self):
        folder = os.fspath(self.backend.checkpoint_dir)
        os.makedirs(folder, exist_ok=True)
        paths = [os.path.join(folder, f"part-{i}.npz") for i in range(len(self.parts))]
        meta = dict(game_id=self.game_tree.game_id, depth=self.depth, parts=len(self.parts))
        self._ray.get([h.save.remote(p, dict(meta, part=i))
                       for i, (h, p) in enumerate(zip(self.handles, paths))])
        self._base = paths
        self._log = [[] for _ in self.parts]

    def set_state(self, state, iterations):
        super().set_state(state, iterations)
        state = {name: state[name] for name in ("regret", "cumulative", "sigma")}
        self._log = [[] for _ in self.parts]
        self._base = [({k: v[q.actions] for k, v in state.items()}, iterations) for q in self.parts]
        if self.backend.checkpoint_every:
            self._checkpoint_parts()

    def pids(self):
        """The process id of every part's actor (to test the loss of one)."""
        return self._ray.get([h.pid.remote() for h in self.handles])

    def traffic(self):
        """Bytes sent and received per pass: the roots' reach down, their values (and PCFR+'s
        predictions) up, 8 bytes each."""
        cut = self.trunk.piece.roots[1] - self.trunk.piece.roots[0]
        return 8 * cut * (2 + (1 if self.params.predictive else 0))

    def close(self):
        """End the actors."""
        for h in self.handles:
            self._ray.kill(h)
