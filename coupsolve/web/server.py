"""The web app's server: the standard library's threading HTTP server, JSON in and out.

Routes (every answer to a bad request is a 4xx with ``{"error": one line}``, and changes nothing):

========================  =====================================================================
``GET /``                 the page (``static/index.html``); ``GET /static/NAME`` its files
``GET /api/setup``        the strategies served, the bots, the seat counts
``POST /api/games``       a new game: ``{"players", "seat", "bots": [one per other seat], "coach",
                          "seed"}``; answers its view with its ``id`` (201)
``GET /api/games/ID``     the game's view (:meth:`coupsolve.web.table.Table.view`)
``POST /api/games/ID``    your move: ``{"action": id, "ply": moves seen}``; answers the new view
``POST /api/explore``     ``{"strategy": name, "path": [child indices]}``: a public state
                          (:meth:`coupsolve.web.explorer.Explorer.view`)
========================  =====================================================================

The engine's OpenSpiel states share scratch buffers, so game and explorer work runs under one lock:
requests are served concurrently, their engine steps one at a time; each game is its own state,
seed and random stream, so games are independent. A game left idle for ``idle_seconds`` is dropped,
and at most ``max_games`` are kept (the least recently used go first).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from coupsolve.rules import Rules
from coupsolve.web.explorer import Explorer
from coupsolve.web.table import MoveError, Table

BOTS = {"honest": "Honest bot", "random": "Random bot"}
MAX_BODY = 64 * 1024
TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}


class ApiError(Exception):
    """A bad request: its HTTP status and one line saying why."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _static_files():
    """``{name: bytes}`` of the page's files (package data): nothing else is ever served."""
    root = resources.files("coupsolve.web") / "static"
    return {f.name: f.read_bytes() for f in root.iterdir() if f.is_file() and f.name[0] != "."}


def _int(body, key, lo, hi, default=None):
    value = body.get(key, default)
    if value is None and default is None and key not in body:
        raise ApiError(400, f"{key!r} is missing")
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{key!r} must be a whole number from {lo} to {hi}, not {value!r}")
    return value


class App:
    """The games and strategies of one server, and the answers to its requests (:meth:`handle`).

    Parameters
    ----------
    strategies : list of ServedStrategy
    idle_seconds : float
        A game untouched this long is dropped.
    max_games : int
    """

    def __init__(self, strategies=(), idle_seconds=1800.0, max_games=64):
        self.strategies = {s.name: s for s in strategies}
        self.explorers = {s.name: Explorer(s) for s in strategies}
        self.games = {}
        self.idle_seconds, self.max_games = idle_seconds, max_games
        self.lock = threading.Lock()
        self.files = _static_files()

    # ---- routing ------------------------------------------------------------------------------------
    def handle(self, method, path, body=b""):
        """``(status, content type, bytes)`` answering one request."""
        try:
            path = path.split("?", 1)[0]
            if method == "GET" and (path == "/" or path.startswith("/static/")):
                return self._file("index.html" if path == "/" else path[len("/static/"):], path)
            if not path.startswith("/api/"):
                raise ApiError(404, f"no such page: {path}")
            with self.lock:
                self.sweep()
                status, doc = self._api(method, path[len("/api/"):].split("/"), body)
            return status, "application/json", json.dumps(doc).encode()
        except ApiError as e:
            return e.status, "application/json", json.dumps({"error": str(e)}).encode()
        except Exception as e:  # a fault of this server, not of the request: said in one line
            line = (str(e).splitlines() or [""])[0]
            return 500, "application/json", json.dumps({"error": f"internal error: {type(e).__name__}: {line}"}).encode()

    def _file(self, name, path):
        data = self.files.get(name)
        if data is None:
            raise ApiError(404, f"no such file: {path}")
        return 200, TYPES.get(name[name.rfind("."):], "application/octet-stream"), data

    def _api(self, method, parts, body):
        route = (method, parts[0], len(parts))
        if route == ("GET", "setup", 1):
            return 200, self.setup()
        if route == ("POST", "games", 1):
            return 201, self.new_game(_json(body))
        if route[1:] == ("games", 2) and method in ("GET", "POST"):
            table = self.games.get(parts[1])
            if table is None:
                raise ApiError(404, f"no game {parts[1]!r} (it ended long ago or the server restarted): "
                                    "start a new one")
            table.touched = time.monotonic()
            if method == "POST":
                self._move(table, _json(body))
            return 200, dict(table.view(), id=parts[1])
        if route == ("POST", "explore", 1):
            return 200, self.explore(_json(body))
        known = {"setup": "GET", "games": "GET or POST", "explore": "POST"}
        if parts[0] in known:
            raise ApiError(405, f"{method} /api/{'/'.join(parts)}: use {known[parts[0]]}")
        raise ApiError(404, f"no such request: /api/{'/'.join(parts)}")

    # ---- the requests -------------------------------------------------------------------------------
    def setup(self) -> dict:
        """The strategies served and the bots."""
        return {"strategies": [s.describe() for s in self.strategies.values()],
                "bots": [{"name": k, "label": v} for k, v in BOTS.items()], "players": [2, 6]}

    def new_game(self, body) -> dict:
        """A new game (see the module docstring); its view with its id."""
        players = _int(body, "players", 2, 6, 2)
        bots = body.get("bots", ["honest"] * (players - 1))
        if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
            raise ApiError(400, "'bots' must be a list of names, one per seat other than yours")
        named = [self._strategy(b) for b in bots if b not in BOTS]
        coach = body.get("coach")
        if coach is not None and not isinstance(coach, str):
            raise ApiError(400, f"'coach' must be a strategy's name or null, not {coach!r}")
        if coach:
            named.append(self._strategy(coach))
        rules = named[0].rules if named else Rules(players=players, setup="standard")
        for s in named:
            if s.rules != rules:
                raise ApiError(400, f"{s.name} is a strategy for {s.rules}, not for {rules}: the seats "
                                    "of one game play one game's rules")
        if named and "players" in body and players != rules.players:
            raise ApiError(400, f"{named[0].name} is a strategy for {rules.players} players, not {players}")
        players = rules.players
        if len(bots) != players - 1:
            raise ApiError(400, f"{players} players: give {players - 1} bots (one per seat other than "
                                f"yours), not {len(bots)}")
        seat = _int(body, "seat", 0, players - 1, 0)
        seed = _int(body, "seed", 0, 2**31 - 1, secrets.randbelow(2**31))
        game = named[0].game if named else _preset_game(rules)
        it = iter(bots)
        seated = [None if p == seat else self._bot(next(it), game) for p in range(players)]
        table = Table(rules, game, seat, seated, coach=self.strategies.get(coach) if coach else None,
                      seed=seed)
        key = secrets.token_hex(8)
        self.games[key] = table
        self.sweep()
        return dict(table.view(), id=key)

    def _strategy(self, name):
        if name not in self.strategies:
            served = ", ".join(self.strategies) or "none"
            raise ApiError(400, f"no strategy {name!r} (served: {served}; bots: {', '.join(BOTS)})")
        return self.strategies[name]

    def _bot(self, name, game):
        from coupsolve.openspiel.bots import HonestBot, RandomBot

        if name == "honest":
            return BOTS[name], HonestBot(game)
        if name == "random":
            return BOTS[name], RandomBot(game)
        return name, self.strategies[name].seat_policy()

    @staticmethod
    def _move(table, body):
        action = body.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            raise ApiError(400, f"'action' must be an action id (a whole number), not {action!r}")
        ply = body.get("ply")
        if ply is not None and (isinstance(ply, bool) or not isinstance(ply, int)):
            raise ApiError(400, f"'ply' must be a whole number, not {ply!r}")
        try:
            table.move(action, ply)
        except MoveError as e:
            raise ApiError(409, str(e)) from None

    def explore(self, body) -> dict:
        """A public state of a served strategy (see :class:`~coupsolve.web.explorer.Explorer`)."""
        name, path = body.get("strategy"), body.get("path", [])
        if not isinstance(name, str):
            raise ApiError(400, "'strategy' must be the name of a served strategy")
        strategy = self._strategy(name)
        if not isinstance(path, list) or not all(isinstance(k, int) and not isinstance(k, bool)
                                                 for k in path):
            raise ApiError(400, "'path' must be a list of move indices")
        try:
            view = self.explorers[name].view(path)
        except IndexError as e:
            raise ApiError(400, str(e)) from None
        return dict(view, strategy=name, analysis=strategy.analysis)

    def sweep(self):
        """Drop the games idle for longer than ``idle_seconds``, then the least recently used beyond
        ``max_games``."""
        now = time.monotonic()
        for key in [k for k, t in self.games.items() if now - t.touched > self.idle_seconds]:
            del self.games[key]
        for key in sorted(self.games, key=lambda k: self.games[k].touched)[:-self.max_games or None]:
            del self.games[key]


