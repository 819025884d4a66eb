"""Strategy files of ``coupsolve train``: an MCCFR solver's checkpoint that also records the rules.

A strategy file is the solver's checkpoint (:meth:`solvers.MCCFRSolver.save`: the table, the generator's
state, the options, the seed) whose JSON metadata also records ``trained``, the rules, the players, the
abstraction, the sampling, the training field and the warm start, so a reader rebuilds the same game
(:func:`load_trained`) and ``--resume`` takes it as it takes a checkpoint (:func:`make_solver`). A
checkpoint without ``trained`` is refused as a strategy, with what to do.
"""

from __future__ import annotations

import os

from solvers.options import SAMPLINGS

from coupsolve.sampling import ABSTRACTIONS  # the information-set abstractions of a training
from coupsolve.strategy.solved import StrategyError

__all__ = ["ABSTRACTIONS", "SAMPLINGS", "TRAINED", "describe", "is_trained", "load_trained",
           "make_game", "make_solver", "save_trained", "table_room", "trained_policy", "warm_up"]

#: The metadata key that tells a train strategy from a plain checkpoint.
TRAINED = "trained"
#: Room for actions per information set (6-player games average about 5; 2-player ones under 4).
ACTIONS_PER_INFOSET = 6


def kind():
    """The ``.npz`` kind of an MCCFR checkpoint: a strategy file is one."""
    from solvers.mccfr.solver import CHECKPOINT_KIND

    return CHECKPOINT_KIND


def make_game(rules, abstraction=ABSTRACTIONS[0], field=None, warm_start=0.0, key=None):
    """``coupsolve.sampling_game(rules)``, with ``abstraction``, the training ``field``, the
    ``warm_start`` and the features ``key`` version passed only when they are not the defaults; a
    field or warm start outside the features game is refused by ``sampling_game`` (a one-line error)."""
    from coupsolve.sampling.game import sampling_game

    options = {} if abstraction == ABSTRACTIONS[0] else {"abstraction": abstraction}
    if field:
        options["field"] = field
    if warm_start:
        options["warm_start"] = warm_start
    if key is not None:
        options["key"] = key
    try:
        return sampling_game(rules, **options)
    except (TypeError, NotImplementedError) as e:
        raise StrategyError(f"--abstraction {abstraction}: not available in this version ({e})") from None


def table_room(game, max_infosets=None, max_memory=None, threads=1):
    """``(max_infosets, max_actions)`` of the table: ``max_infosets``, else as many as ``max_memory``
    holds, else 2**20; refused at once (one line) when it needs more than ``max_memory``."""
    from solvers.memory import format_bytes
    from solvers.mccfr.solver import estimate_bytes

    room = max_infosets
    if room is None and max_memory is not None:  # the largest table of power-of-two slots within it
        for k in range(40, 3, -1):
            room = max(1, int(0.75 * ((1 << k) - 1)))
            if estimate_bytes(game, room, ACTIONS_PER_INFOSET * room, threads) <= max_memory:
                break
    room = room or 1 << 20
    need = estimate_bytes(game, room, ACTIONS_PER_INFOSET * room, threads)
    if max_memory is not None and need > max_memory:
        raise StrategyError(f"the table for {room:,} information sets needs {format_bytes(need)}, more "
                            f"than --max-memory {format_bytes(max_memory)}; lower --max-infosets or "
                            "raise --max-memory")
    return room, ACTIONS_PER_INFOSET * room


