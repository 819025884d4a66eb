"""``python -m coupsolve``: the same command line as the ``coupsolve`` script."""
import sys

from .cli import main

sys.exit(main())
