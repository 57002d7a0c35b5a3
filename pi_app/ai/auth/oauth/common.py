"""Helpers shared by the OAuth flows: token responses, manual-code parsing, the code race."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

EXPIRY_MARGIN_MS = 5 * 60 * 1000
TOKEN_TIMEOUT_S = 30.0


class OAuthError(Exception):
    pass


def now_ms() -> int:
    return int(time.time() * 1000)


def expires_at(expires_in: Any) -> int:
    """Expire five minutes early so a request never starts with a token that dies in flight."""
    return now_ms() + int(float(expires_in or 0) * 1000) - EXPIRY_MARGIN_MS


def parse_manual_input(text: str, expected_state: str | None) -> str:
    """The code from a pasted redirect URL, ``code#state``, a query string, or a bare code (R-AI-60)."""
    value = (text or "").strip()
    code: str | None = None
    state: str | None = None
    if "://" in value:
        query = {k: v[-1] for k, v in parse_qs(urlsplit(value).query).items()}
        code, state = query.get("code"), query.get("state")
    elif "code=" in value:
        query = {k: v[-1] for k, v in parse_qs(value.lstrip("?")).items()}
        code, state = query.get("code"), query.get("state")
    elif "#" in value:
        code, _, state = value.partition("#")
    else:
        code = value or None
    if state and expected_state is not None and state != expected_state:
        raise OAuthError("OAuth state mismatch")
    if not code:
        raise OAuthError("Missing authorization code")
    return code


async def post_token(
    client: httpx.AsyncClient,
    url: str,
    *,
    json_body: dict[str, Any] | None = None,
    form: dict[str, str] | None = None,
) -> dict[str, Any]:
    response = await client.post(
        url, json=json_body, data=form, headers={"accept": "application/json"}, timeout=TOKEN_TIMEOUT_S
    )
    if response.status_code >= 300:
        raise OAuthError(f"{response.status_code} {response.text[:500]}".strip())
    try:
        data = response.json()
    except ValueError:
        raise OAuthError(f"Invalid token response: {response.text[:200]}") from None
    if not isinstance(data, dict) or not data.get("access_token"):
        raise OAuthError(f"Invalid token response: {response.text[:200]}")
    return data


async def first_code(waiters: list[Callable[[], Awaitable[str]]]) -> str:
    """Run the code sources concurrently; the first to produce a code wins, the others are cancelled.

    A source that fails does not end the race while another is still running (e.g. the loopback
    server stays up while a pasted value was rejected); the last failure is raised if all fail.
    """
    tasks = [asyncio.ensure_future(w()) for w in waiters]
    error: BaseException | None = None
    try:
        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task.exception() is None:
                    return task.result()
                error = task.exception()
                if isinstance(error, OAuthError):
                    raise error
        assert error is not None
        raise error
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()


def jwt_claims(token: str) -> dict[str, Any]:
    try:
        payload = token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {}
