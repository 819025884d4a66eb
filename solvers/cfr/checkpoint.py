"""Checkpoints of a running solve, for resuming it identically.

A checkpoint is one ``.npz`` (no pickle) holding the complete solver state:
cumulative regrets, cumulative average-strategy weights, the current strategy
(for ``pcfr+`` it already includes the prediction), the iteration count, the scheduled
points of the exploitability curve and the solver seconds, with JSON metadata
naming the game, the algorithm, the seed and the tree's digest. Resuming
restores these arrays bit for bit, so ``N`` iterations split across runs equal
``N`` in one run.

Writes are durable (``solvers.npz.save``, which every ``.npz`` of solvers goes
through, strategy files included): the file is written beside its target as
``<path>.tmp``, flushed and fsynced, then renamed over the target and the
folder fsynced, so a kill at any moment (SIGKILL or a power cut included)
leaves the last complete checkpoint readable; a ``.tmp`` left by a killed
write is removed by the next write and never read. :func:`write_durably`
holds Ctrl-C during a write until it is complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import threading
import zipfile
from collections.abc import Mapping

import numpy as np

from solvers import npz as _npz

__all__ = ["save_checkpoint", "load_checkpoint", "check_checkpoint", "tree_digest", "write_durably",
           "CheckpointState"]

_KIND = "coupsolve.solvers.checkpoint"
_STATE = ("regret", "cumulative", "sigma")
_CURVE = ("curve_iterations", "curve_seconds", "curve_exploitability")


def tree_digest(tree):
    """sha256 (hex) of what a policy's meaning depends on beyond the layout: payoffs, chance, shape.

    Parameters
    ----------
    tree : GameTree, PublicTree or another tree type
        The arrays its type names in ``DIGEST_FIELDS`` are hashed.
    """
    h = hashlib.sha256()
    for name in tree.DIGEST_FIELDS:
        h.update(np.ascontiguousarray(getattr(tree, name)).data)
    return h.hexdigest()


@contextlib.contextmanager
def interrupts_held(caught):
    """Hold Ctrl-C (SIGINT) inside the block, appending to ``caught`` instead (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def write_durably(path, kind, meta, arrays):
    """Write an ``.npz`` (``solvers.npz.save``: durable, a kill at any moment leaves ``path`` complete)
    with Ctrl-C held until the file is in place.

    Returns
    -------
    bool
        True if Ctrl-C came during the write (the caller decides what it ends).
    """
    caught = []
    with interrupts_held(caught):
        _npz.save(path, kind, meta, arrays)
    return bool(caught)


def save_checkpoint(path, tree, algorithm, seed, iteration, seconds, state, curve):
    """Write a checkpoint durably (:func:`write_durably`); True if Ctrl-C came during the write.

    Parameters
    ----------
    path : str or os.PathLike
    tree : GameTree
    algorithm : str
    seed, iteration : int
    seconds : float
        Solver seconds so far.
    state : dict
        ``regret``, ``cumulative`` and ``sigma`` arrays.
    curve : tuple of three sequences
        Iterations, seconds and exploitability of the scheduled curve points.
    """
    arrays = {name: state[name] for name in _STATE}
    arrays.update(zip(_CURVE, (np.asarray(curve[0], np.int64), np.asarray(curve[1], np.float64),
                               np.asarray(curve[2], np.float64))))
    arrays["infoset_num_actions"] = tree.infoset_num_actions
    arrays["infoset_actions"] = tree.infoset_actions
    meta = dict(game_id=tree.game_id, algorithm=algorithm, seed=int(seed),
                iterations=int(iteration), seconds=float(seconds), tree_digest=tree_digest(tree))
    return write_durably(path, _KIND, meta, arrays)


def load_checkpoint(path, tree=None, state=True):
    """Read a checkpoint written for ``tree`` (its state arrays too, unless ``state`` is False:
    then :class:`CheckpointState` reads them one at a time).

    Parameters
    ----------
    path : str or os.PathLike
    tree : GameTree, optional
        When given, the file must be for its game and infoset layout (else
        :func:`check_checkpoint` does that later).

    Returns
    -------
    dict
        ``algorithm``, ``seed``, ``iterations``, ``seconds``, the state arrays,
        the curve arrays, and ``game_id``, ``infoset_num_actions`` and
        ``infoset_actions`` (for :func:`check_checkpoint`).

    Raises
    ------
    ValueError
        If the file is not a checkpoint or was written for another game or
        infoset layout.
    """
    meta, arrays = _npz.load(path, _KIND, skip=() if state else _STATE)
    missing = [n for n in (_STATE if state else ()) + _CURVE + ("infoset_num_actions",
                                                                 "infoset_actions")
               if n not in arrays]
    if missing:
        raise ValueError(f"checkpoint {path} lacks arrays {missing}")
    out = {name: _state_array(arrays[name]) for name in _STATE if state}
    out.update(path=path, game_id=meta["game_id"], infoset_num_actions=arrays["infoset_num_actions"],
               infoset_actions=arrays["infoset_actions"], tree_digest=meta.get("tree_digest"))
    if tree is not None:
        check_checkpoint(out, tree)
    out["curve_iterations"] = arrays["curve_iterations"].astype(np.int64)
    out["curve_seconds"] = arrays["curve_seconds"].astype(np.float64)
    out["curve_exploitability"] = arrays["curve_exploitability"].astype(np.float64)
    out.update(algorithm=meta["algorithm"], seed=int(meta["seed"]),
               iterations=int(meta["iterations"]), seconds=float(meta["seconds"]))
    return out


def _state_array(a):
    """A state array as a solver takes it: float32 stays float32 (a float32 public solve's, which
    float64 would double), anything else is float64."""
    return np.ascontiguousarray(a, dtype=np.float32 if a.dtype == np.float32 else np.float64)


class CheckpointState(Mapping):
    """The state arrays of the checkpoint ``path``, each read from the file when asked for: a resume
    holds one of them at a time beside the solver's own buffers (the largest of them instead of
    all of them at once)."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __getitem__(self, name):
        if name not in _STATE:
            raise KeyError(name)
        try:
            with np.load(self.path, allow_pickle=False) as f:
                return _state_array(f[name])
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            raise ValueError(f"checkpoint {self.path}: cannot read {name} ({exc})") from exc

    def __iter__(self):
        return iter(_STATE)

    def __len__(self):
        return len(_STATE)


def check_checkpoint(saved, tree):
    """Refuse a checkpoint (as :func:`load_checkpoint` returns it) written for another game or layout.

    Raises
    ------
    ValueError
        Naming the file, the games and the layouts.
    """
    _npz.check_layout(tree, saved["game_id"], saved["infoset_num_actions"], saved["infoset_actions"],
                      saved["path"])
    check_digest(tree, saved.get("tree_digest"), saved["path"])


def check_digest(tree, digest, path):
    """Refuse a file whose recorded :func:`tree_digest` (``None``: not recorded) is not ``tree``'s."""
    if digest is not None and digest != tree_digest(tree):
        raise ValueError(f"{path} was solved on another tree of game {tree.game_id!r} (its payoffs, "
                         "chance probabilities or shape differ)")
