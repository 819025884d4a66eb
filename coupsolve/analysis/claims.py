"""The claims an analysis counts, and what it counts of each: the names every analysis and view share.

A claim is a declared action, a block or the Treaty (``engine.CLAIM_NAMES``); for each, an analysis
counts how often it is MADE (times a game), made as a BLUFF, CHALLENGED, and challenged with SUCCESS.
"""

from coupsolve import engine as E
from coupsolve.names import card_name

CLAIMS = E.CLAIM_NAMES
CLAIM_CHARACTER = tuple(card_name(int(E.CLAIM_CHAR[c]), E.CLAIM_MARK[c] >= 0) for c in range(E.NUM_CLAIMS))
TREATY_CLAIM = E.CLAIM_TREATY
#: The fields of a claim's counts.
MADE, BLUFF, CHALLENGED, SUCCESS = 0, 1, 2, 3
#: Claims made less often than this (times a game) have their rates marked as not converged.
REACH_THRESHOLD = 0.01
#: A rate whose range over the epsilon-equilibria is narrower than this is *determined*
#: (:mod:`coupsolve.analysis.selection`).
DETERMINED = 0.02