def make_solver(game, *, resume=None, max_infosets=None, max_memory=None, threads=1, regret=None,
                average=None, seed=0, sampling=SAMPLINGS[0], abstraction=ABSTRACTIONS[0], field=None,
                warm_start=0.0, explore=1.0):
    """A new :class:`solvers.MCCFRSolver` for ``game``, or the one the checkpoint ``resume`` continues
    (same game and options, else a one-line :class:`StrategyError`); the table sized by
    :func:`table_room`. The solver's notes record the field, the warm start and the features key, so
    a checkpoint is resumed only with them (and with its path's ``explore``, which the solver records)."""
    from solvers.mccfr.solver import MCCFRSolver

    room, actions = table_room(game, max_infosets, max_memory, threads)
    if resume is None:
        options = {} if sampling == SAMPLINGS[0] else {"sampling": sampling}
        options.update({k: v for k, v in (("regret", regret), ("average", average)) if v is not None})
        solver = MCCFRSolver(game, max_infosets=room, max_actions=actions, seed=seed, threads=threads,
                             explore=explore, **options)
    else:
        meta = _resumable(resume, game)
        try:
            solver = MCCFRSolver.load(resume, game, max_infosets=max_infosets and room,
                                      max_actions=max_infosets and actions)
        except (ValueError, KeyError, OSError) as e:
            raise StrategyError(f"--resume {resume}: not a checkpoint of these rules and options "
                                f"({e})") from None
        check_key(resume, meta)
        if key_version(meta) != key_of(game):
            raise StrategyError(f"--resume {resume}: keyed by version {key_version(meta)} of the features "
                                f"key; new training keys by version {key_of(game)}: train it again")
        defaults = {"sampling": SAMPLINGS[0], "abstraction": ABSTRACTIONS[0], "field": {},
                    "warm_start": 0.0, "threads": 1, "explore": 1.0}
        for key, value in (("sampling", sampling), ("abstraction", abstraction), ("field", field or {}),
                           ("warm_start", warm_start), ("threads", threads), ("explore", explore)):
            if meta.get(key, defaults[key]) != value:
                raise StrategyError(f"--resume {resume}: a run with {key} {meta.get(key)}, not {value}")
    solver.notes["field"] = field or {}
    solver.notes["warm_start"] = warm_start
    if abstraction == "features":
        solver.notes["features_key"] = key_of(game)
    return solver


def _resumable(resume, game):
    """The metadata of the checkpoint ``resume`` if it continues a run of ``game`` of this version (its
    fields checked: :func:`solvers.mccfr.tablefile.read_table`), else a one-line StrategyError naming
    the options that differ."""
    from solvers.mccfr.tablefile import read_table
    from solvers.npz import library_version

    from coupsolve.openspiel.game import load_game
    from coupsolve.strategy.solved import rules_difference

    try:
        meta, _ = read_table(resume)
    except (ValueError, OSError) as e:
        raise StrategyError(f"--resume {resume}: not a checkpoint ({e})") from None
    rules = load_game(game.game_id).rules
    if meta["game_id"] != game.game_id:
        raise StrategyError(f"--resume {resume}: a run of other rules; give the rules it was trained "
                            f"with: {rules_difference(meta['game_id'], rules)}")
    if meta["version"] != library_version():
        raise StrategyError(f"--resume {resume}: written by coupsolve {meta['version']}, not by this "
                            f"version ({library_version()})")
    if meta.get("players", rules.players) != rules.players:
        raise StrategyError(f"--resume {resume}: records {meta['players']} players, not {rules.players}")
    return meta


def key_version(meta=None):
    """The version of the features key a new training keys by
    (:data:`coupsolve.sampling.keys.KEY_VERSION`), or the one a training's ``meta`` records (1 when
    it records none: the files from before versions were recorded; None for exact keys), which is
    :func:`make_game`'s ``key`` for reading its strategy."""
    from coupsolve.sampling.keys import KEY_VERSION

    if meta is None:
        return KEY_VERSION
    return meta.get("features_key", 1) if meta.get("abstraction") == "features" else None


def key_of(game):
    """The version of the features key the sampling ``game`` computes (None for exact keys)."""
    from coupsolve.sampling.keys import FIELD_KEY

    return int(game.scratch[-1][FIELD_KEY]) if game.abstraction == "features" else None


def check_key(path, meta):
    """Refuse a features run whose keys are of a version this one does not compute."""
    from coupsolve.sampling.keys import KEY_VERSIONS

    if key_version(meta) not in KEY_VERSIONS + (None,):
        raise StrategyError(f"{path} was trained with version {key_version(meta)} of the features key; "
                            f"this version reads versions {', '.join(map(str, KEY_VERSIONS))}: train it again")


def save_trained(solver, path, rules, abstraction, sampling, interrupted=False, field=None, command=None):
    """Write ``solver`` to ``path`` as a strategy file (module docstring); returns its metadata as read
    back. ``command``: the command line that trained it, kept in the metadata (``command``) so the file
    says how to make it again."""
    from solvers import npz

    solver.save(path)
    meta, arrays = npz.load(path, kind())
    meta.update({TRAINED: True, "rules": rules.to_dict(), "players": rules.players,
                 "abstraction": abstraction, "sampling": sampling, "interrupted": bool(interrupted),
                 "infosets": solver.num_infosets, "field": dict(field or {}),
                 "warm_start": float(solver.game.warm_start)})
    if command is not None:
        meta["command"] = str(command)
    npz.save(path, kind(), meta, arrays)
    return npz.load(path, kind())[0]


