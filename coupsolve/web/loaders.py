"""The strategy-file loaders the web app uses, in one place: today the command line's.

The command line's loaders (:mod:`coupsolve.cli.strategy`, :mod:`coupsolve.cli.train`) are being moved
into a library module; when they are, the imports below are the only lines to change.
"""

from coupsolve.cli.args import CliError as LoadError  # noqa: F401  (one line saying why not)
from coupsolve.cli.strategy import _bot as tree_policy  # noqa: F401  (game, coup_tree, sigma) -> policy
from coupsolve.cli.strategy import analyse_any, load_strategy, stored_analysis  # noqa: F401
from coupsolve.cli.train import is_trained, load_trained, trained_policy  # noqa: F401