_PRESETS = {}


def _preset_game(rules):
    from coupsolve.openspiel.game import load_game

    if rules not in _PRESETS:
        _PRESETS[rules] = load_game(rules)
    return _PRESETS[rules]


def _json(body):
    try:
        doc = json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError) as e:
        raise ApiError(400, f"the body is not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise ApiError(400, f"the body must be a JSON object, not {type(doc).__name__}")
    return doc


class Handler(BaseHTTPRequestHandler):
    """Hands every request to the server's :class:`App`."""

    server_version = "coupsolve"

    def _answer(self, method):
        body = b""
        if method == "POST":
            try:
                size = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                size = -1
            if not 0 <= size <= MAX_BODY:
                return self._send(413 if size > MAX_BODY else 400, "application/json", json.dumps(
                    {"error": f"the body must be at most {MAX_BODY} bytes with its Content-Length"}).encode())
            body = self.rfile.read(size)
        if method not in ("GET", "POST"):
            return self._send(405, "application/json",
                              json.dumps({"error": f"{method} is not a request this server takes"}).encode())
        self._send(*self.server.app.handle(method, self.path, body))

    def _send(self, status, kind, data):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server's names)
        self._answer("GET")

    def do_POST(self):  # noqa: N802
        self._answer("POST")

    def do_PUT(self):  # noqa: N802
        self._answer("PUT")

    def do_DELETE(self):  # noqa: N802
        self._answer("DELETE")

    def log_message(self, fmt, *args):  # the requests are not logged; errors are answered, not printed
        pass


def make_server(app, host="127.0.0.1", port=0):
    """A :class:`ThreadingHTTPServer` serving ``app`` (port 0: any free port; its address is
    ``server.server_address``)."""
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.app = app
    return server


def serve(app, host="127.0.0.1", port=8000, out=print):
    """Serve ``app`` until interrupted, dropping idle games every minute."""
    server = make_server(app, host, port)
    stop = threading.Event()

    def sweeper():
        while not stop.wait(60):
            with app.lock:
                app.sweep()
    threading.Thread(target=sweeper, daemon=True).start()
    h, p = server.server_address[:2]
    out(f"coupsolve: serving on http://{h}:{p}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    finally:
        stop.set()
        server.server_close()
