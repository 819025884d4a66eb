"""Game trees as flat arrays: the whole tree (:mod:`~.gametree`, built breadth first by :mod:`~.build`,
checked by :mod:`~.check`), the information-set table (:mod:`~.infosets`), and the public tree
(:mod:`~.publictree`, derived from a whole tree by :mod:`~.derive`, its chance matrices in :mod:`~.matrices`).
"""
