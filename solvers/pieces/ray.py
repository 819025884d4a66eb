"""The public-tree solver on a Ray cluster: parts of the tree resident in workers, the trunk in the driver.

``solvers.solve(tree, ..., backend=RayBackend(...))`` (or ``Solver(tree, ..., backend=...)``) solves a
:class:`~solvers.trees.publictree.PublicTree` or a :class:`~solvers.PublicPieces` with the same algorithms and
options as one process, and the same iterates. A ``PublicTree`` is cut at a shallow public level
(:func:`solvers.pieces.split.split`) into a trunk and one part per worker; a ``PublicPieces`` (a trunk
and often hundreds of parts) keeps its own cut, and its parts are dealt out to the workers as
runs of consecutive parts (:mod:`solvers.pieces.groups`). The trunk stays with the driver; each Ray
actor (a :class:`~solvers.pieces.groups.GroupRunner`) holds its parts' arrays, regrets, average weights
and strategy for the whole run. Per pass the driver sends each actor the reach of its roots' entries
and receives their values (and PCFR+'s predictions): ``2 x 8`` bytes per entry at the cut per pass,
nothing else (:meth:`RayPartsRep.traffic`). Policies, checkpoints and exploitability gather through
the same seam (:mod:`solvers.pieces.parts`).

Placement by memory: every actor's arrays and working memory are estimated before anything is
allocated (:func:`~solvers.pieces.groups.group_bytes`), actors are placed largest first on the alive
nodes with room (Ray's ``memory`` resource of each node, reserved per actor), and a cluster that cannot
hold one is refused with the figures.

Lost workers: each pass's inputs to a part are logged by the driver until the part's next checkpoint
(``checkpoint_dir`` and ``checkpoint_every``: every part saves its state there, and the driver the
trunk's, :mod:`solvers.pieces.checkpoints`). When an actor dies, the driver starts a new one on the same
part, restores its last checkpoint (or the initial state), replays the logged passes (the kernels are
deterministic, so this redoes the same arithmetic) and goes on: no finished iteration is lost. A
restarted driver resumes from those files (``RayBackend(..., resume=True)``), which no process gathers;
or from the solver's own checkpoint (``solve(..., checkpoint=, resume=)``), which gathers the state.

A tree too large for the driver is given as a
:class:`~solvers.pieces.remote.RemotePieces`, a recipe: each actor builds its own parts from it (placed
by the recipe's estimates of each part before anything is built), the driver walks only the trunk, and
a lost actor builds its parts again before it replays. The policy is then written where it lies, as
shares (:meth:`RayPartsRep.save_shares`); a result's whole policy, a solver checkpoint and a best
response's policy still gather whole through the driver, so at that size a run steps the solver, checks
its exploitability (values only cross the cut), checkpoints per worker (``checkpoint_dir``) and saves
shares.
"""

from __future__ import annotations

import os

import numpy as np

from solvers import npz as _npz
from solvers.pieces import checkpoints as PC
from solvers.cfr.checkpoint import tree_digest
from solvers.memory import check_fits, format_bytes
from solvers.pieces.groups import GroupRunner, deal, group, group_bytes, groups
from solvers.pieces.parts import PartsRep
from solvers.pieces.local import PublicPieces, piece_digest
from solvers.public.rep import params_of
from solvers.pieces.remote import RemotePieces, build_group, stubs, write_manifest, write_share
from solvers.pieces.split import choose_depth, count, piece_bytes, split

__all__ = ["RayBackend", "RayPartsRep"]



def _ray():
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - the extra is installed in the test environment
        raise ImportError("the Ray backend needs ray: pip install 'coupsolve[ray]'") from exc
    return ray