def is_trained(path) -> bool:
    """Whether ``path`` is a readable checkpoint-kind ``.npz`` (a ``train`` file or a checkpoint)."""
    from solvers import npz

    try:
        npz.load(path, kind())
    except (ValueError, OSError):
        return False
    return True


def load_trained(path):
    """``(rules, solver, metadata)`` of a ``train --out`` file, or a one-line :class:`StrategyError`."""
    from solvers.mccfr.solver import MCCFRSolver
    from solvers.mccfr.tablefile import read_table
    from solvers.npz import library_version

    from coupsolve.openspiel.game import load_game

    if not os.path.isfile(path):
        raise StrategyError(f"{path}: {'not a regular file' if os.path.exists(path) else 'no such file'}")
    try:
        meta, arrays = read_table(path)
    except ValueError as e:
        raise StrategyError(f"{path} is not a coupsolve strategy file ({e})") from None
    if not meta.get(TRAINED):
        raise StrategyError(f"{path} is a training checkpoint, not a strategy: continue it with "
                            f"`coupsolve train --resume {path} --out FILE.npz` and use FILE.npz")
    if meta.get("version") != library_version():
        raise StrategyError(f"{path} was written by coupsolve {meta.get('version')}, not by this "
                            f"version ({library_version()}); train it again")
    try:
        rules = load_game(meta["game_id"]).rules
    except (ValueError, KeyError) as e:
        raise StrategyError(f"{path}: its game string does not give rules this version takes "
                            f"({e})") from None
    if meta.get("players", rules.players) != rules.players:
        raise StrategyError(f"{path} records {meta['players']} players, but its game has {rules.players}")
    if rules.game_string() != meta["game_id"] or rules.to_dict() != meta.get("rules"):
        raise StrategyError(f"{path} records the game {meta['game_id']}, which this version reads as "
                            "other rules; train it again")
    check_key(path, meta)
    game = make_game(rules, meta.get("abstraction", ABSTRACTIONS[0]), key=key_version(meta))
    try:
        solver = MCCFRSolver.load(path, game, max_infosets=max(1, int(arrays["key"].shape[0])),
                                  max_actions=max(1, int(arrays["average"].shape[0])))
    except (ValueError, KeyError, MemoryError) as e:
        raise StrategyError(f"{path}: its table cannot be read ({e})") from None
    return rules, solver, meta


def field_words(field, warm_start=0.0, explore=1.0) -> str:
    """``", 0.4 of seats honest, 0.1 of seats random"`` for a training field ("" for none), the warm
    start, and a probing path that follows the strategy."""
    return ("".join(f", {share:g} of seats {bot}" for bot, share in (field or {}).items())
            + (f", warm-started at the honest bot's moves (regret {warm_start:g})" if warm_start else "")
            + (f", the path on the strategy ({explore:g} of its moves uniform)" if explore < 1.0 else ""))


def describe(meta) -> str:
    """One line on where a trained strategy comes from."""
    stopped = " (interrupted)" if meta.get("interrupted") else ""
    keyed = "" if key_version(meta) is None else f" (key version {key_version(meta)})"
    return (f"MCCFR ({meta.get('sampling')} sampling, {meta.get('abstraction')} information sets{keyed}, "
            f"{meta['regret']}, {meta['average']} average), seed {meta['seed']}, "
            f"{meta['iterations']:,} iterations{stopped} in {meta['seconds']:.1f} s, "
            f"{meta.get('infosets', 0):,} information sets"
            f"{field_words(meta.get('field'), meta.get('warm_start', 0.0), meta.get('explore', 1.0))}")


def trained_policy(solver, game, meta):
    """The strategy of a train file as an OpenSpiel policy (:class:`solvers.mccfr.policy.SampledPolicy`):
    a warm-started one plays its prior, the honest bot's move, where it has no average yet."""
    from solvers.mccfr.policy import SampledPolicy

    from coupsolve.openspiel.bots import HonestBot

    return SampledPolicy(solver, game, prior=HonestBot(game) if meta.get("warm_start") else None)


def warm_up(solver, say) -> None:
    """Compile (or load from numba's cache) the solver's kernel with a step of no iterations, so that
    neither a time limit nor the recorded seconds count the compilation; say so when it compiles."""
    from coupsolve.engine.jit import kernel_ready

    if not kernel_ready(solver.kernel):
        say("compiling the MCCFR kernels (first run only, a minute or two) ...")
    compiling = solver.step(0)
    solver.seconds -= compiling
