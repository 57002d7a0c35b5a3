"""textual-serve's ``Server`` with the token, Host and Origin rules of ``pi serve`` (issue 24).

- The URL ``pi web`` prints carries the token once (``/?token=…``): a valid one is moved into an
  HttpOnly, ``SameSite=Strict`` cookie and the browser is sent to ``/`` so the address bar no longer
  shows it. Every later request (the page, its scripts, the WebSocket) must bring the cookie or an
  ``Authorization: Bearer`` header, else 401.
- ``security.check_request`` decides as in ``pi serve``: loopback ``Host`` names only while bound to
  loopback, and a request from another origin needs the token.
- The page textual-serve renders links a web font from the internet; that link is dropped (pi makes
  no network connection of its own, and its bundled fonts serve instead).

The app itself is ``pi`` run as ``PI_WEB_APP=1 <python> -m pi_app [arguments]`` in the folder
``pi web`` was started in (``pi_app.cli`` then runs the full-screen app on the web driver).
"""

from __future__ import annotations

import asyncio
import re
import shlex
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web
from aiohttp.typedefs import Middleware
from textual_serve.server import Server

from pi_app.shells import WEB_APP_ENV
from pi_app.shells.server.security import Token, bearer, check_request

COOKIE = "pi_web_token"
_EXTERNAL_FONT = re.compile(r"<link[^>]*fonts\.googleapis\.com[^>]*>\s*", re.IGNORECASE)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def app_command(app_args: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser tab."""
    argv = [sys.executable, "-m", "pi_app", *app_args]
    return f"{WEB_APP_ENV}=1 exec " + " ".join(shlex.quote(a) for a in argv)


class PiWebServer(Server):
    def __init__(
        self, app_args: Sequence[str], sock: socket.socket, token: Token, *, loopback_only: bool
    ) -> None:
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        super().__init__(app_command(app_args), host=shown, port=port, title="pi")
        self.sock = sock
        self.token = token
        self.loopback_only = loopback_only

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard())
        return app

    def _guard(self) -> Middleware:
        @web.middleware
        async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
            offered = request.query.get("token")
            if request.path == "/" and offered is not None and self.token.matches(offered):
                redirect = web.HTTPSeeOther("/")
                redirect.set_cookie(COOKIE, offered, httponly=True, samesite="Strict", path="/")
                return redirect
            presented = bearer(request.headers.get("authorization")) or request.cookies.get(COOKIE)
            verdict = check_request(
                token=self.token,
                host_header=request.host,
                origin=request.headers.get("origin"),
                presented=presented,
                loopback_only=self.loopback_only,
                needs_token=True,
            )
            if verdict.status:
                hint = (
                    " (open the address pi web printed: it carries the token)"
                    if verdict.status == 401
                    else ""
                )
                return web.Response(status=verdict.status, text=verdict.message + hint + "\n")
            response = await handler(request)
            if request.path == "/" and isinstance(response, web.Response) and response.text:
                response.text = _EXTERNAL_FONT.sub("", response.text)
                response.headers["cache-control"] = "no-store"
            return response

        return guard

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints a banner here; ``pi web`` has printed its address already."""

    def run(self) -> None:
        """Serve until SIGINT/SIGTERM (the apps of open tabs are stopped on the way out)."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.request_exit)
        web.run_app(
            self._make_app(),
            sock=self.sock,
            handle_signals=False,
            loop=loop,
            print=None,
            access_log=None,
            shutdown_timeout=3,
        )
