"""The web app's server without a browser: bad requests answered and harmless, games played to the end
and checked against the engine, independent games, idle games dropped, the coach's values against an
independent enumeration, the explorer's reach."""

import math
import re
import time

import pytest
from web_helpers import request, running, served  # noqa: F401 (served: a fixture)

from coupsolve.web.server import App

BOTS_ONLY = {"players": 3, "seat": 1, "bots": ["honest", "random"], "seed": 7}


def test_bad_requests_get_a_4xx_with_one_line_and_change_nothing(served):  # noqa: F811
    app = App([served])
    with running(app) as at:
        status, game = request(at, "POST", "/api/games", {"bots": [served.name], "coach": served.name, "seed": 3})
        assert status == 201 and not game["over"] and game["moves"]
        gid, legal = game["id"], {m["action"] for m in game["moves"]}
        illegal = next(a for a in range(60) if a not in legal)
        bad = [  # (method, path, body or raw bytes, status, words of the reason)
            ("POST", f"/api/games/{gid}", {"action": illegal, "ply": game["ply"]}, 409, "is not legal here"),
            ("POST", f"/api/games/{gid}", {"action": game["moves"][0]["action"], "ply": game["ply"] + 5},
             409, "was sent for move"),
            ("POST", f"/api/games/{gid}", {"action": "Tax"}, 400, "must be an action id"),
            ("POST", f"/api/games/{gid}", b"{not json", 400, "is not JSON"),
            ("POST", f"/api/games/{gid}", b"[1, 2]", 400, "must be a JSON object"),
            ("POST", f"/api/games/{gid}", b"\xff\xfe", 400, "is not JSON"),
            ("POST", "/api/games/0123456789abcdef", {"action": 0}, 404, "no game"),
            ("GET", "/api/games/stale", None, 404, "no game"),
            ("POST", "/api/games", {"bots": ["nobody"]}, 400, "no strategy 'nobody'"),
            ("POST", "/api/games", {"players": 3, "bots": ["honest"]}, 400, "give 2 bots"),
            ("POST", "/api/games", {"players": 9}, 400, "from 2 to 6"),
            ("POST", "/api/games", {"players": 2, "bots": ["honest"], "seat": 2}, 400, "from 0 to 1"),
            ("POST", "/api/games", {"players": 3, "bots": [served.name, "honest"]}, 400, "for 2 players, not 3"),
            ("POST", "/api/games", {"bots": [served.name, "honest"]}, 400, "give 1 bots"),
            ("POST", "/api/explore", {"strategy": served.name, "path": [99]}, 400, "no move 99"),
            ("POST", "/api/explore", {"strategy": served.name, "path": "0"}, 400, "list of move indices"),
            ("GET", "/static/../server.py", None, 404, "no such file"),
            ("GET", "/static/%2e%2e/server.py", None, 404, "no such file"),
            ("GET", "/static/..%2f..%2fpyproject.toml", None, 404, "no such file"),
            ("GET", "/../../etc/passwd", None, 404, "no such page"),
            ("GET", "/api/nothing", None, 404, "no such request"),
            ("PUT", f"/api/games/{gid}", {"action": 0}, 405, "is not a request this server takes"),
            ("GET", "/api/explore", None, 405, "use POST"),
            ("POST", f"/api/games/{gid}", b"x" * 70_000, 413, "at most"),
        ]
        for method, path, body, code, words in bad:
            raw = body if isinstance(body, bytes) else None
            status, doc = request(at, method, path, None if raw is not None else body, raw=raw)
            assert status == code, (method, path, status, doc)
            assert words in doc["error"] and "\n" not in doc["error"], (path, doc)
            status, now = request(at, "GET", f"/api/games/{gid}")
            assert status == 200 and now["ply"] == game["ply"] and now["log"] == game["log"]
        assert len(app.games) == 1


def test_the_page_and_its_files_are_served_and_fetch_nothing_from_another_host():
    app = App([])
    with running(app) as at:
        status, page = request(at, "GET", "/")
        assert status == 200 and b"<title>coupsolve" in page
        for name in re.findall(rb'(?:href|src)="/static/([^"]+)"', page):
            status, data = request(at, "GET", f"/static/{name.decode()}")
            assert status == 200 and data
    for name, data in app.files.items():  # no address of another host in any file of the page
        assert not re.search(rb"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", data, re.I) or name.endswith(".svg"), name


