"""The values the command line's options take: argparse types that check each value where it is parsed,
within bounds past which a run would never end or claim more than any machine has, so a bad one is
one line ``coupsolve CMD: error: argument --NAME: ...`` naming it (issue 48: numbers of thousands of
digits, ``--games 2**63``, ``--max-memory 99999999TB``)."""

from __future__ import annotations

import argparse
import re

# ---- argument types ---------------------------------------------------------------------------------
#: The most digits a number on the command line may have (int64 has 19; Python refuses 4,300).
MAX_DIGITS = 30
#: Bounds of values that would otherwise run for ever or claim more than any machine has.
MAX_SEED = 2**63 - 1
MAX_COUNT = 10**12  # iterations and their intervals
MAX_GAMES = 10**8  # self-play games (hours at the fastest)
MAX_WORKERS = 4096  # threads, Ray actors
MAX_PIECES = 10**6
MAX_MINUTES = 60 * 24 * 366  # a year
MAX_MEMORY = 2**50  # a pebibyte
MIN_MEMORY = 2**20  # a mebibyte: a budget below it would only refuse, after minutes of counting
MAX_REGRET = 1e9


def short(text):
    """``text`` for an error message: a long one cut to its start and length."""
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text):,} characters)"


def whole_number(minimum, maximum=None):
    """An argparse type: a whole number from ``minimum`` (to ``maximum``), with a one-line error."""
    def parse(text):
        if len(text.strip()) > MAX_DIGITS:
            raise argparse.ArgumentTypeError(f"expected a whole number of at most {MAX_DIGITS} digits, "
                                             f"got {short(text)}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {short(text)}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, got {value}")
        return value
    return parse


def field_number(name):
    """An argparse type for a whole-number ``Rules`` field: its range from ``rules.RANGES``."""
    from coupsolve.rules import RANGES

    return whole_number(RANGES[name].lo, RANGES[name].hi)


seed = whole_number(0, MAX_SEED)


def rollouts(text):
    """``--rollouts``: a whole number from 1 to 2**20, or ``exact`` (0: the leaf values evaluated
    exactly, :mod:`coupsolve.depth.exact`)."""
    if text.strip().lower() == "exact":
        return 0
    return whole_number(1, 1 << 20)(text)
count, games = whole_number(1, MAX_COUNT), whole_number(1, MAX_GAMES)
workers, pieces = whole_number(1, MAX_WORKERS), whole_number(1, MAX_PIECES)


def number(text):
    if len(text.strip()) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"expected a number of at most {MAX_DIGITS} characters, got "
                                         f"{short(text)}")
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {short(text)}") from None


def positive_float(text):
    value = number(text)
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {value}")
    return value


def minutes(text):
    value = positive_float(text)
    if value > MAX_MINUTES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_MINUTES:,} (a year), got {value:g}")
    return value


_UNITS = {"": 1, "b": 1, "k": 2**10, "kib": 2**10, "kb": 10**3, "m": 2**20, "mib": 2**20, "mb": 10**6,
          "g": 2**30, "gib": 2**30, "gb": 10**9, "t": 2**40, "tib": 2**40, "tb": 10**12}


def memory_size(text):
    """An argparse type: bytes from ``4GiB``, ``500MB``, ``2g`` or a plain number of bytes."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", text[:100])
    unit = match and _UNITS.get(match.group(2).lower())
    if not unit or float(match.group(1)) * unit < 1:
        raise argparse.ArgumentTypeError(f"expected a size such as 4GiB or 500MB, got {short(text)}")
    if float(match.group(1)) * unit < MIN_MEMORY:
        raise argparse.ArgumentTypeError(f"must be at least 1MiB (no tree is built in less), got {short(text)}")
    if float(match.group(1)) * unit > MAX_MEMORY:
        raise argparse.ArgumentTypeError(f"must be at most 1PiB, got {short(text)}")
    return int(float(match.group(1)) * unit)


def regret(text):
    """``--warm-start R``: a finite number of at least 0."""
    value = number(text)
    if not 0.0 <= value <= MAX_REGRET:
        raise argparse.ArgumentTypeError(f"{short(text)}: give a regret from 0 to {MAX_REGRET:g}")
    return value


def share(text):
    """``--explore E``: a number in (0, 1]."""
    value = number(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{short(text)}: give a share above 0 and at most 1")
    return value


def probability(text):
    """``--search-honest Q``, ``--search-trust T``: a number from 0 to 1."""
    value = number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{short(text)}: give a probability from 0 to 1")
    return value


def training_field(text):
    """``--field honest=0.3,random=0.1`` -> ``{"honest": 0.3, "random": 0.1}`` (shares checked)."""
    from coupsolve.sampling.keys import FIELD_BOTS, field_scratch

    field = {}
    for part in filter(None, text.split(",")):
        name, _, share = part.partition("=")
        if name not in FIELD_BOTS or name in field:
            raise argparse.ArgumentTypeError(f"{part!r}: the bots are {' and '.join(FIELD_BOTS)}, each once")
        try:
            field[name] = float(share)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r}: the share must be a number") from None
    try:
        field_scratch(**field)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return field
