"""``pi auth check|print-api-key|print-bearer-token|logout|login`` as pi 1.6.0 has them (issue 23)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ai.test_catalog import ALL_VARS
from tests.e2e.helpers import run_pi

CLEAN = {var: "" for var in ALL_VARS}


def auth(*args: str, agent_dir: Path, **env: str):  # type: ignore[no-untyped-def]
    return run_pi(
        "auth", *args, cwd=agent_dir.parent, env={**CLEAN, "PI_CODING_AGENT_DIR": str(agent_dir), **env}
    )


def test_check_and_print_from_the_environment(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    missing = auth("check", "--provider", "groq", agent_dir=agent_dir)
    assert (missing.returncode, missing.stdout) == (1, "not_ready\n")
    as_json = auth("check", "--provider", "groq", "--json", agent_dir=agent_dir)
    assert json.loads(as_json.stdout) == {
        "status": "not_ready",
        "provider": "groq",
        "reason": "credentials_not_configured",
    }
    ready = auth(
        "check", "--model", "groq/openai/gpt-oss-120b", "--json", agent_dir=agent_dir, GROQ_API_KEY="abc"
    )
    assert ready.returncode == 0
    assert json.loads(ready.stdout) == {"status": "ready", "provider": "groq", "authType": "api_key"}
    key = auth("print-api-key", "--provider", "groq", agent_dir=agent_dir, GROQ_API_KEY="abc")
    assert (key.returncode, key.stdout) == (0, "abc\n")
    none = auth("print-api-key", "--provider", "groq", agent_dir=agent_dir)
    assert (none.returncode, none.stderr) == (1, "Error: No usable API key is configured\n")
    bearer = auth("print-bearer-token", "--provider", "groq", agent_dir=agent_dir, GROQ_API_KEY="abc")
    assert bearer.returncode == 1 and "no OAuth token" in bearer.stderr
    usage = auth("check", agent_dir=agent_dir)
    assert usage.returncode == 2
    assert usage.stderr == "Error: Auth checks require --provider <provider> or --model <model>\n"
    unknown = auth("check", "--provider", "nosuch", "--json", agent_dir=agent_dir)
    assert json.loads(unknown.stdout)["reason"] == "provider_not_found" and unknown.returncode == 1


def test_stored_key_credentials_and_logout(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "auth.json").write_text(json.dumps({"together": {"type": "api_key", "key": "tg-1"}}))
    shown = auth("check", "--provider", "together", "--credentials", agent_dir=agent_dir)
    assert (shown.returncode, shown.stdout) == (0, "tg-1\n")
    out = auth("logout", "together", agent_dir=agent_dir)
    assert out.stdout == (
        "Removed stored API key for Together. Environment variables and models.json config are unchanged.\n"
    )
    assert json.loads((agent_dir / "auth.json").read_text()) == {}
    again = auth("logout", "together", agent_dir=agent_dir)
    assert again.returncode == 0 and again.stdout.startswith("No stored credentials for Together.")
    unknown = auth("logout", "nosuch", agent_dir=agent_dir)
    assert unknown.returncode == 1 and unknown.stderr.startswith('Unknown provider "nosuch".')


def test_login_needs_a_terminal_and_a_known_provider(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    unknown = auth("login", "nosuch", agent_dir=agent_dir)
    assert unknown.returncode == 1 and unknown.stderr.startswith('Unknown provider "nosuch".\nProviders: ')
    assert "amazon-bedrock" in unknown.stderr and "together" in unknown.stderr
    piped = auth("login", "groq", agent_dir=agent_dir)
    assert piped.returncode == 1 and "requires an interactive terminal" in piped.stderr
    helped = run_pi("auth", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "pi auth print-api-key" in helped.stdout


def test_auth_json_env_reaches_a_print_mode_request(llm_server, project, agent_dir) -> None:  # type: ignore[no-untyped-def]
    """auth.json's per-provider ``env`` fills Cloudflare's account id into the base URL of a real run."""
    from pi_app.ai.testing import text

    agent_dir.mkdir(parents=True, exist_ok=True)
    base = llm_server.base_url + "/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"
    (agent_dir / "models.json").write_text(
        json.dumps({"providers": {"cloudflare-workers-ai": {"baseUrl": base}}})
    )
    credential = {"type": "api_key", "key": "cf-token-123", "env": {"CLOUDFLARE_ACCOUNT_ID": "acct-9"}}
    (agent_dir / "auth.json").write_text(json.dumps({"cloudflare-workers-ai": credential}))
    llm_server.enqueue(text("from workers ai"))
    model = "cloudflare-workers-ai/@cf/moonshotai/kimi-k2.7-code"
    result = run_pi("--no-session", "-p", "--model", model, "hi", cwd=project, env=CLEAN)
    assert (result.returncode, result.stdout) == (0, "from workers ai\n"), result.stderr
    request = llm_server.requests[-1]
    assert request.path == "/client/v4/accounts/acct-9/ai/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer cf-token-123"
