"""The checks of an MCCFR checkpoint's contents (:meth:`solvers.mccfr.solver.MCCFRSolver.load`): every
field of its metadata of its type, every array of its shape, type and range, and no NaN, before a
compiled kernel reads the table (a shortened array would be read past its end and reported as a hash
collision)."""

from __future__ import annotations

from solvers import npz as _npz


KIND = "coupsolve.solvers.MCCFRCheckpoint"


def read_table(path):
    """``(metadata, arrays)`` of the MCCFR checkpoint ``path`` (:func:`solvers.npz.load`), its
    metadata's fields checked (:func:`check_meta`); ``ValueError`` naming what is wrong."""
    meta, arrays = _npz.load(path, KIND)
    check_meta(meta, path)
    return meta, arrays


def check_meta(meta, path):
    """Refuse a checkpoint's metadata whose fields are not of :meth:`MCCFRSolver.save`'s types."""
    _npz.check_fields(meta, path, game_id="str", regret="str", average="str", seed="int",
                      iterations="int", seconds="float", max_infosets="int", max_actions="int",
                      sampling="str?", abstraction="str?", epsilon="float?", threads="int?")
    if "batch" in meta and meta["batch"] is not None:
        _npz.check_fields(meta, path, batch="int")
    _npz.check_fields(meta, path, players="int?", infosets="int?", rules="dict?", field="dict?",
                      version="str")


def check_table(meta, a, game, path):
    """Refuse a checkpoint whose metadata or table is not what :meth:`MCCFRSolver.save` writes
    (fields of other types, arrays of other shapes or types, NaN), before a kernel reads it."""
    check_meta(meta, path)
    missing = [n for n in ("key", "check", "owner", "num_actions", "regret", "average", "rng") if n not in a]
    if missing:
        raise ValueError(f"{path} lacks arrays {missing}")
    n = _npz.check_vector(a, "key", path, "u").shape[0]
    _npz.check_vector(a, "check", path, "u", n)
    owner = _npz.check_vector(a, "owner", path, "iu", n)
    nact = _npz.check_vector(a, "num_actions", path, "iu", n)
    if n and (int(owner.min()) < 0 or int(owner.max()) >= game.num_players
              or int(nact.min()) < 1 or int(nact.max()) > game.max_moves):
        raise ValueError(f"{path}: its table has owners or action counts this game does not have")
    for name in ("regret", "average"):
        _npz.check_vector(a, name, path, "f", int(nact.sum()), finite=True)
    if a["rng"].dtype.kind not in "iu" or a["rng"].ndim < 1:
        raise ValueError(f"{path}: its array rng is not a generator's state")