class _Runner(GroupRunner):
    """A :class:`~solvers.pieces.groups.GroupRunner` as a Ray actor: it also saves and restores its
    state, and says its pid (its parts' runners copy the read-only arrays Ray hands it, once per
    actor)."""

    def pid(self):
        return os.getpid()

    def peak_bytes(self):
        """The actor process's peak resident memory (Linux: ``ru_maxrss`` in KiB), interpreter
        and compiled kernels included."""
        import resource

        return 1024 * resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def save(self, path, meta):
        _npz.save(path, PC.KIND, dict(meta, iterations=self.iterations()), self.get_state())
        return self.iterations()

    def restore(self, path):
        meta, arrays = _npz.load(path, PC.KIND)
        return self.set_state(arrays, int(meta["iterations"]))


class _Built(_Runner):
    """A runner that builds its own parts from a recipe (:mod:`solvers.pieces.remote`) and keeps
    their keys and action ids for its share of the policy."""

    def __init__(self, recipe, lo, hi, params, precision, threads):
        g, self._summary, self._keys, self._ids = build_group(recipe, lo, hi)
        super().__init__(g, params, precision, threads)
        self._pieces = g.pieces

    def summary(self):
        return self._summary

    def table(self, name):
        """The parts' ``infoset_player``, ``infoset_num_actions`` or ``infoset_actions`` (in the
        group's order), or their ``digest``."""
        if name == "infoset_actions":
            return self._ids
        if name == "digest":
            return np.concatenate([piece_digest(q) for q in self._pieces])
        return np.concatenate([getattr(q.flat, name) for q in self._pieces])

    def save_share(self, path, meta):
        write_share(path, self.average(), self._keys, self._ids, self.table("infoset_num_actions"),
                    meta)


