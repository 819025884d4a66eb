"""Measuring a strategy by play: seeded head-to-head games in duplicate deals
(:mod:`~coupsolve.evaluation.arena`), their variance-reduced estimate (:mod:`~coupsolve.evaluation.aivat`),
where each player's cards were lost (:mod:`~coupsolve.evaluation.losses`),
exact best responses checked by play (:mod:`~coupsolve.evaluation.brcheck`) and the local best
response's lower bound on exploitability (:mod:`~coupsolve.evaluation.localbr`).
"""
