"""Benchmarks of coupsolve's solvers against OpenSpiel and LiteEFG, side by side.

Run everything with ``make bench`` (or ``python -m benchmarks.run``); see
``python -m benchmarks.run --help`` for a subset (``--only``, ``--games``),
``--quick`` and ``--repeats``. Every benchmark prints a Markdown table (median,
min and max of the repeats) and writes ``benchmarks/results/<name>.csv`` with
the machine (CPU model, cores, memory) and library versions on every row.

Modules: :mod:`.run` (command line), :mod:`.games`, :mod:`.adapters` (one
interface over coupsolve, OpenSpiel C++, OpenSpiel Python and LiteEFG),
:mod:`.iteration`, :mod:`.target`, :mod:`.scaling` (tree build, peak memory,
scaling, the profile of a pass, compile time), :mod:`.bandwidth`,
:mod:`.probe` (measurements in a fresh process), :mod:`.liteefg_export`,
:mod:`.common`, :mod:`.summary` (the benchmarks page's blocks, from the CSV files).
"""
