"""``pi -p --model <provider>/<id>`` for every key provider (issue 23, acceptance 2): with only that
provider's 1.6.0 key variables set and its base URL pointed at the fake server by models.json, the
run is answered and the request carries the key in the header that provider's API uses.

(The exact catalogue URL of every provider x API is checked in-process by
``tests/ai/test_provider_routing.py``; this is the same through the CLI, the model registry and
its auth layering.)
"""

from __future__ import annotations

import json

import pytest

from pi_app.ai.catalog.loader import catalog_provider_ids, load_catalog
from pi_app.ai.testing import text
from tests.ai.test_catalog import ALL_VARS, PI16_ENV
from tests.e2e.helpers import run_pi

HEADER = {
    "anthropic-messages": ("x-api-key", "{key}"),
    "openai-completions": ("authorization", "Bearer {key}"),
    "openai-responses": ("authorization", "Bearer {key}"),
    "azure-openai-responses": ("api-key", "{key}"),
    "google-generative-ai": ("x-goog-api-key", "{key}"),
    "pi-messages": ("authorization", "Bearer {key}"),
}
SEPARATE = {"amazon-bedrock", "google-vertex", "github-copilot", "openai-codex"}  # own tests


@pytest.mark.parametrize("provider", [p for p in catalog_provider_ids() if p not in SEPARATE])
def test_print_mode_reaches_the_provider_with_its_key(provider, llm_server, project, agent_dir) -> None:  # type: ignore[no-untyped-def]
    model = load_catalog(provider)[0]
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(
        json.dumps({"providers": {provider: {"baseUrl": llm_server.base_url}}})
    )
    llm_server.enqueue(text(f"hello from {provider}"))
    env = {var: "" for var in ALL_VARS}
    env.update(
        {
            k: f"{v}-{provider}" if k.endswith(("_API_KEY", "_TOKEN")) else v
            for k, v in PI16_ENV[provider].items()
        }
    )
    key = next(v for k, v in env.items() if k.endswith(("_API_KEY", "_TOKEN")) and v)
    result = run_pi("--no-session", "-p", "--model", f"{provider}/{model.id}", "hi", cwd=project, env=env)
    assert (result.returncode, result.stdout) == (0, f"hello from {provider}\n"), result.stderr
    header, value = HEADER[model.api]
    assert llm_server.requests[-1].headers[header] == value.format(key=key)
