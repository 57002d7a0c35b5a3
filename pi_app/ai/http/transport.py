"""Sending one streaming request: retries, timeouts, abort and error texts (R-AI-25…28, R-AI-84…87).

``open_stream`` posts a JSON body and returns the 2xx response with its body not yet read. Before
that point it retries connect failures, timeouts waiting for headers and the statuses 408, 409,
429, 500, 502, 503, 504 and 529, honouring ``retry-after-ms`` / ``retry-after`` (seconds or an
HTTP date); every retry is recorded in the caller's diagnostics list. When its own retries are
spent (a caller such as the agent session may ask for none) a ``retryAfter`` diagnostic carries the
server's requested delay to the caller's retry. Once a 2xx body is being
consumed nothing is retried. Failures raise ``TransportError`` whose text follows R-AI-26/27 so
that L3 can classify it (retryable, context overflow) by text; an abort raises ``RequestAborted``.

Every wait (connect, headers, error body, retry sleep) races the abort signal, so ``abort()`` ends a
request promptly even against a server that sends nothing.

Error texts and retry diagnostics never carry the request's credentials: a server (or proxy) that
echoes the key in its error body gets it replaced by ``[redacted]`` (``redact_credentials``), since
these texts end up in session files, exports and on screen.
"""

from __future__ import annotations

import asyncio
import email.utils
import inspect
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.http.client import new_http_client

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

T = TypeVar("T")

RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RETRY_DELAY_MS = 60_000
DEFAULT_TIMEOUT_MS = 600_000
CONNECT_TIMEOUT_S = 30.0
MAX_BACKOFF_S = 8.0
MAX_RAW_BODY_CHARS = 2000


class TransportError(Exception):
    """A request failed; ``str(error)`` is the message for ``errorMessage``."""


class RequestAborted(Exception):
    """The caller's signal fired while the request was in flight."""


# ---------------------------------------------------------------------------------------------
# Error texts (R-AI-26, R-AI-27)
# ---------------------------------------------------------------------------------------------


def describe_error_object(error: Any) -> tuple[str | None, str | None]:
    """(type, message) of a provider error object (Anthropic, OpenAI, Google shapes)."""
    if isinstance(error, str):
        return None, error
    if not isinstance(error, dict):
        return None, None
    kind = error.get("type") or error.get("status")
    if not kind and isinstance(error.get("code"), str):
        kind = error["code"]
    message = error.get("message")
    if message in (None, ""):
        return (str(kind) if kind else None), None
    text = str(message)
    param = error.get("param")  # OpenAI names the rejected request field; say it when the text does not
    if isinstance(param, str) and param and param not in text:
        text = f"{text} (parameter: {param})"
    return (str(kind) if kind else None), text


def _openrouter_raw(error: Any) -> str | None:
    if isinstance(error, dict) and isinstance(error.get("metadata"), dict):
        raw = error["metadata"].get("raw")
        if raw:
            return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
    return None


def format_error_object(error: Any, prefix: str = "") -> str | None:
    """``"<prefix> <type>: <message>"`` / ``"<prefix> <message>"``; None if there is no message."""
    kind, message = describe_error_object(error)
    if message is None:
        return None
    head = f"{prefix} " if prefix else ""
    text = f"{head}{kind}: {message}" if kind else f"{head}{message}"
    raw = _openrouter_raw(error)
    return f"{text}\n{raw}" if raw else text


def format_http_error(status: int, body: str) -> str:
    """The ``errorMessage`` for a non-2xx response (R-AI-26)."""
    if not body.strip():
        return f"{status} status code (no body)"
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):  # shown raw below
        parsed = None
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
        parsed = parsed[0]  # Google sometimes wraps the error in a one-element array
    if isinstance(parsed, dict):
        source = parsed.get("error", parsed)
        text = format_error_object(source, str(status))
        if text is None and isinstance(parsed.get("message"), str):
            text = f"{status} {parsed['message']}"
        if text is not None:
            return text
    return f"{status} {body[:MAX_RAW_BODY_CHARS]}"


_CREDENTIAL_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key"}
)
_CREDENTIAL_PARAMS = frozenset({"key", "api_key", "api-key"})
_MIN_SECRET_CHARS = 8  # shorter values would redact ordinary words


def credential_values(headers: dict[str, str], params: dict[str, str] | None = None) -> list[str]:
    """The secrets a request carries (``Bearer <token>`` yields the token), longest first."""
    found: set[str] = set()
    for name, value in headers.items():
        if name.lower() in _CREDENTIAL_HEADERS and isinstance(value, str):
            found.add(value.strip())
            found.add(value.strip().rpartition(" ")[2])
    for name, value in (params or {}).items():
        if name.lower() in _CREDENTIAL_PARAMS and isinstance(value, str):
            found.add(value.strip())
    return sorted((v for v in found if len(v) >= _MIN_SECRET_CHARS), key=len, reverse=True)


def redact_credentials(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text


def format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:.1f}"


def connection_error_text(exc: BaseException) -> str:
    reason = str(exc) or type(exc).__name__
    return f"Connection error: {reason}"


def timeout_text(timeout_ms: int) -> str:
    return f"Request timed out after {format_seconds(timeout_ms / 1000)}s"


# ---------------------------------------------------------------------------------------------
# Abortable waiting
# ---------------------------------------------------------------------------------------------


async def race_abort(awaitable: Awaitable[T], signal: AbortSignal | None) -> T:
    """Await ``awaitable``; if ``signal`` fires first, cancel it and raise ``RequestAborted``."""
    if signal is None:
        return await awaitable
    if signal.aborted:
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        raise RequestAborted()
    task = asyncio.ensure_future(awaitable)
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        if not aborted.done():
            aborted.cancel()
    if task.done():
        return task.result()
    task.cancel()
    try:
        await task
    except BaseException:  # the cancelled read's own error is irrelevant now
        pass
    raise RequestAborted()


