"""coupsolve in the browser: ``coupsolve serve`` (a table against the bots and the strategies, a coach, a
strategy explorer).

The server (:mod:`coupsolve.web.server`, the standard library's HTTP server) owns every game; the page
(``static/``: HTML, CSS and JavaScript shipped with the package, no build step, nothing fetched from
another host) asks it for the state and the legal moves and renders them. :mod:`coupsolve.web.table`
is a game at the table, :mod:`coupsolve.web.explorer` the explorer, :mod:`coupsolve.web.strategy` a
strategy file as served (its move values and analysis).
"""

from coupsolve.web.server import App, make_server, serve  # noqa: F401

__all__ = ["App", "make_server", "serve"]
