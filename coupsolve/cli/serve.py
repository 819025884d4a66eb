"""``coupsolve serve``: the web app (:mod:`coupsolve.web`) on this machine, with the strategy files
given."""

from __future__ import annotations

import os

from coupsolve.cli.args import CliError
from coupsolve.cli.search import search_settings


def _say(line):
    if line:
        print(line, flush=True)


def cmd_serve(args) -> int:
    """Load and check every strategy file (:func:`coupsolve.web.strategy.load_served`; with ``--search``,
    each also as the re-solving player on it), then serve until interrupted."""
    from coupsolve.web.server import App, serve
    from coupsolve.web.strategy import load_served, searching_served

    strategies, names = [], set()
    for path in args.strategies:
        name = os.path.basename(path)
        if name in names:
            raise CliError(f"{path}: two strategy files are named {name}; rename one")
        names.add(name)
        print(f"loading {path} ...", flush=True)
        strategies.append(load_served(path, name, _say))
        if args.search:
            strategies.append(searching_served(strategies[-1], path, search_settings(args)))
    try:
        serve(App(strategies), args.host, args.port)
    except OSError as e:
        raise CliError(f"cannot serve on {args.host}:{args.port}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        print("coupsolve: stopped")
    return 0
