"""Measuring a strategy by play: seeded head-to-head games (:mod:`~coupsolve.evaluation.arena`) and the
local best response's lower bound on exploitability (:mod:`~coupsolve.evaluation.localbr`).
"""
