"""Checks the command line makes before building anything: output files, formats, targets, memory.

A solve can take hours; what it writes is checked first, so a missing folder, an unknown plot format or a
file in the way is a one-line error at once, not a traceback after the work is done.
"""

from __future__ import annotations

import os
import sys

from coupsolve.cli.args import CliError


def _folder(option, path):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliError(f"{option} {path}: the folder {os.path.dirname(path) or '.'} does not exist")
    if not os.access(folder, os.W_OK):
        raise CliError(f"{option} {path}: the folder {os.path.dirname(path) or '.'} is not writable")
    if os.path.isdir(path):
        raise CliError(f"{option} {path}: is a folder; name a file")


def check_npz_target(option, path, force=True):
    """A ``.npz`` file ``option`` will write: suffix, folder, and no file in the way unless ``force``."""
    if path is None:
        return
    if not path.endswith(".npz"):
        raise CliError(f"{option} must name a .npz file, got {path}")
    _folder(option, path)
    if not force and os.path.exists(path):
        raise CliError(f"{option} {path} exists; pass --force to overwrite it")


def plot_formats() -> dict:
    """``{suffix: description}`` of the image formats matplotlib's Agg canvas writes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return FigureCanvasAgg.get_supported_filetypes()


def check_plot_target(path):
    """``--plot``: a writable folder and a format matplotlib knows (named by the file's suffix)."""
    if path is None:
        return
    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    formats = plot_formats()
    if suffix not in formats:
        raise CliError(f"--plot {path}: {'no' if not suffix else 'unknown'} image format "
                       f"{suffix!r}; use one of {', '.join(sorted(formats))}")
    _folder("--plot", path)


def check_json_target(path):
    """``--json FILE`` (``-`` is standard output): a writable folder."""
    if path not in (None, "-"):
        _folder("--json", path)


def check_outputs(args):
    """Every output of a command (``--out``, ``--checkpoint``, ``--plot``, ``--json``), before any work."""
    out, checkpoint = getattr(args, "out", None), getattr(args, "checkpoint", None)
    check_npz_target("--out", out, getattr(args, "force", True))
    check_npz_target("--checkpoint", checkpoint)
    saved = {os.path.abspath(p) for p in (getattr(args, "resume", None), checkpoint) if p}
    if out and os.path.abspath(out) in saved:
        raise CliError(f"--out {out} is also the checkpoint; the strategy and the checkpoint need "
                       "files of their own")
    if getattr(args, "resume", None) is not None and not os.path.isfile(args.resume):
        raise CliError(f"--resume {args.resume}: "
                       f"{'not a regular file' if os.path.exists(args.resume) else 'no such file'}")
    check_plot_target(args.plot)
    check_json_target(args.json)


def stopping_rule(args, rules, precision, out=sys.stderr):
    """``(iterations, target)`` of a solve, said up front, with a warning when the target is out of
    the reach of ``precision`` (the one of the tree asked for: :func:`coupsolve.plan.asked_precision`;
    :func:`target_warning` warns again should the plan choose another).

    With neither ``--iterations`` nor ``--target-exploitability`` the defaults apply; a target alone is
    capped at ``--max-iterations``.
    """
    from coupsolve.cli.args import DEFAULT_TARGET

    if args.iterations is not None:
        return args.iterations, None
    target = DEFAULT_TARGET if args.target_exploitability is None else args.target_exploitability
    print(f"target exploitability {target:g}, at most {args.max_iterations:,} iterations "
          "(--max-iterations)", file=out)
    target_warning(args, rules, target, precision, out)
    return args.max_iterations, target


def target_warning(args, rules, target, precision, out=sys.stderr):
    """Warn when ``target`` (None: no target) is below what ``precision`` reaches."""
    from solvers.cfr.solver import PRECISION_FLOOR

    floor = PRECISION_FLOOR[precision] * payoff_range(rules)
    if target is not None and target < floor:
        print(f"warning: --target-exploitability {target:g} is below what {precision} reaches "
              f"(the exploitability levels off near {floor:.1g}); the solve will run all "
              f"{args.max_iterations:,} iterations of --max-iterations", file=out)


def payoff_range(rules) -> float:
    """The width of the payoffs: 2 (a win is +1, a loss -1)."""
    del rules  # every Coup payoff (win, loss, draw, the influence payoff) lies in [-1, 1]
    return 2.0


def save_output(option, path, save, what="strategy"):
    """``save(path)`` for the output ``option``; when it cannot be written (a full disk), the work is
    saved where :func:`solvers.npz.rescue_path` says instead and a one-line ``CliError`` names both."""
    from solvers.npz import rescue_path

    try:
        return save(path)
    except OSError as e:
        problem, rescue = e.strerror or str(e), rescue_path(path)
    try:
        save(rescue)
    except OSError as e:
        raise CliError(f"{option} {path}: not written ({problem}), nor in {rescue} ({e.strerror or e}); "
                       f"the {what} is lost") from None
    raise CliError(f"{option} {path}: not written ({problem}); the {what} was saved to {rescue} "
                   "instead") from None
