"""``coupsolve train``: a strategy for 2 to 6 players by Monte Carlo CFR, and its files.

A run makes the rules as ``solve`` does (plus ``--players``; played to the end unless ``--turn-limit``),
binds them for :class:`solvers.MCCFRSolver` (:func:`coupsolve.sampling_game`), sizes the information-set
table from ``--max-infosets`` or ``--max-memory`` and checks it before allocating, then trains for
``--iterations`` (in all) or ``--minutes`` with :func:`solvers.mccfr.solver.train` (progress bar, Ctrl-C keeps the
finished iterations, ``--checkpoint`` every ``--checkpoint-minutes``, ``--resume``), writes ``--out`` and
prints the bluff table estimated from ``--games`` self-play games (:mod:`coupsolve.analysis.sampled`).

A strategy file is the solver's checkpoint (:meth:`solvers.MCCFRSolver.save`: the table, the generator's
state, the options, the seed) whose JSON metadata also records ``trained``, the rules, the players, the
abstraction and the sampling, so ``analyse`` and ``play`` rebuild the same game, and ``--resume`` takes it
as it takes a checkpoint.
"""

from __future__ import annotations

import os
import sys

from coupsolve.cli.args import ABSTRACTIONS, SAMPLINGS, CliError, rules_of
from coupsolve.cli.checks import check_outputs, save_output

#: The metadata key that tells a train strategy from a plain checkpoint.
TRAINED = "trained"
#: Room for actions per information set (6-player games average about 5; 2-player ones under 4).
ACTIONS_PER_INFOSET = 6


def _kind():
    from solvers.mccfr.solver import _KIND  # the checkpoint's kind: a strategy file is one

    return _KIND


def make_game(rules, abstraction=ABSTRACTIONS[0], field=None, warm_start=0.0):
    """``coupsolve.sampling_game(rules)``, with ``abstraction``, the training ``field`` and the
    ``warm_start`` passed only when they are not the defaults (so this runs with a ``sampling_game``
    that has none of them yet); a field or warm start outside the features game is refused by
    ``sampling_game`` (a one-line error)."""
    from coupsolve.sampling.game import sampling_game

    options = {} if abstraction == ABSTRACTIONS[0] else {"abstraction": abstraction}
    if field:
        options["field"] = field
    if warm_start:
        options["warm_start"] = warm_start
    try:
        return sampling_game(rules, **options)
    except (TypeError, NotImplementedError) as e:
        raise CliError(f"--abstraction {abstraction}: not available in this version ({e})") from None


def _options(sampling):
    """The solver's keyword for ``--sampling`` (none for the default, see :func:`make_game`)."""
    return {} if sampling == SAMPLINGS[0] else {"sampling": sampling}


def table_room(game, args):
    """``(max_infosets, max_actions)`` of the table: ``--max-infosets``, else as many as ``--max-memory``
    holds, else 2**20; refused at once (one line) when it needs more than ``--max-memory``."""
    from solvers.memory import format_bytes
    from solvers.mccfr.solver import estimate_bytes

    budget = args.max_memory
    room = args.max_infosets
    if room is None and budget is not None:  # the largest table of power-of-two slots within the budget
        for k in range(40, 3, -1):
            room = max(1, int(0.75 * ((1 << k) - 1)))
            if estimate_bytes(game, room, ACTIONS_PER_INFOSET * room, args.threads) <= budget:
                break
    room = room or 1 << 20
    need = estimate_bytes(game, room, ACTIONS_PER_INFOSET * room, args.threads)
    if budget is not None and need > budget:
        raise CliError(f"the table for {room:,} information sets needs {format_bytes(need)}, more than "
                       f"--max-memory {format_bytes(budget)}; lower --max-infosets or raise --max-memory")
    return room, ACTIONS_PER_INFOSET * room


