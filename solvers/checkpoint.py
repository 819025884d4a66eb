"""Checkpoints of a running solve, for resuming it identically.

A checkpoint is one ``.npz`` (no pickle) holding the complete solver state:
cumulative regrets, cumulative average-strategy weights, the current strategy
(for ``pcfr+`` it already includes the prediction), the iteration count, the scheduled
points of the exploitability curve and the solver seconds, with JSON metadata
naming the game, the algorithm and the seed. Resuming restores these arrays
bit for bit, so ``N`` iterations split across runs equal ``N`` in one run.
"""

from __future__ import annotations

import numpy as np

from . import _npz

__all__ = ["save_checkpoint", "load_checkpoint"]

_KIND = "coupsolve.solvers.checkpoint"
_STATE = ("regret", "cumulative", "sigma")
_CURVE = ("curve_iterations", "curve_seconds", "curve_exploitability")


def save_checkpoint(path, tree, algorithm, seed, iteration, seconds, state, curve):
    """Write a checkpoint.

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
                iterations=int(iteration), seconds=float(seconds))
    _npz.save(path, _KIND, meta, arrays)


def load_checkpoint(path, tree):
    """Read a checkpoint written for ``tree``.

    Returns
    -------
    dict
        ``algorithm``, ``seed``, ``iterations``, ``seconds``, the state arrays
        and the curve arrays.

    Raises
    ------
    ValueError
        If the file is not a checkpoint or was written for another game or
        infoset layout.
    """
    meta, arrays = _npz.load(path, _KIND)
    missing = [n for n in _STATE + _CURVE + ("infoset_num_actions", "infoset_actions")
               if n not in arrays]
    if missing:
        raise ValueError(f"checkpoint {path} lacks arrays {missing}")
    _npz.check_layout(tree, meta["game_id"], arrays["infoset_num_actions"],
                      arrays["infoset_actions"], path)
    out = {name: np.ascontiguousarray(arrays[name], dtype=np.float64) for name in _STATE}
    out["curve_iterations"] = arrays["curve_iterations"].astype(np.int64)
    out["curve_seconds"] = arrays["curve_seconds"].astype(np.float64)
    out["curve_exploitability"] = arrays["curve_exploitability"].astype(np.float64)
    out.update(algorithm=meta["algorithm"], seed=int(meta["seed"]),
               iterations=int(meta["iterations"]), seconds=float(meta["seconds"]))
    return out
