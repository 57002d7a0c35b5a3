"""A loopback OAuth authorization server for the sign-ins: device codes (xAI, Kimi Code, OpenAI
Codex) and OpenRouter's code-for-key exchange.

It answers as the real ones do: a device code, then "not yet" for the first ``pending_polls``
polls (xAI: ``400 authorization_pending``; Codex: ``403``), then tokens. Codex's answer is an
authorization code + PKCE verifier, exchanged at ``/oauth/token`` for an access token whose JWT
carries a ChatGPT account id. Refresh grants get a new access token. Every request is recorded
(path and parsed form or JSON body).
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

XAI_USER_CODE = "XAIX-2026"
CODEX_USER_CODE = "CDX-4242"
KIMI_USER_CODE = "KIMI-7777"


def fake_jwt(claims: dict[str, Any]) -> str:
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"eyJhbGciOiJub25lIn0.{payload}.sig"


class FakeOAuthServer:
    def __init__(self, pending_polls: int = 1) -> None:
        self.pending_polls = pending_polls
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.polls = 0
        self.tokens_issued = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode()
                if "json" in (self.headers.get("content-type") or ""):
                    body: dict[str, Any] = json.loads(raw or "{}")
                else:
                    body = {k: v[-1] for k, v in parse_qs(raw).items()}
                outer.requests.append((self.path, body))
                status, answer = outer.answer(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def _tokens(self, access: str) -> dict[str, Any]:
        self.tokens_issued += 1
        return {"access_token": access, "refresh_token": f"refresh-{self.tokens_issued}", "expires_in": 3600}

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path == "/oauth2/device/code":
            return 200, {
                "device_code": "xai-device-1",
                "user_code": XAI_USER_CODE,
                "verification_uri": "https://accounts.x.ai/device",
                "verification_uri_complete": f"https://accounts.x.ai/device?user_code={XAI_USER_CODE}",
                "interval": 0,
                "expires_in": 600,
            }
        if path == "/oauth2/token":
            if body.get("grant_type") == "refresh_token":
                return 200, self._tokens(f"xai-access-refreshed-{self.tokens_issued + 1}")
            self.polls += 1
            if self.polls <= self.pending_polls:
                return 400, {"error": "authorization_pending"}
            return 200, self._tokens("xai-access-1")
        if path == "/v1/oauth/device":  # Radius
            return 200, {
                "device_code": "radius-device-1",
                "user_code": "RAD-1",
                "verification_uri": "https://radius.pi.dev/device",
                "interval": 0,
                "expires_in": 600,
            }
        if path == "/v1/oauth/token":
            self.polls += 1
            if self.polls <= self.pending_polls:
                return 400, {"error": "authorization_pending"}
            return 200, self._tokens("radius-access-1")
        if path == "/oidc/device/authorization/":  # Meta
            return 200, {
                "device_code": "meta-device-1",
                "user_code": "META-1",
                "verification_uri": "https://auth.meta.com/device",
                "interval": 0,
                "expires_in": 600,
            }
        if path == "/oidc/device/token/":
            self.polls += 1
            if self.polls <= self.pending_polls:
                return 400, {"error": "authorization_pending"}
            return 200, {"access_token": "meta-identity", "token_type": "Bearer"}
        if path == "/muse-code/key":
            return 200, {"api_key": f"meta-key-{len(self.requests)}"}
        if path == "/api/oauth/device_authorization":  # Kimi Code
            return 200, {
                "device_code": "kimi-device-1",
                "user_code": KIMI_USER_CODE,
                "verification_uri": f"{self.base_url}/device",
                "verification_uri_complete": f"{self.base_url}/device?user_code={KIMI_USER_CODE}",
                "interval": 0,
                "expires_in": 600,
            }
        if path == "/api/oauth/token":
            if body.get("grant_type") == "refresh_token":
                return 200, self._tokens("kimi-access-refreshed")
            self.polls += 1
            if self.polls <= self.pending_polls:
                return 400, {"error": "authorization_pending"}
            return 200, self._tokens("kimi-access-1")
        if path == "/api/v1/auth/keys":  # OpenRouter: the code for a permanent key
            if body.get("code") != "or-code" or body.get("code_challenge_method") != "S256":
                return 400, {"error": {"message": "bad code"}}
            return 200, {"key": "sk-or-v1-fake"}
        if path == "/api/accounts/oauth/token":  # Sign in with ChatGPT (openai)
            if (
                body.get("client_id") != "issued-client-1"
                or body.get("resource") != "https://api.openai.com/v1"
            ):
                return 400, {"error": "invalid_client"}
            tokens = self._tokens("chatgpt-access-1")
            return 200, {
                **tokens,
                "id_token": "idt",
                "scope": "openid offline_access chatgpt.tokens.use.direct",
            }
        if path == "/api/accounts/deviceauth/usercode":
            return 200, {"device_auth_id": "codex-device-1", "user_code": CODEX_USER_CODE, "interval": "0"}
        if path == "/api/accounts/deviceauth/token":
            self.polls += 1
            if self.polls <= self.pending_polls:
                return 403, {"error": {"code": "deviceauth_authorization_pending"}}
            return 200, {"authorization_code": "codex-auth-code", "code_verifier": "codex-verifier"}
        if path == "/oauth/token":
            access = fake_jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_fake"}})
            return 200, self._tokens(access)
        return 404, {"error": "not_found"}

    def xai(self, **kwargs: Any) -> Any:
        from pi_app.ai.auth.oauth.xai import XaiOAuth

        return XaiOAuth(
            device_code_url=f"{self.base_url}/oauth2/device/code",
            token_url=f"{self.base_url}/oauth2/token",
            **kwargs,
        )

    def codex(self, **kwargs: Any) -> Any:
        from pi_app.ai.auth.oauth.openai_codex import OpenAICodexOAuth

        return OpenAICodexOAuth(
            auth_base_url=self.base_url, token_url=f"{self.base_url}/oauth/token", **kwargs
        )

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