def _solver(game, args):
    """A new solver, or the one ``--resume`` continues (same game and options, else one line)."""
    from solvers.mccfr.solver import MCCFRSolver
    from solvers.mccfr.tablefile import read_table
    from solvers.npz import library_version

    from coupsolve.cli.args import rules_difference

    room, actions = table_room(game, args)
    if args.resume is None:
        return MCCFRSolver(game, max_infosets=room, max_actions=actions, regret=args.regret,
                           average=args.average, seed=args.seed, threads=args.threads,
                           **_options(args.sampling))
    try:
        meta, _ = read_table(args.resume)
    except (ValueError, OSError) as e:
        raise CliError(f"--resume {args.resume}: not a checkpoint ({e})") from None
    if meta["game_id"] != game.game_id:
        raise CliError(f"--resume {args.resume}: a run of other rules; give the rules it was trained "
                       f"with: {rules_difference(meta['game_id'], rules_of(args))}")
    if meta["version"] != library_version():
        raise CliError(f"--resume {args.resume}: written by coupsolve {meta['version']}, not by this "
                       f"version ({library_version()})")
    if meta.get("players", args.players) != args.players:
        raise CliError(f"--resume {args.resume}: records {meta['players']} players, not {args.players}")
    try:
        solver = MCCFRSolver.load(args.resume, game,
                                  max_infosets=args.max_infosets and room,
                                  max_actions=args.max_infosets and actions)
    except (ValueError, KeyError, OSError) as e:
        raise CliError(f"--resume {args.resume}: not a checkpoint of these rules and options ({e})") from None
    _check_key(args.resume, meta)
    defaults = {"sampling": SAMPLINGS[0], "abstraction": ABSTRACTIONS[0], "field": {}, "warm_start": 0.0,
                "threads": 1}
    for key, value in (("sampling", args.sampling), ("abstraction", args.abstraction),
                       ("field", args.field), ("warm_start", args.warm_start),
                       ("threads", args.threads)):
        if meta.get(key, defaults[key]) != value:
            raise CliError(f"--resume {args.resume}: a run with {key} {meta.get(key)}, not {value}")
    return solver


def _key_version():
    from coupsolve.sampling.keys import KEY_VERSION

    return KEY_VERSION


def _check_key(path, meta):
    """Refuse a features run whose keys are not this version's (``sampling_keys.KEY_VERSION``)."""
    if meta.get("abstraction") == "features" and meta.get("features_key", 1) != _key_version():
        raise CliError(f"{path} was trained with version {meta.get('features_key', 1)} of the features "
                       f"key, this version keys by version {_key_version()}; train it again")


def save_trained(solver, path, rules, abstraction, sampling, interrupted=False, field=None):
    """Write ``solver`` to ``path`` as a strategy file (module docstring)."""
    from solvers import npz as _npz

    solver.save(path)
    meta, arrays = _npz.load(path, _kind())
    meta.update({TRAINED: True, "rules": rules.to_dict(), "players": rules.players,
                 "abstraction": abstraction, "sampling": sampling, "interrupted": bool(interrupted),
                 "infosets": solver.num_infosets, "field": dict(field or {}),
                 "warm_start": float(solver.game.warm_start)})
    _npz.save(path, _kind(), meta, arrays)


def is_trained(path) -> bool:
    """Whether ``path`` is a readable checkpoint-kind ``.npz`` (a ``train`` file or a checkpoint)."""
    from solvers import npz as _npz

    try:
        _npz.load(path, _kind())
    except (ValueError, OSError):
        return False
    return True