class RayBackend:
    """Where and how to run a public-tree solve on Ray.

    Parameters
    ----------
    address : str, optional
        A running cluster's address (or ``"auto"``); None starts a local one in this process
        (``ray.init(num_cpus=num_cpus)``) unless Ray is initialised already.
    workers : int
        Actors. A :class:`~solvers.trees.publictree.PublicTree` is cut into as many parts, one an actor; the
        parts of a :class:`~solvers.PublicPieces` (cut where it was built) are dealt out to them as
        runs of consecutive parts balanced by their entries and actions
        (:func:`solvers.pieces.groups.groups`).
    split_depth : int, optional
        The public level to cut a ``PublicTree`` at (:func:`choose_depth` when None).
    threads_per_worker : int
        numba threads in each actor.
    checkpoint_dir : str or os.PathLike, optional
        Where each part saves its state every ``checkpoint_every`` iterations (a lost worker then
        replays only the passes since); without it a lost worker replays from iteration 0.
    checkpoint_every : int, optional
    resume : bool
        Start from the newest complete generation of checkpoints in ``checkpoint_dir``
        (:mod:`solvers.pieces.checkpoints`: a restarted driver), not from iteration 0.
    num_cpus : int, optional
        CPUs of a local cluster started here.
    """

    def __init__(self, address=None, *, workers=2, split_depth=None, threads_per_worker=1,
                 checkpoint_dir=None, checkpoint_every=None, resume=False, num_cpus=None):
        if int(workers) < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if (checkpoint_dir is None) != (checkpoint_every is None):
            raise ValueError("checkpoint_dir and checkpoint_every go together")
        if resume and checkpoint_dir is None:
            raise ValueError("resume reads checkpoint_dir: give checkpoint_dir and checkpoint_every")
        self.resume = bool(resume)
        self.address, self.workers, self.split_depth = address, int(workers), split_depth
        self.threads_per_worker, self.num_cpus = int(threads_per_worker), num_cpus
        # absolute: the actors run elsewhere (another folder, another machine with the same mount)
        self.checkpoint_dir = None if checkpoint_dir is None else os.path.abspath(checkpoint_dir)
        self.checkpoint_every = checkpoint_every

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
    """:class:`~solvers.pieces.parts.PartsRep` with Ray actors for parts (module docstring)."""

    def __init__(self, tree, spec, precision, updates, threads, backend):
        ray = backend.connect()
        self._ray, self.backend = ray, backend
        if isinstance(tree, RemotePieces):
            trunk, parts, start = self._remote(tree, params_of(spec, updates), precision)
        else:
            (trunk, parts, self.depth), start = _cut(tree, backend), self._start
            check_fits(piece_bytes(trunk) + 8 * count(trunk.actions) * 5,
                       f"the trunk of {tree.game_id} cut at level {self.depth}")
        self._log = [[] for _ in parts]
        self._base = [None] * len(parts)  # per part: its checkpoint file, or (state, iterations)
        self._algorithm, self._checkpoint_meta = spec.name, None
        super().__init__(tree, spec, precision, updates, threads, trunk, parts, start, ray.get)
        if backend.resume:
            try:
                self._resume_parts()
            except BaseException:
                self.close()
                raise

    def _remote(self, tree, params, precision):
        """Actors that build their own parts of ``tree``'s recipe (dealt out as runs balanced by
        cost, placed by the recipe's estimates), the trunk walked here meanwhile, and the tree
        bound: ``(trunk, the groups' stubs, a runner factory handing over the actors)``."""
        recipe, ray = tree.recipe, self._ray
        check_fits(recipe.trunk_bytes(), f"the trunk of {tree.game_id}'s recipe")
        cuts = deal([recipe.cost(k) for k in range(recipe.num_parts)], self.backend.workers)
        runs = list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))
        needs = [recipe.worker_bytes() + sum(recipe.part_bytes(k, precision, params.predictive)
                                             for k in range(lo, hi)) for lo, hi in runs]
        self._ctor = [(recipe, lo, hi, params, precision, self.backend.threads_per_worker)
                      for lo, hi in runs]
        self._actor = ray.remote(_Built)
        self._options = self._placed(needs)
        handles = [self._new_actor(i) for i in range(len(runs))]
        walk = recipe.trunk()  # while the actors build their parts
        summaries = ray.get([h.summary.remote() for h in handles])
        trunk = walk.piece([leaves for s in summaries for _, _, leaves in s])
        roots = [(walk.roots(lo)[0], walk.roots(hi - 1)[1]) for lo, hi in runs]
        parts, sizes = stubs(trunk, summaries, roots)
        self._trunk_walk, self.depth = walk, trunk.num_levels - 1
        tree.bind(trunk, parts, sizes, self._fetch)
        return trunk, parts, lambda *_: handles

    def _fetch(self, name):
        """A table array of the whole tree gathered from the trunk and the actors."""
        q = self.trunk.piece
        here = {"infoset_actions": self._trunk_walk.action_ids, "digest": lambda: piece_digest(q)}
        here = here[name]() if name in here else getattr(q.flat, name)
        return np.concatenate([here] + self._ray.get([h.table.remote(name)
                                                      for h in self.handles]))

    def save_shares(self, folder):
        """The average policy written as shares (:mod:`solvers.pieces.remote`): the trunk's here,
        every actor's parts' by the actor (on its machine: give a folder all of them reach), then
        the manifest. Only for a tree built by the workers (:class:`RemotePieces`)."""
        tree = self.game_tree
        if not isinstance(tree, RemotePieces):
            raise TypeError("save_shares writes the shares of a RemotePieces; a tree built here "
                            "gives its whole policy (average_policy())")
        folder = os.path.abspath(folder)  # the actors' working folder is not the driver's
        os.makedirs(folder, exist_ok=True)
        base = dict(game_id=tree.game_id, iterations=self.iterations)
        names = [f"share-{i}.npz" for i in range(len(self.parts) + 1)]
        f = self.trunk.piece.flat
        write_share(os.path.join(folder, names[0]), self.trunk.average(), self._trunk_walk.keys(),
                    self._trunk_walk.action_ids(), f.infoset_num_actions,
                    dict(base, first_infoset=0, first_action=0))
        self._ray.get([h.save_share.remote(os.path.join(folder, name), dict(
            base, first_infoset=q.infosets.start, first_action=q.actions.start))
            for h, q, name in zip(self.handles, self.parts, names[1:])])
        write_manifest(folder, tree.game_id, tree.recipe.record(), names,
                       iterations=self.iterations)

    def _placed(self, needs):
        """Ray options per actor: placed by memory on the alive nodes (:func:`_place`)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._needs = needs
        nodes = [n for n in self._ray.nodes() if n.get("Alive")]
        return [dict(num_cpus=0, memory=int(need), max_restarts=0,
                     scheduling_strategy=NodeAffinitySchedulingStrategy(nodes[k]["NodeID"],
                                                                        soft=False))
                for need, k in zip(needs, _place(needs, nodes))]

    def _start(self, parts, params, precision):
        ray = self._ray
        self._options = self._placed([group_bytes(g, params.predictive, precision) for g in parts])
        args = (params, precision, self.backend.threads_per_worker)
        self._ctor = [(ray.put(q),) + args for q in parts]
        self._actor = ray.remote(_Runner)
        return [self._new_actor(i) for i in range(len(parts))]

    def _new_actor(self, i):
        """An actor for part ``i`` (a recipe's builds its parts again)."""
        return self._actor.options(**self._options[i]).remote(*self._ctor[i])

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

    def _meta(self):
        """What a checkpoint file of this solve records and a resume checks."""
        if self._checkpoint_meta is None:
            self._checkpoint_meta = dict(
                game_id=self.game_tree.game_id, depth=int(self.depth), parts=len(self.parts),
                algorithm=self._algorithm, precision=self.precision,
                digest=tree_digest(self.game_tree))
        return self._checkpoint_meta

    def _checkpoint_parts(self):
        """A generation of checkpoints (:mod:`solvers.pieces.checkpoints`): every actor's, then the
        trunk's, then the older generations removed."""
        folder, t = os.fspath(self.backend.checkpoint_dir), self.iterations
        os.makedirs(folder, exist_ok=True)
        paths = [PC.part_path(folder, i, t) for i in range(len(self.parts))]
        meta = self._meta()
        self._ray.get([h.save.remote(p, dict(meta, part=i))
                       for i, (h, p) in enumerate(zip(self.handles, paths))])
        PC.save_trunk(folder, t, meta, self.trunk.get_state())
        PC.remove_older(folder, t)
        self._base = paths
        self._log = [[] for _ in self.parts]

    def _resume_parts(self):
        """Every actor and the trunk restored from the newest complete generation of checkpoints in
        ``checkpoint_dir`` (a restarted driver: ``RayBackend(..., resume=True)``)."""
        folder = os.fspath(self.backend.checkpoint_dir)
        t = PC.latest(folder)
        if t is None:
            raise ValueError(f"resume: {folder} holds no complete checkpoint of a distributed solve "
                             "(a trunk-<iterations>.npz beside its part files)")
        meta, state = PC.load_trunk(folder, t)
        PC.check_meta(meta, self._meta(), PC.trunk_path(folder, t))
        paths = [PC.part_path(folder, i, t) for i in range(len(self.parts))]
        got = self._ray.get([h.restore.remote(p) for h, p in zip(self.handles, paths)])
        if any(g != t for g in got):
            raise ValueError(f"resume: the part files of generation {t} in {folder} are of "
                             f"iterations {sorted(set(got))}, not {t}")
        self.trunk.set_state(state, t)
        self._base, self._log = paths, [[] for _ in self.parts]

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
        """End the actors; a tree they built keeps its digests (32 bytes a piece), gathered first,
        for its results' and checkpoints' files."""
        if isinstance(self.game_tree, RemotePieces):
            self.game_tree.piece_digests  # noqa: B018 (cached)
        for h in self.handles:
            self._ray.kill(h)
