"""Google Vertex AI (issue 23, acceptance 1): Application Default Credentials through google-auth
(a service-account ADC file whose token endpoint is local: the JWT grant is verified with the
account's public key), the Vertex endpoint layout (project, location, global), the express API-key
route, and one-line errors (no location, no google-auth)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from pi_app.ai import testing as T
from pi_app.ai.api.google_vertex import INSTALL_HINT, google_vertex_api, reset_adc_cache
from pi_app.ai.types import Model, StreamOptions
from tests.ai.helpers import simple_context
from tests.fakes.llm_server import FakeLLMServer

pytest.importorskip("google.auth")


class TokenServer:
    """Google's OAuth token endpoint for a refresh-token grant: one fresh access token per call."""

    def __init__(self) -> None:
        self.grants: list[dict[str, list[str]]] = []
        self.public_key: object = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                outer.grants.append(parse_qs(self.rfile.read(length).decode()))
                body = json.dumps(
                    {
                        "access_token": f"ya29.fake-{len(outer.grants)}",
                        "expires_in": 3600,
                        "token_type": "Bearer",
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/token"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def adc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TokenServer]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    server = TokenServer()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    server.public_key = key.public_key()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    path = tmp_path / "service-account.json"
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "sa-project",
                "private_key_id": "kid1",
                "private_key": pem,
                "client_email": "pi@sa-project.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": server.url,
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    for var in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    reset_adc_cache()
    yield server
    reset_adc_cache()
    server.close()


def vertex_model(base_url: str) -> Model:
    return Model(
        id="gemini-test", api="google-vertex", provider="google-vertex", base_url=base_url, reasoning=True
    )


async def test_adc_token_reaches_the_project_and_location_endpoint(
    adc: TokenServer, llm_server: FakeLLMServer
) -> None:
    llm_server.enqueue(T.text("Hello from Vertex"), T.usage(input=7, output=2))
    llm_server.enqueue(T.text("Again"))
    env = {"GOOGLE_CLOUD_PROJECT": "my-proj", "GOOGLE_CLOUD_LOCATION": "europe-west4"}
    model = vertex_model(llm_server.base_url)
    for expected in ("Hello from Vertex", "Again"):
        message = await google_vertex_api().stream(model, simple_context(), StreamOptions(env=env)).result()
        assert message.stop_reason == "stop", message.error_message
        assert message.content[0].text == expected
    first, second = llm_server.requests[-2:]
    assert first.path == (
        "/v1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-test:streamGenerateContent"
    )
    assert first.query == {"alt": "sse"}
    assert first.headers["authorization"] == second.headers["authorization"] == "Bearer ya29.fake-1"
    assert "x-goog-api-key" not in first.headers
    assert len(adc.grants) == 1  # one token, reused while valid
    grant = adc.grants[0]
    assert grant["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    from google.auth import jwt

    claims = jwt.decode(
        grant["assertion"][0],
        certs={"kid1": _pem(adc.public_key)},
        verify=True,
        audience="https://oauth2.googleapis.com/token",
    )
    assert claims["iss"] == "pi@sa-project.iam.gserviceaccount.com"
    assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform"


def _pem(public_key: object) -> str:
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


async def test_project_defaults_to_the_credentials_own(adc: TokenServer, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(T.text("ok"))
    options = StreamOptions(env={"GOOGLE_CLOUD_LOCATION": "global"})
    message = (
        await google_vertex_api()
        .stream(vertex_model(llm_server.base_url), simple_context(), options)
        .result()
    )
    assert message.stop_reason == "stop", message.error_message
    assert llm_server.requests[-1].path.startswith("/v1/projects/sa-project/locations/global/")


async def test_missing_location_is_one_line(adc: TokenServer, llm_server: FakeLLMServer) -> None:
    model = vertex_model(llm_server.base_url)
    options = StreamOptions(env={"GOOGLE_CLOUD_PROJECT": "p"})
    no_location = await google_vertex_api().stream(model, simple_context(), options).result()
    assert no_location.error_message == "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION."
    assert llm_server.requests == []


async def test_catalogue_urls_and_the_express_key() -> None:
    from pi_app.ai.api.google_vertex import _host
    from pi_app.ai.catalog.loader import load_catalog

    model = load_catalog("google-vertex")[0]
    assert model.base_url == "https://{location}-aiplatform.googleapis.com"
    assert _host(model, "us-central1") == "https://us-central1-aiplatform.googleapis.com/v1"
    assert _host(model, "global") == "https://aiplatform.googleapis.com/v1"
    assert (
        _host(vertex_model("https://proxy.example/vertex/v1beta1"), "x")
        == "https://proxy.example/vertex/v1beta1"
    )


async def test_express_api_key_and_missing_google_auth(
    llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.enqueue(T.text("ok"))
    model = vertex_model(llm_server.base_url)
    message = (
        await google_vertex_api().stream(model, simple_context(), StreamOptions(api_key="AIzaKey")).result()
    )
    assert message.stop_reason == "stop"
    request = llm_server.requests[-1]
    assert request.path == "/v1/publishers/google/models/gemini-test:streamGenerateContent"
    assert request.headers["x-goog-api-key"] == "AIzaKey" and "authorization" not in request.headers
    reset_adc_cache()
    monkeypatch.setitem(sys.modules, "google.auth", None)
    env = {"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"}
    failed = await google_vertex_api().stream(model, simple_context(), StreamOptions(env=env)).result()
    assert (failed.stop_reason, failed.error_message) == ("error", INSTALL_HINT)