def load_trained(path):
    """``(rules, solver, metadata)`` of a ``train --out`` file, or a one-line ``CliError`` saying why not."""
    from solvers.npz import library_version
    from solvers.mccfr.solver import MCCFRSolver
    from solvers.mccfr.tablefile import read_table

    from coupsolve.trees.history.tree import rules_game_id
    from coupsolve.openspiel.game import load_game

    if not os.path.isfile(path):
        raise CliError(f"{path}: {'not a regular file' if os.path.exists(path) else 'no such file'}")
    try:
        meta, arrays = read_table(path)
    except ValueError as e:
        raise CliError(f"{path} is not a coupsolve strategy file ({e})") from None
    if not meta.get(TRAINED):
        raise CliError(f"{path} is a training checkpoint, not a strategy: continue it with "
                       f"`coupsolve train --resume {path} --out FILE.npz` and use FILE.npz")
    if meta.get("version") != library_version():
        raise CliError(f"{path} was written by coupsolve {meta.get('version')}, not by this version "
                       f"({library_version()}); train it again")
    try:
        rules = load_game(meta["game_id"]).rules
    except (ValueError, KeyError) as e:
        raise CliError(f"{path}: its game string does not give rules this version takes ({e})") from None
    if meta.get("players", rules.players) != rules.players:
        raise CliError(f"{path} records {meta['players']} players, but its game has {rules.players}")
    if rules_game_id(rules) != meta["game_id"] or rules.to_dict() != meta.get("rules"):
        raise CliError(f"{path} records the game {meta['game_id']}, which this version reads as other "
                       "rules; train it again")
    _check_key(path, meta)
    game = make_game(rules, meta.get("abstraction", ABSTRACTIONS[0]))
    try:
        solver = MCCFRSolver.load(path, game, max_infosets=max(1, int(arrays["key"].shape[0])),
                                  max_actions=max(1, int(arrays["average"].shape[0])))
    except (ValueError, KeyError, MemoryError) as e:
        raise CliError(f"{path}: its table cannot be read ({e})") from None
    return rules, solver, meta


def _field_words(field, warm_start=0.0) -> str:
    """``", 0.4 of seats honest, 0.1 of seats random"`` for a training field ("" for none), and the
    warm start."""
    return ("".join(f", {share:g} of seats {bot}" for bot, share in (field or {}).items())
            + (f", warm-started at the honest bot's moves (regret {warm_start:g})" if warm_start else ""))


def describe(meta) -> str:
    """One line on where a strategy comes from."""
    stopped = " (interrupted)" if meta.get("interrupted") else ""
    return (f"MCCFR ({meta.get('sampling')} sampling, {meta.get('abstraction')} information sets, "
            f"{meta['regret']}, {meta['average']} average), seed {meta['seed']}, "
            f"{meta['iterations']:,} iterations{stopped} in {meta['seconds']:.1f} s, "
            f"{meta.get('infosets', 0):,} information sets"
            f"{_field_words(meta.get('field'), meta.get('warm_start', 0.0))}")


def trained_policy(solver, game, meta):
    """The strategy of a train file as an OpenSpiel policy (:class:`solvers.mccfr.policy.SampledPolicy`):
    a warm-started one plays its prior, the honest bot's move, where it has no average yet."""
    from solvers.mccfr.policy import SampledPolicy

    from coupsolve.openspiel.bots import HonestBot

    return SampledPolicy(solver, game, prior=HonestBot(game) if meta.get("warm_start") else None)


def present_sampled(rules, solver, meta, args, human=None):
    """Estimate the bluff table of the strategy from ``args.games`` games (seed ``args.seed``), print it,
    draw ``args.plot`` and write ``args.json`` (the provenance and the table)."""
    from coupsolve.cli.report import rules_title, write_json
    from coupsolve.openspiel.game import load_game
    from coupsolve.analysis.sampled import sampled_analysis

    human = sys.stdout if human is None else human
    game = load_game(rules)
    print(f"estimating the bluff table from {args.games:,} self-play games (seed {args.seed}) ...",
          file=human, flush=True)
    analysis = sampled_analysis(game, trained_policy(solver, game, meta), games=args.games, seed=args.seed,
                                meta={"title": f"{rules_title(rules)} - {describe(meta)}"})
    print(analysis.to_table(), file=human)
    if args.plot:
        analysis.plot(args.plot)
        print(f"plot written to {args.plot}", file=human)
    if args.json:
        keep = ("game_id", "seed", "regret", "average", "iterations", "seconds", "sampling", "abstraction",
                "players", "interrupted", "infosets", "version")
        write_json({**{k: meta.get(k) for k in keep}, "rules": rules.to_dict(),
                    "bluff": analysis.to_dict()["claims"], "analysis": analysis.to_dict()}, args.json, human)
    return analysis


