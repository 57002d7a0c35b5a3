"""The HTTP + Server-Sent Events API of ``pi serve``, on Starlette (issue 24).

Routes (all under ``/api``; the OpenAPI document at ``/api/openapi.json`` lists them with their
bodies): session listing, opening (new, by id, by file, most recent of a folder) and closing;
``prompt``, ``steer``, ``follow_up``, ``abort``; messages, tree and state; any other RPC command
through ``POST /api/sessions/{id}/rpc``; answers to extension dialogs; and the event stream.

Command routes answer with the child's RPC ``response`` object as it is (``success``, ``data`` or
``error``): HTTP 200 when it succeeded, 400 when the child refused, 502 when the child could not
start or died before answering (the next request starts a new one), 404 for an unknown session.

``GET /api/sessions/{id}/events`` is ``text/event-stream``: one ``id:``/``data:`` pair per event,
``data`` being the RPC line unchanged. Without ``Last-Event-ID`` (header, or ``?after=`` for
clients that cannot set headers) the stream starts with the next event; with it, every kept event
after that id comes first. Comments (``: keep-alive``) go out every 15 seconds.

Two pure ASGI middlewares sit in front (pure, so streaming responses stay streaming): the request
size limit (413, also for chunked bodies) and the safety rules of ``security`` (401/403); the
health check and the OpenAPI document need no token but follow the Host and Origin rules.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pi_app import __version__
from pi_app.shells.server.event_log import JsonObject
from pi_app.shells.server.host import ChildFailed, SessionHost
from pi_app.shells.server.openapi import openapi_document
from pi_app.shells.server.security import Token, bearer, check_request, is_same_origin
from pi_app.shells.server.supervisor import BadSessionRequest, SessionNotFound, Supervisor

DEFAULT_MAX_BODY = 8 * 1024 * 1024  # images travel base64 inside prompts
KEEPALIVE_SECONDS = 15.0
PUBLIC_PATHS = frozenset({"/api/health", "/api/openapi.json"})


@dataclass
class ServerConfig:
    token: Token
    loopback_only: bool = True
    max_body: int = DEFAULT_MAX_BODY


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# -- middlewares -----------------------------------------------------------------------------------


async def _send_json(
    send: Send, status: int, body: JsonObject, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """413 for a request body over ``max_bytes``, declared or counted while it arrives. The body is
    read here whole (bodies are small JSON) and handed on; the rest of an oversize body is read and
    dropped, up to four times the limit, so the client reads the answer instead of a reset."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._drain(receive, int(declared))
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before sending its body
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                if message.get("more_body"):
                    await self._drain(receive, 0)
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        whole: list[Message] = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

        async def replay() -> Message:
            return whole.pop() if whole else await receive()

        await self.app(scope, replay, send)

    async def _drain(self, receive: Receive, declared: int) -> None:
        budget = 4 * self.max_bytes
        if declared > budget:
            return
        while budget > 0:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body"):
                return
            budget -= len(message.get("body", b""))

    async def _refuse(self, send: Send) -> None:
        await _send_json(send, 413, {"error": f"Request body over {self.max_bytes} bytes"})


