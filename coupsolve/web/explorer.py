"""The strategy explorer: a solved strategy's play at a public state, hand by hand.

A public state is what every player has seen: the sequence of public observation tokens (the moves
announced, the proofs shown, the cards turned face up). It is reached from the start by clicking
through moves; the explorer holds every history behind it (each with its reach: the probability that
chance and every player, all playing the strategy, produce it), expanding chance outcomes and grouping
histories by what the public saw. At a decision it shows, for each information set of the acting
player (a hand, with what only that player saw), the probability of each action, the information
set's share of the state's reach, and per action how often it is played here and, for a claim, how
often it is a bluff (the claimant does not hold the character).
"""

from __future__ import annotations

from collections import OrderedDict

from coupsolve import engine as E
from coupsolve.names import token_name
from coupsolve.rules import CHARACTERS
from coupsolve.web.table import deciding

#: Public states kept per strategy (each holds its histories), least recently used dropped first.
CACHE = 256


def _settle(items, seen, tree=None):
    """Expand the chance nodes of ``[(state, reach, node)]`` (``node``: the history tree's node, when
    ``tree``, the strategy's :class:`~coupsolve.web.strategy.MoveValues`, is given); group the
    histories, now at decisions or ended, by the public tokens seen after the first ``seen`` events:
    ``{(tokens, player): [(state, reach, node)]}``."""
    groups, stack = {}, list(items)
    while stack:
        state, reach, node = stack.pop()
        if state.is_chance_node():
            for k, (outcome, p) in enumerate(state.chance_outcomes()):
                child = state.clone()
                child.apply_action(outcome)
                stack.append((child, reach * p, None if tree is None else tree.child(node, k)))
            continue
        key = (tuple(e[2] for e in state.events[seen:]), state.current_player())
        groups.setdefault(key, []).append((state, reach, node))
    return groups


