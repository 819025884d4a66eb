"""The information-set table shared by every tree type: keys, action ids, policy shapes.

A :class:`~solvers.GameTree` and a :class:`~solvers.PublicTree` both carry ``infoset_player``,
``infoset_num_actions``, ``infoset_offset`` and ``infoset_actions`` (the game's action ids, one per
information-set action) and a key per information set; policies, results, checkpoints and the
OpenSpiel conversion read only this table, so they take either tree.
"""

import numpy as np

__all__ = ["InfosetTable"]


class InfosetTable:
    """Mixin: the information-set queries of a tree holding the four ``infoset_*`` arrays."""

    def _set_keys(self, infoset_keys):
        """Keep ``infoset_keys`` (``num_infosets`` strings or ``key_fn(i) -> str``), checked."""
        if callable(infoset_keys):
            self._key_fn, self._keys = infoset_keys, None
        else:
            if isinstance(infoset_keys, (str, bytes)) or not hasattr(infoset_keys, "__len__"):
                raise TypeError("infoset_keys must be a sequence of str or a callable key_fn(i) -> str")
            if len(infoset_keys) != self.num_infosets:
                raise ValueError(f"infoset_keys has {len(infoset_keys)} entries but there are "
                                 f"{self.num_infosets} information sets")
            for i, key in enumerate(infoset_keys):
                if not isinstance(key, str):
                    raise TypeError(f"infoset_keys[{i}] is {type(key).__name__}, expected str")
            self._key_fn, self._keys = None, infoset_keys
        self._index = None

    @property
    def num_infosets(self):
        """Number of information sets."""
        return int(self.infoset_player.shape[0])

    @property
    def num_actions(self):
        """Total number of infoset actions (length of flat per-action arrays)."""
        return int(self.infoset_actions.shape[0])

    def infoset_key(self, i):
        """The key (e.g. OpenSpiel information-state string) of infoset ``i``."""
        i = int(i)
        if not 0 <= i < self.num_infosets:
            raise IndexError(f"infoset {i} out of range [0, {self.num_infosets})")
        if self._keys is not None:
            return self._keys[i]
        key = self._key_fn(i)
        if not isinstance(key, str):
            raise TypeError(f"key_fn({i}) returned {type(key).__name__}, expected str")
        return key

    def infoset_index(self, key):
        """Index of the infoset with this key; builds a key->index dict once.

        Raises
        ------
        KeyError
            If no information set has this key.
        """
        if self._index is None:
            index = {}
            for i in range(self.num_infosets):
                k = self.infoset_key(i)
                if k in index:
                    raise ValueError(f"infosets {index[k]} and {i} have the same key {k!r}")
                index[k] = i
            self._index = index
        try:
            return self._index[key]
        except KeyError:
            raise KeyError(f"no information set with key {key!r} in this tree") from None

    def actions(self, i):
        """Action ids of infoset ``i`` in child order (a view)."""
        o = int(self.infoset_offset[i])
        return self.infoset_actions[o:o + int(self.infoset_num_actions[i])]

    def uniform_policy(self):
        """The uniform policy as a flat per-action array."""
        return np.repeat(1.0 / self.infoset_num_actions, self.infoset_num_actions)
