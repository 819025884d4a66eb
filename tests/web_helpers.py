"""Helpers of the web app's tests: a tiny solved strategy, a server on a free port, JSON requests."""

import contextlib
import http.client
import json
import threading

import pytest


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """A strategy solved here (turn limit 1, 50 iterations: seconds once compiled), loaded as the web
    app serves it."""
    from coupsolve.cli import main
    from coupsolve.web.strategy import load_served

    path = tmp_path_factory.mktemp("web") / "s.npz"
    assert main(["solve", "--turn-limit", "1", "--iterations", "50", "--no-progress", "--out", str(path)]) == 0
    return load_served(path)


@contextlib.contextmanager
def running(app):
    """``(host, port)`` of a server of ``app`` on a free port, for the ``with`` block."""
    from coupsolve.web.server import make_server

    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[:2]
    finally:
        server.shutdown()
        server.server_close()


def request(address, method, path, body=None, raw=None, headers=None):
    """``(status, document)`` of one request; ``body`` is sent as JSON, ``raw`` as it is."""
    conn = http.client.HTTPConnection(*address, timeout=60)
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    res = conn.getresponse()
    payload = res.read()
    conn.close()
    kind = res.getheader("Content-Type", "")
    return res.status, json.loads(payload) if kind.startswith("application/json") else payload