def _check_against_engine(view, table):
    """What the view says against the engine's state."""
    state = table.state
    for seat in view["seats"]:
        p = seat["seat"]
        assert seat["coins"] == state.coins[p] and seat["influence"] == state.influence[p]
        assert seat["face_up"] == state.face_up[p]
        assert seat["hand"] == (state.hand(p) if view["over"] or p == view["seat"] else None)
    legal = [] if state.is_terminal() else state.legal_actions()
    assert [m["action"] for m in view["moves"]] == legal
    assert view["ply"] == len(state.history())


@pytest.mark.parametrize("seat", [0, 2])
def test_a_game_against_the_bots_is_played_to_the_end(seat):
    app = App([])
    game = app.new_game(dict(BOTS_ONLY, seat=seat))
    table, moves = app.games[game["id"]], 0
    while not game["over"]:
        assert game["seats"][seat]["acting"]
        _check_against_engine(game, table)
        _, game = app._api("POST", ["games", game["id"]], f'{{"action": {game["moves"][-1]["action"]}}}'.encode())
        moves += 1
    _check_against_engine(game, table)
    assert moves > 0 and game["result"] and all(s["hand"] is not None for s in game["seats"])


def test_games_are_independent():
    app = App([])
    a, b = app.new_game(BOTS_ONLY), app.new_game(BOTS_ONLY)
    assert a["id"] != b["id"] and a["log"] == b["log"]  # same seed, same deal
    _, a2 = app._api("POST", ["games", a["id"]], f'{{"action": {a["moves"][0]["action"]}}}'.encode())
    _, b2 = app._api("GET", ["games", b["id"]], b"")
    assert a2["ply"] > a["ply"] and b2["ply"] == b["ply"] and b2["log"] == b["log"]


def test_idle_games_are_dropped():
    app = App([], idle_seconds=60, max_games=2)
    old, new = app.new_game(BOTS_ONLY), app.new_game(BOTS_ONLY)
    app.games[old["id"]].touched = time.monotonic() - 61
    status = app.handle("GET", f"/api/games/{old['id']}")[0]
    assert status == 404 and list(app.games) == [new["id"]]
    for _ in range(3):
        app.new_game(BOTS_ONLY)
    assert len(app.games) == 2 and new["id"] not in app.games  # the least recently used went first


def _enumerated_values(game, policy, target):
    """The counterfactual value of each move at ``target``'s information set, by walking every
    history through OpenSpiel (the independent check of MoveValues)."""
    i, key = target.current_player(), target.information_state_string(target.current_player())
    num, den = {a: 0.0 for a in target.legal_actions()}, [0.0]
    public = [e[2] for e in target.events]  # every history of the information set shows the public this

    def expected(state):
        if state.is_terminal():
            return state.returns()[i]
        if state.is_chance_node():
            return sum(p * expected(state.child(o)) for o, p in state.chance_outcomes())
        return sum(p * expected(state.child(a)) for a, p in policy.action_probabilities(state).items() if p > 0)

    def walk(state, reach):
        seen = [e[2] for e in state.events]
        if state.is_terminal() or reach == 0.0 or seen != public[:len(seen)]:
            return
        if state.is_chance_node():
            for o, p in state.chance_outcomes():
                walk(state.child(o), reach * p)
            return
        p = state.current_player()
        if p == i and state.information_state_string(i) == key:
            den[0] += reach
            for a in num:
                num[a] += reach * expected(state.child(a))
            return
        probs = policy.action_probabilities(state)
        for a in state.legal_actions():
            walk(state.child(a), reach * (1.0 if p == i else probs[a]))
    walk(game.new_initial_state(), 1.0)
    return None if den[0] == 0 else {a: v / den[0] for a, v in num.items()}


