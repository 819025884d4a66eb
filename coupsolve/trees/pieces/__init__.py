"""The class walk's public tree in pieces: a trunk and parts each walked on its own
(:mod:`~.build`), held part by part (:mod:`~.arrays`), or built by the Ray worker that solves it
(:mod:`~.remote`).
"""
