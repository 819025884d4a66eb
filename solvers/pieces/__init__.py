"""A public tree cut into a trunk and parts that iterate apart: the cut (:mod:`~.split`), the parts
(:mod:`~.parts`, run in groups by :mod:`~.groups`), held locally (:mod:`~.local`) or on a Ray cluster
(:mod:`~.ray`, :mod:`~.remote`), with per-worker checkpoints (:mod:`~.checkpoints`).
"""