def test_the_coachs_values_match_an_enumeration_of_the_game(served):  # noqa: F811
    app = App([served])
    game = app.new_game({"seat": 1, "bots": [served.name], "coach": served.name, "seed": 5})
    table, checked = app.games[game["id"]], 0
    while not game["over"]:
        if table.state.turn == 0:  # the card choice: enumerating below it walks the whole game (slow)
            _, game = app._api("POST", ["games", game["id"]], f'{{"action": {game["moves"][0]["action"]}}}'.encode())
            continue
        values = served.values.values(table.state)
        expected = _enumerated_values(served.game, served.policy, table.state)
        assert (values is None) == (expected is None)
        if values is not None:
            assert values.keys() == expected.keys()
            assert all(math.isclose(values[a], expected[a], abs_tol=1e-9) for a in values)
            assert [m["value"] for m in game["moves"]] == [values[m["action"]] for m in game["moves"]]
            checked += 1
        best = max(game["moves"], key=lambda m: m["prob"])
        _, game = app._api("POST", ["games", game["id"]], f'{{"action": {best["action"]}}}'.encode())
    assert checked > 0 and game["review"] and all("loss" in d or "prob" in d for d in game["review"])


def test_the_explorer_splits_each_states_reach_among_its_moves_and_shows_the_strategy(served):  # noqa: F811
    app = App([served])
    path, seen = [], 0
    while True:
        view = app.explore({"strategy": served.name, "path": path})
        if not view["moves"]:
            break
        assert math.isclose(sum(m["reach"] for m in view["moves"]), view["reach"], rel_tol=1e-9)
        if view["grid"]:
            rows = view["grid"]["rows"]
            assert math.isclose(sum(r["reach"] for r in rows), 1.0, rel_tol=1e-9)
            assert all(math.isclose(sum(r["probs"].values()), 1.0, rel_tol=1e-6) for r in rows)
            seen += 1
        path = path + [0]  # the most reached move
    assert seen >= 2 and view["analysis"]["claims"]


def test_serve_refuses_a_bad_strategy_file_in_one_line(tmp_path, capsys):
    from coupsolve.cli import main

    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a strategy")
    assert main(["serve", str(tmp_path / "missing.npz")]) == 2
    assert main(["serve", str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "no such file" in err[0] and "not a coupsolve strategy file" in err[1]


def test_a_fault_of_the_server_is_a_500_in_one_line(monkeypatch):
    app = App([])
    game = app.new_game(BOTS_ONLY)
    monkeypatch.setattr(app.games[game["id"]], "view", lambda: 1 / 0)
    status, _, body = app.handle("GET", f"/api/games/{game['id']}")
    assert status == 500 and b"internal error: ZeroDivisionError" in body
    assert not app.lock.locked()


@pytest.mark.xdist_group("search")
def test_a_game_against_the_re_solving_player_gives_each_seat_its_own_player(capsys):
    """``serve --search``'s strategy: each game seats a new re-solving player (each keeps its own range
    through its own game), which re-solves at its decisions and plays legal moves to the end."""
    from coupsolve.search import ResolvingPolicy, SearchSettings
    from coupsolve.web.strategy import load_served, searching_served

    table_strategy = load_served("blueprint", "blueprint")
    searching = searching_served(table_strategy, "blueprint", SearchSettings(rollouts=1, iterations=5))
    app = App([table_strategy, searching])
    assert searching.name in [s["name"] for s in app.setup()["strategies"]]
    first, second = (app.new_game({"bots": [searching.name], "seat": 0, "seed": 5}) for _ in range(2))
    a, b = (app.games[g["id"]].bots[1][1] for g in (first, second))
    assert isinstance(a, ResolvingPolicy) and a is not b and a is not searching.policy
    game, table, moves = first, app.games[first["id"]], 0
    while not game["over"] and moves < 12:
        _check_against_engine(game, table)
        _, game = app._api("POST", ["games", game["id"]], f'{{"action": {game["moves"][0]["action"]}}}'.encode())
        moves += 1
    _check_against_engine(game, table)
    assert a.last is not None and a.own.known  # it re-solved, and kept its strategies for its range
    from coupsolve.cli import main

    assert main(["serve", "missing.npz", "--search", "1"]) == 2
    assert "no such file" in capsys.readouterr().err
