"""Checkpoints of a distributed solve, one file per worker and one for the driver's trunk.

Every ``checkpoint_every`` iterations each Ray actor writes its parts' state (``part-<i>-<t>.npz``,
``t`` the iterations done) into the backend's ``checkpoint_dir``, and then the driver writes the
trunk's (``trunk-<t>.npz``): the trunk's file is written last, so it marks generation ``t`` complete,
and the generation before it is removed only then. A driver killed in the middle of a checkpoint leaves
the last complete generation whole. A lost actor restores its own file and replays the passes since
(:class:`solvers.pieces.ray.RayPartsRep`); a restarted driver resumes the whole run from the newest
complete generation (``RayBackend(..., resume=True)``) without ever gathering the state, which for a tree
built where it is solved can be more than any one process holds. The files carry the game, the cut and
the pieces' digests, and a generation of another tree is refused with what differs.
"""

from __future__ import annotations

import os
import re

from solvers import npz as _npz

__all__ = ["latest", "part_path", "trunk_path", "remove_older", "check_meta", "KIND"]

KIND = "coupsolve.solvers.PartCheckpoint"
_TRUNK = re.compile(r"trunk-(\d+)\.npz$")


def part_path(folder, i, t):
    return os.path.join(folder, f"part-{i}-{t}.npz")


def trunk_path(folder, t):
    return os.path.join(folder, f"trunk-{t}.npz")


def generations(folder):
    """The complete generations in ``folder`` (their trunk files exist), newest first."""
    if not os.path.isdir(folder):
        return []
    return sorted((int(m.group(1)) for m in map(_TRUNK.match, os.listdir(folder)) if m),
                  reverse=True)


def latest(folder):
    """The newest complete generation's iterations, or None."""
    found = generations(folder)
    return found[0] if found else None


def remove_older(folder, t):
    """Remove every file of the generations before ``t`` (after ``t``'s trunk file is written)."""
    for name in os.listdir(folder):
        m = re.match(r"(?:part-\d+|trunk)-(\d+)\.npz$", name)
        if m and int(m.group(1)) < t:
            os.remove(os.path.join(folder, name))


def save_trunk(folder, t, meta, state):
    _npz.save(trunk_path(folder, t), KIND, dict(meta, iterations=int(t), part="trunk"), state)


def load_trunk(folder, t):
    return _npz.load(trunk_path(folder, t), KIND)


def check_meta(saved, expected, path):
    """Refuse a checkpoint file whose game, cut or pieces differ from the solve's (naming them)."""
    differ = [k for k, v in expected.items() if saved.get(k) != v]
    if differ:
        got = ", ".join(f"{k}={saved.get(k)!r} (this solve: {expected[k]!r})" for k in differ)
        raise ValueError(f"{path} is a checkpoint of another solve: {got}")