async def sleep_or_abort(seconds: float, signal: AbortSignal | None) -> None:
    await race_abort(asyncio.sleep(seconds), signal)


# ---------------------------------------------------------------------------------------------
# Retry policy
# ---------------------------------------------------------------------------------------------


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """The server's requested delay from ``retry-after-ms`` or ``retry-after`` (seconds or date)."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_seconds(attempt: int) -> float:
    return min(0.5 * 2**attempt, MAX_BACKOFF_S)


# ---------------------------------------------------------------------------------------------
# Sending
# ---------------------------------------------------------------------------------------------


@dataclass
class StreamHandle:
    """A 2xx response whose body is still unread, plus the client to close if we own it."""

    response: httpx.Response
    owned_client: httpx.AsyncClient | None = None

    async def aclose(self) -> None:
        try:
            await self.response.aclose()
        except Exception:
            pass
        if self.owned_client is not None:
            try:
                await self.owned_client.aclose()
            except Exception:
                pass


ResponseHook = Callable[[int, Any], Any]


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def open_stream(
    *,
    url: str,
    headers: dict[str, str],
    body: bytes,
    options: StreamOptions | None,
    signal: AbortSignal | None,
    diagnostics: list[dict[str, Any]],
    params: dict[str, str] | None = None,
) -> StreamHandle:
    """POST ``body`` and return the first 2xx response (body unread). See the module docstring."""
    max_retries = _option(options, "max_retries", DEFAULT_MAX_RETRIES)
    max_delay_ms = _option(options, "max_retry_delay_ms", DEFAULT_MAX_RETRY_DELAY_MS)
    timeout_ms = _option(options, "timeout_ms", DEFAULT_TIMEOUT_MS)
    on_response: ResponseHook | None = getattr(options, "on_response", None)
    timeout_s = timeout_ms / 1000 if timeout_ms and timeout_ms > 0 else None
    timeout = httpx.Timeout(timeout_s, connect=CONNECT_TIMEOUT_S)
    secrets = credential_values(headers, params)

    client = getattr(options, "http_client", None)
    owned: httpx.AsyncClient | None = None
    if client is None:
        owned = client = new_http_client()
    try:
        attempt = 0
        while True:
            request = client.build_request(
                "POST", url, headers=headers, content=body, params=params, timeout=timeout
            )
            try:
                # the whole wait for the status line and headers is bounded, not only each read
                sending = client.send(request, stream=True)
                response = await race_abort(
                    asyncio.wait_for(sending, timeout_s) if timeout_s else sending, signal
                )
            except RequestAborted:
                raise
            except (httpx.TimeoutException, TimeoutError) as exc:
                text = timeout_text(timeout_ms) if not isinstance(exc, httpx.ConnectTimeout) else None
                failure = redact_credentials(text or connection_error_text(exc), secrets)
                if attempt < max_retries:
                    await _wait_retry(diagnostics, attempt, None, backoff_seconds(attempt), failure, signal)
                    attempt += 1
                    continue
                raise TransportError(failure) from exc
            except (httpx.TransportError, OSError) as exc:
                failure = redact_credentials(connection_error_text(exc), secrets)
                if attempt < max_retries:
                    await _wait_retry(diagnostics, attempt, None, backoff_seconds(attempt), failure, signal)
                    attempt += 1
                    continue
                raise TransportError(failure) from exc

            try:
                if on_response is not None:
                    await _maybe_await(on_response(response.status_code, dict(response.headers)))
            except Exception:
                await response.aclose()
                raise
            if 200 <= response.status_code < 300:
                return StreamHandle(response, owned)

            status = response.status_code
            try:
                raw = await race_abort(response.aread(), signal)
                body_text = raw.decode("utf-8", errors="replace")
            except RequestAborted:
                await response.aclose()
                raise
            except Exception:
                body_text = ""
            finally:
                await response.aclose()
            failure = redact_credentials(format_http_error(status, body_text), secrets)
            if status not in RETRYABLE_STATUSES:
                raise TransportError(failure)
            hinted = retry_after_seconds(response.headers)
            if hinted is not None and max_delay_ms and hinted * 1000 > max_delay_ms:
                raise TransportError(
                    f"Server requested {format_seconds(hinted)}s retry delay "
                    f"(max: {format_seconds(max_delay_ms / 1000)}s). {failure}"
                )
            if attempt >= max_retries:  # the caller retries (if at all): it gets the server's wish
                if hinted is not None:
                    diagnostics.append(
                        {"type": "retryAfter", "status": status, "delayMs": round(hinted * 1000)}
                    )
                raise TransportError(failure)
            delay = hinted if hinted is not None else backoff_seconds(attempt)
            await _wait_retry(diagnostics, attempt, status, delay, failure, signal)
            attempt += 1
    except BaseException:
        if owned is not None:
            await owned.aclose()
        raise


async def _wait_retry(
    diagnostics: list[dict[str, Any]],
    attempt: int,
    status: int | None,
    delay_s: float,
    failure: str,
    signal: AbortSignal | None,
) -> None:
    entry: dict[str, Any] = {"type": "retry", "attempt": attempt + 1}
    if status is not None:
        entry["status"] = status
    entry["delayMs"] = int(delay_s * 1000)
    entry["message"] = failure.splitlines()[0][:200]
    diagnostics.append(entry)
    await sleep_or_abort(delay_s, signal)


def _option(options: StreamOptions | None, name: str, default: int) -> int:
    value = getattr(options, name, None)
    return default if value is None else int(value)