def _warm_up(solver, out):
    """Compile (or load from numba's cache) the solver's kernel with a step of no iterations, so that
    neither ``--minutes`` nor the recorded seconds count the compilation; say so when it compiles."""
    kernel = solver.kernel
    cache = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if not getattr(kernel, "signatures", True) and not (
            cache is not None and os.path.exists(getattr(cache, "_index_path", ""))):
        print("compiling the MCCFR kernels (first run only, a minute or two) ...", file=out, flush=True)
    compiling = solver.step(0)
    solver.seconds -= compiling


def cmd_train(args) -> int:
    """``coupsolve train``."""
    from solvers import npz as _npz
    from solvers.mccfr.solver import TableFull, train

    check_outputs(args)
    if args.iterations is None and args.minutes is None:
        raise CliError("give --iterations N, --minutes M or both; otherwise training would never stop")
    rules = rules_of(args)
    if args.sampling == "probe" and args.abstraction != "features":
        raise CliError("--sampling probe is bound to the features information sets: add --abstraction "
                       "features")
    human = sys.stderr if args.json == "-" else sys.stdout
    if args.warm_start and args.sampling != "probe":
        raise CliError(f"--warm-start is probing's: add --sampling probe (not {args.sampling})")
    if args.threads > 1 and (args.sampling, args.abstraction) != ("external", "exact"):
        raise CliError(f"--threads runs external sampling over exact information sets only, not "
                       f"{args.sampling} sampling over {args.abstraction} ones: drop --threads")
    game = make_game(rules, args.abstraction, args.field, args.warm_start)
    solver = _solver(game, args)
    solver.notes["field"] = args.field  # checkpoints record them: --resume checks them
    solver.notes["warm_start"] = args.warm_start
    if args.abstraction == "features":
        solver.notes["features_key"] = _key_version()
    print(f"training {rules}: MCCFR, {args.sampling} sampling, {args.abstraction} information sets, "
          f"room for {solver.max_infosets:,} information sets ({solver.bytes / 2**20:,.0f} MiB), "
          f"seed {solver.seed}" + (f", {solver.threads} threads in batches of {solver.batch} "
                                   f"iterations each" if solver.batch else "")
          + (f", resumed at iteration {solver.iterations:,}" if args.resume else "")
          + _field_words(args.field, args.warm_start),
          file=human, flush=True)
    _warm_up(solver, human)
    checkpoint = args.checkpoint or args.resume
    try:
        interrupted = train(solver, iterations=args.iterations,
                            seconds=None if args.minutes is None else 60.0 * args.minutes,
                            progress=not args.no_progress, checkpoint=checkpoint,
                            checkpoint_seconds=60.0 * args.checkpoint_minutes if checkpoint else None)
    except TableFull as e:
        raise CliError(f"{e} (here: --max-infosets or --max-memory; resume the last checkpoint with a "
                       "larger table)") from None
    status = " (interrupted: every finished iteration is kept)" if interrupted else ""
    print(f"{solver.iterations:,} iterations in {solver.seconds:.1f} s{status}; "
          f"{solver.num_infosets:,} information sets", file=human)
    if args.out:
        save_output("--out", args.out, lambda path: save_trained(solver, path, rules, args.abstraction,
                                                                   args.sampling, interrupted, args.field))
        print(f"strategy saved to {args.out}", file=human)
        meta = _npz.load(args.out, _kind())[0]
    else:
        meta = {"game_id": game.game_id, "regret": solver.regret, "average": solver.average,
                "seed": solver.seed, "iterations": solver.iterations, "seconds": solver.seconds,
                "sampling": args.sampling, "abstraction": args.abstraction, "players": rules.players,
                "interrupted": interrupted, "infosets": solver.num_infosets, "field": args.field,
                "warm_start": args.warm_start}
    if checkpoint:
        print(f"checkpoint saved to {checkpoint} (continue with --resume {checkpoint})", file=human)
    args.seed = solver.seed
    if args.field or args.warm_start:  # it plays OpenSpiel games: the plain game's keys (no draws)
        solver.game = make_game(rules, args.abstraction)
    present_sampled(rules, solver, meta, args, human)
    return 130 if interrupted else 0