class Explorer:
    """Public states of one strategy (:class:`~coupsolve.web.strategy.ServedStrategy`), found by
    paths of child indices from the start."""

    def __init__(self, strategy):
        self.strategy = strategy
        self._tree = strategy.values  # a history tree's moves, looked up by node; else by the policy
        self._cache = OrderedDict()

    def _node(self, path):
        path = tuple(path)
        if path in self._cache:
            self._cache.move_to_end(path)
            return self._cache[path]
        if path:
            parent = self._node(path[:-1])
            if not 0 <= path[-1] < len(parent["children"]):
                raise IndexError(f"step {len(path)} of the path: no move {path[-1]} here "
                                 f"(there are {len(parent['children'])})")
            label, items = parent["children"][path[-1]]
            node = {"label": label, "items": items}
        else:
            node = {"label": "start", "items": [(self.strategy.game.new_initial_state(), 1.0, 0)]}
        node["children"] = self._children(node["items"])
        self._cache[path] = node
        while len(self._cache) > CACHE:
            self._cache.popitem(last=False)
        return node

    def _lookup(self, player):
        """``lookup(state, node) -> (information set key, {action: probability})`` of ``player``'s
        strategy, asked once per information set."""
        if self._tree is not None:
            tree = self._tree
            return lambda state, node: (tree.infoset(node), tree.probabilities(node, state.legal_actions()))
        policy, seen = self.strategy.policy, {}

        def lookup(state, node):
            key = state.information_state_string(player)
            if key not in seen:
                seen[key] = policy.action_probabilities(state)
            return key, seen[key]
        return lookup

    def _children(self, items):
        """``[(label, items)]``: the public states one move (or the start's chance) away."""
        state = items[0][0]
        seen = len(state.events)
        if state.is_terminal():
            return []
        if state.is_chance_node():
            groups = _settle(items, seen, self._tree)
        else:
            moved, lookup, tree = [], self._lookup(state.current_player()), self._tree
            for state, reach, node in items:
                probs = lookup(state, node)[1]
                for k, a in enumerate(state.legal_actions()):
                    child = state.clone()
                    child.apply_action(a)
                    moved.append((child, reach * probs.get(a, 0.0), None if tree is None else tree.child(node, k)))
            groups = _settle(moved, seen, tree)
        pay = self.strategy.rules.challenge_buyout
        out = []
        for (tokens, _), group in groups.items():
            label = " · ".join(token_name(t, pay) for t in tokens) or "(nothing public)"
            out.append((label, group))
        out.sort(key=lambda x: -sum(h[1] for h in x[1]))
        return out

    def view(self, path) -> dict:
        """The public state at ``path`` (child indices from the start): its moves' labels, its reach,
        the acting player's grid, the moves to the next public states with their reach.

        Raises
        ------
        IndexError
            A step of the path that is not one of the moves there.
        """
        labels = [self._node(path[:k + 1])["label"] for k in range(len(path))]
        node = self._node(path)
        items = node["items"]
        total = sum(h[1] for h in items)
        state = items[0][0]
        view = {"path": list(path), "labels": labels, "reach": total, "histories": len(items),
                "deciding": "choose how the game starts" if state.is_chance_node() else deciding(state),
                "moves": [{"index": k, "label": label, "reach": sum(h[1] for h in group)}
                          for k, (label, group) in enumerate(node["children"])],
                "grid": None}
        if not state.is_chance_node() and not state.is_terminal():
            view["grid"] = self._grid(items, total)
        return view

    def _grid(self, items, total):
        """Rows (the acting player's information sets) by columns (its actions)."""
        player = items[0][0].current_player()
        rows, columns, lookup = {}, {}, self._lookup(player)
        for state, reach, node in items:
            key, probs = lookup(state, node)
            row = rows.get(key)
            if row is None:
                hand = "+".join(state.hand(player)) or "choosing from " + "/".join(
                    state.action_to_string(player, a).split()[-1] for a in probs)
                private = [token_name(e[1], self.strategy.rules.challenge_buyout).split(" ", 1)[1]
                           for e in state.events if e[0] == player and e[1] != e[2]]
                chosen = [t.replace("Choose ", "chose ") for t in private if not t.startswith(("Deal", "Draw"))]
                row = rows[key] = {"hand": hand, "reach": 0.0, "private": ", ".join(chosen or private),
                                   "probs": {int(a): float(p) for a, p in probs.items()},
                                   "held": set(state.hand(player))}
                for a in probs:
                    columns.setdefault(int(a), state.action_to_string(player, a))
            row["reach"] += reach
        rows = sorted(rows.values(), key=lambda r: (-r["reach"], r["hand"]))
        hands = [r["hand"] for r in rows]
        for r in rows:  # one hand, several information sets: told apart by what only the player saw
            r["detail"] = r["private"] if hands.count(r["hand"]) > 1 else ""
        return {"player": player, "columns": [self._column(a, label, rows, total)
                                              for a, label in sorted(columns.items())],
                "rows": [{"hand": r["hand"], "detail": r["detail"], "reach": r["reach"] / total if total > 0 else 0.0,
                          "probs": {str(a): p for a, p in r["probs"].items()}} for r in rows]}

    @staticmethod
    def _column(action, label, rows, total):
        """An action's column: how often it is played at the state and, for a claim, how often that is
        a bluff."""
        played = sum(r["reach"] * r["probs"].get(action, 0.0) for r in rows)
        column = {"action": action, "label": label,
                  "played": played / total if total > 0 else None, "bluff": None, "claim": None}
        claim = int(E.ACTION_CLAIM[action]) if action < len(E.ACTION_CLAIM) else -1
        if claim >= 0:
            card = CHARACTERS[int(E.CLAIM_CHAR[claim])]
            column["claim"] = E.CLAIM_NAMES[claim]
            if played > 0:
                column["bluff"] = sum(r["reach"] * r["probs"].get(action, 0.0) for r in rows
                                      if card not in r["held"]) / played
        return column
