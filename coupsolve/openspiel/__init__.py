"""Coup's OpenSpiel face: the game ``python_coup`` (:mod:`~coupsolve.openspiel.game`), what each player
sees (:mod:`~coupsolve.openspiel.observer`), the baseline bots (:mod:`~coupsolve.openspiel.bots`) and the
adapters that make solved strategies OpenSpiel policies (:mod:`~coupsolve.openspiel.policy`).

All of it is a thin layer over :mod:`coupsolve.engine`, never a second copy of the rules.
"""
