"""Bedrock and Vertex from the command line (issue 23, acceptances 2 and 4).

``import pi_app.ai`` and ``pi --version`` never import ``botocore`` or ``google-auth``; a
``pi -p --model amazon-bedrock/<id>`` run (its base URL pointed at the fake server by models.json,
AWS keys in the environment) imports botocore and reaches ``/model/<id>/converse-stream`` with a
SigV4 ``Authorization`` for the configured region.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_app.ai.testing import text
from tests.e2e.helpers import PI, run_pi

CLOUD = ("botocore", "google.auth", "google.oauth2")


def imported_by(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}


def cloud(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in CLOUD))


def test_import_and_version_do_not_load_cloud_sdks() -> None:
    assert "pi_app.ai" in imported_by("-c", "import pi_app.ai")
    assert cloud(imported_by("-c", "import pi_app.ai")) == []
    assert cloud(imported_by("-m", "pi_app", "--version")) == []
    everything = "import pi_app.ai.providers.all as a; m = a.builtin_models(); m.get_models('amazon-bedrock')"
    assert cloud(imported_by("-c", everything)) == []  # listing Bedrock models needs no botocore


def test_print_mode_reaches_bedrock_signed(llm_server, project, agent_dir) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("botocore")
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(
        json.dumps({"providers": {"amazon-bedrock": {"baseUrl": llm_server.base_url}}}), encoding="utf-8"
    )
    llm_server.enqueue(text("Hello from Bedrock."))
    env = {"AWS_ACCESS_KEY_ID": "AKIDCLI", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-west-2"}
    result = run_pi(
        "--no-session",
        "-p",
        "--model",
        "amazon-bedrock/us.anthropic.claude-opus-5-5",
        "hi",
        cwd=project,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from Bedrock.\n"
    request = llm_server.requests[-1]
    assert request.path == "/model/us.anthropic.claude-opus-5-5/converse-stream"
    assert request.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDCLI/")
    assert "/us-west-2/bedrock/aws4_request" in request.headers["authorization"]
    assert request.body["messages"][0]["content"][0]["text"] == "hi"
    assert Path(PI).exists()


def test_print_mode_reaches_vertex_with_the_api_key(llm_server, project, agent_dir) -> None:  # type: ignore[no-untyped-def]
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(
        json.dumps({"providers": {"google-vertex": {"baseUrl": llm_server.base_url}}}), encoding="utf-8"
    )
    llm_server.enqueue(text("Hello from Vertex."))
    env = {"GOOGLE_CLOUD_API_KEY": "AIzaCli"}
    result = run_pi(
        "--no-session", "-p", "--model", "google-vertex/gemini-4-argon", "hi", cwd=project, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from Vertex.\n"
    request = llm_server.requests[-1]
    assert request.path == "/v1/publishers/google/models/gemini-4-argon:streamGenerateContent"
    assert request.headers["x-goog-api-key"] == "AIzaCli"
