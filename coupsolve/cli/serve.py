"""``coupsolve serve``: the web app (:mod:`coupsolve.web`) on this machine, with the strategy files
given.

:func:`served_strategy` is the one place the web app's strategies are read: by the command line's
loaders (:mod:`coupsolve.cli.strategy`, :mod:`coupsolve.cli.train`) until they move into a library
module, when its imports are the lines to change.
"""

from __future__ import annotations

import os

from coupsolve.cli.args import CliError


def served_strategy(path, name=None):
    """The strategy file ``path`` as the web app serves it
    (:class:`~coupsolve.web.strategy.ServedStrategy`), or a one-line ``CliError`` saying why not."""
    from coupsolve.cli.strategy import _bot, analyse_any, load_strategy, stored_analysis
    from coupsolve.cli.train import is_trained, load_trained, trained_policy
    from coupsolve.openspiel.game import load_game
    from coupsolve.openspiel.policy import PublicTreePolicy
    from coupsolve.trees.stepwalk.build import CoupPublicTree
    from coupsolve.web.strategy import ServedStrategy

    name = name or os.path.basename(path)
    if is_trained(path):
        rules, solver, meta = load_trained(path)
        game = load_game(rules)
        return ServedStrategy(name, rules, game, trained_policy(solver, game, meta),
                              f"trained, {meta['iterations']:,} MCCFR iterations")
    rules, coup_tree, result = load_strategy(path)
    game = load_game(rules)
    what = (f"solved, {result.algorithm}, {result.iterations:,} iterations, exploitability "
            f"{result.exploitability:.3g}")
    if coup_tree is None:  # solved in pieces: looked up by the keys the file carries
        return ServedStrategy(name, rules, game, PublicTreePolicy.of_result(game, rules, result), what,
                              analysis=stored_analysis(path, result))
    print(f"{name}: analysing the strategy and valuing its moves ...", flush=True)
    history = None if isinstance(coup_tree, CoupPublicTree) else coup_tree
    return ServedStrategy(name, rules, game, _bot(game, coup_tree, result.average_policy), what,
                          history_tree=history, average_policy=result.average_policy,
                          analysis=analyse_any(coup_tree, result.average_policy))


def cmd_serve(args) -> int:
    """Load and check every strategy file, then serve until interrupted."""
    from coupsolve.web.server import App, serve

    strategies, names = [], set()
    for path in args.strategies:
        name = os.path.basename(path)
        if name in names:
            raise CliError(f"{path}: two strategy files are named {name}; rename one")
        names.add(name)
        print(f"loading {path} ...", flush=True)
        strategies.append(served_strategy(path, name))
    try:
        serve(App(strategies), args.host, args.port)
    except OSError as e:
        raise CliError(f"cannot serve on {args.host}:{args.port}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        print("coupsolve: stopped")
    return 0
