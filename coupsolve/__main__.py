"""``python -m coupsolve``: the same command line as the ``coupsolve`` script."""
import sys

from coupsolve.cli import main

sys.exit(main())