class Guard:
    """The Host, Origin and token rules of ``security.check_request`` for every request; CORS
    pre-flights are answered so a page elsewhere that holds the token can call the API."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host_header = headers.get("host", "")
        origin = headers.get("origin")
        cross = bool(origin) and not is_same_origin(origin or "", host_header)
        if scope["method"] == "OPTIONS" and cross and "access-control-request-method" in headers:
            await self._preflight(send, origin or "")
            return
        verdict = check_request(
            token=self.config.token,
            host_header=host_header,
            origin=origin,
            presented=bearer(headers.get("authorization")),
            loopback_only=self.config.loopback_only,
            needs_token=scope["path"] not in PUBLIC_PATHS,
        )
        if verdict.status:
            extra = [(b"www-authenticate", b'Bearer realm="pi"')] if verdict.status == 401 else []
            await _send_json(send, verdict.status, {"error": verdict.message}, extra)
            return
        if not cross:
            await self.app(scope, receive, send)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message["headers"], *_cors(origin or "")]}
            await send(message)

        await self.app(scope, receive, with_cors)

    async def _preflight(self, send: Send, origin: str) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [
                    *_cors(origin),
                    (b"access-control-allow-methods", b"GET, POST, DELETE"),
                    (b"access-control-allow-headers", b"authorization, content-type, last-event-id"),
                    (b"access-control-max-age", b"600"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


def _cors(origin: str) -> list[tuple[bytes, bytes]]:
    return [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]


# -- handlers -------------------------------------------------------------------------------------

Handler = Callable[[Request], Awaitable[Response]]


def _errors(handler: Handler) -> Handler:
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except HttpError as exc:
            return JSONResponse({"error": str(exc)}, exc.status)
        except SessionNotFound as exc:
            return JSONResponse({"error": str(exc)}, 404)
        except BadSessionRequest as exc:
            return JSONResponse({"error": str(exc)}, 400)
        except ChildFailed as exc:
            return JSONResponse({"error": str(exc)}, 502)

    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


async def _body(request: Request) -> JsonObject:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise HttpError(400, f"The body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise HttpError(400, "The body must be a JSON object")
    return body


def _supervisor(request: Request) -> Supervisor:
    return request.app.state.supervisor


def _host(request: Request) -> SessionHost:
    return _supervisor(request).get(request.path_params["id"])


def _rpc_answer(response: JsonObject) -> JSONResponse:
    return JSONResponse(response, 200 if response.get("success") else 400)


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True, "version": __version__})


async def openapi(request: Request) -> Response:
    return JSONResponse(openapi_document(__version__))


async def list_sessions(request: Request) -> Response:
    return JSONResponse({"sessions": [h.describe() for h in _supervisor(request).hosts.values()]})


async def list_saved(request: Request) -> Response:
    cwd = request.query_params.get("cwd") or None
    return JSONResponse({"sessions": await _supervisor(request).saved_sessions(cwd)})


async def open_session(request: Request) -> Response:
    body = await _body(request)
    for name in ("cwd", "sessionId", "sessionFile"):
        if body.get(name) is not None and not isinstance(body[name], str):
            raise HttpError(400, f"{name} must be a string")
    host, created = await _supervisor(request).open(
        body.get("cwd"),
        session_id=body.get("sessionId"),
        session_file=body.get("sessionFile"),
        continue_recent=bool(body.get("continue")),
    )
    return JSONResponse(host.describe(), 201 if created else 200)


async def get_session(request: Request) -> Response:
    return JSONResponse(_host(request).describe())


async def close_session(request: Request) -> Response:
    key = request.path_params["id"]
    await _supervisor(request).close(key)
    return JSONResponse({"closed": key})


def _message_command(kind: str, *, streaming: bool = False) -> Handler:
    async def handler(request: Request) -> Response:
        body = await _body(request)
        if not isinstance(body.get("message"), str):
            raise HttpError(400, "message (a string) is required")
        command: JsonObject = {"type": kind, "message": body["message"]}
        if body.get("images") is not None:
            command["images"] = body["images"]
        if streaming and body.get("streamingBehavior") is not None:
            command["streamingBehavior"] = body["streamingBehavior"]
        return _rpc_answer(await _host(request).request(command))

    handler.__name__ = kind
    return handler


def _plain_command(kind: str) -> Handler:
    async def handler(request: Request) -> Response:
        return _rpc_answer(await _host(request).request({"type": kind}))

    handler.__name__ = kind
    return handler


async def rpc(request: Request) -> Response:
    body = await _body(request)
    if not isinstance(body.get("type"), str):
        raise HttpError(400, "type (the RPC command) is required")
    if body["type"] == "extension_ui_response":
        raise HttpError(400, "Answer dialogs with POST /api/sessions/{id}/ui-response")
    body.pop("id", None)
    return _rpc_answer(await _host(request).request(body))


async def ui_response(request: Request) -> Response:
    body = await _body(request)
    if not isinstance(body.get("id"), str):
        raise HttpError(400, "id (the extension_ui_request's id) is required")
    await _host(request).answer_dialog(body)
    return JSONResponse({"ok": True})


async def events(request: Request) -> Response:
    supervisor = _supervisor(request)
    host = _host(request)
    given = request.headers.get("last-event-id") or request.query_params.get("after")
    if given is None:
        start = host.log.last_id
    elif given.strip().isdigit():
        start = int(given)
    else:
        raise HttpError(400, "Last-Event-ID must be an event number")

    async def stream() -> AsyncIterator[bytes]:
        last = start
        yield b"retry: 1000\n: connected\n\n"
        while True:
            batch = await host.log.wait_after(last, KEEPALIVE_SECONDS)
            if batch:
                yield b"".join(event.sse() for event in batch)
                last = batch[-1].id
            elif supervisor.hosts.get(host.key) is not host:
                return  # the session was closed
            else:
                yield b": keep-alive\n\n"
            if supervisor.hosts.get(host.key) is not host and last >= host.log.last_id:
                return

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )


def routes() -> list[Route]:
    def session_route(path: str, handler: Handler, method: str) -> Route:
        return Route("/api/sessions/{id}" + path, _errors(handler), methods=[method])

    return [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
        Route("/api/sessions", _errors(list_sessions), methods=["GET"]),
        Route("/api/sessions", _errors(open_session), methods=["POST"]),
        Route("/api/sessions/saved", _errors(list_saved), methods=["GET"]),
        session_route("", get_session, "GET"),
        session_route("", close_session, "DELETE"),
        session_route("/prompt", _message_command("prompt", streaming=True), "POST"),
        session_route("/steer", _message_command("steer"), "POST"),
        session_route("/follow_up", _message_command("follow_up"), "POST"),
        session_route("/abort", _plain_command("abort"), "POST"),
        session_route("/messages", _plain_command("get_messages"), "GET"),
        session_route("/tree", _plain_command("get_tree"), "GET"),
        session_route("/state", _plain_command("get_state"), "GET"),
        session_route("/rpc", rpc, "POST"),
        session_route("/ui-response", ui_response, "POST"),
        session_route("/events", events, "GET"),
    ]


def build_app(supervisor: Supervisor, config: ServerConfig) -> ASGIApp:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await supervisor.start()
        try:
            yield
        finally:
            await supervisor.shutdown()

    app = Starlette(routes=routes(), lifespan=lifespan)
    app.state.supervisor = supervisor
    app.state.config = config
    return BodyLimit(Guard(app, config), config.max_body)
