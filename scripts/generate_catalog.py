"""Dev-time generator of the built-in model catalogue (``pi_app/ai/catalog/*.json``; R-AI-05).

The runtime never fetches a catalogue: it reads the JSON files this script writes. The source is
pi 1.6.0's published model data (``@earendil-works/pi-ai`` ``dist/providers/data/<provider>.json``):
every ``chat`` model with its id, name, wire API, base URL, context window, output limit, prices
(tiers included), image input, reasoning, thinking level map, compat flags and headers. Image and
classifier models are left out (pi lists only chat models). The package's name and version are
recorded in ``manifest.json`` as ``source``.

``PROVIDERS`` below is the provider half of the catalogue: display name, the environment variables
holding the key (lookup order), and the other variables a provider needs before it is usable (e.g.
Cloudflare's account id, which its base URLs name as ``{CLOUDFLARE_ACCOUNT_ID}``). A provider that
speaks an existing wire API needs nothing else: adding the next one is one entry here (R-AI-43).

Decisions: 1.6.0's ``mistral-conversations`` API is served through Mistral's OpenAI-compatible
``/v1/chat/completions`` (``openai-completions``), so Mistral stays data. 1.6.0's ``azure`` provider
replaces ``azure-openai-responses``.

The script also writes ``tests/ai/data/pi16_list_models.json``: straight from 1.6.0's data (not
from our catalogue), the rows 1.6.0's ``pi --list-models`` prints for each provider, which a test
compares with our ``--list-models``.

Run: ``python scripts/generate_catalog.py [path/to/pi-ai]`` (rewrites the files; commit the result).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.modes.list_models import format_tokens, locale_sort_key  # noqa: E402

OUT = ROOT / "pi_app" / "ai" / "catalog"
TABLE = ROOT / "tests" / "ai" / "data" / "pi16_list_models.json"
DEFAULT_SOURCE = Path("/work/ref/pi16/node_modules/@earendil-works/pi-ai")

# id -> (display name, key env vars in lookup order, other env vars it needs)
PROVIDERS: dict[str, tuple[str, list[str], list[str]]] = {
    "anthropic": ("Anthropic", ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"], []),
    "openai": ("OpenAI", ["OPENAI_API_KEY"], []),
    "google": ("Google", ["GEMINI_API_KEY"], []),
    "google-vertex": ("Google Vertex AI", ["GOOGLE_CLOUD_API_KEY"], []),
    "amazon-bedrock": ("Amazon Bedrock", ["AWS_BEARER_TOKEN_BEDROCK"], []),
    "azure": ("Azure", ["AZURE_OPENAI_API_KEY"], []),
    "openai-codex": ("OpenAI Codex", [], []),
    "github-copilot": ("GitHub Copilot", ["COPILOT_GITHUB_TOKEN"], []),
    "ant-ling": ("Ant Ling", ["ANT_LING_API_KEY"], []),
    "baseten": ("Baseten", ["BASETEN_API_KEY"], []),
    "cerebras": ("Cerebras", ["CEREBRAS_API_KEY"], []),
    "cloudflare-ai-gateway": (
        "Cloudflare AI Gateway",
        ["CLOUDFLARE_API_KEY"],
        ["CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"],
    ),
    "cloudflare-workers-ai": ("Cloudflare Workers AI", ["CLOUDFLARE_API_KEY"], ["CLOUDFLARE_ACCOUNT_ID"]),
    "deepseek": ("DeepSeek", ["DEEPSEEK_API_KEY"], []),
    "fireworks": ("Fireworks", ["FIREWORKS_API_KEY"], []),
    "groq": ("Groq", ["GROQ_API_KEY"], []),
    "huggingface": ("Hugging Face", ["HF_TOKEN"], []),
    "kimi-coding": ("Kimi For Coding", ["KIMI_API_KEY"], []),
    "meta": ("Meta", ["META_API_KEY"], []),
    "minimax": ("MiniMax", ["MINIMAX_API_KEY"], []),
    "minimax-cn": ("MiniMax CN", ["MINIMAX_CN_API_KEY"], []),
    "mistral": ("Mistral", ["MISTRAL_API_KEY"], []),
    "moonshotai": ("Moonshot AI", ["MOONSHOT_API_KEY"], []),
    "moonshotai-cn": ("Moonshot AI CN", ["MOONSHOT_API_KEY"], []),
    "nvidia": ("NVIDIA", ["NVIDIA_API_KEY"], []),
    "opencode": ("OpenCode Zen", ["OPENCODE_API_KEY"], []),
    "opencode-go": ("OpenCode Go", ["OPENCODE_API_KEY"], []),
    "openrouter": ("OpenRouter", ["OPENROUTER_API_KEY"], []),
    "qwen-token-plan": (
        "Qwen Token Plan Team",
        ["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
        [],
    ),
    "qwen-token-plan-cn": (
        "Qwen Token Plan Team CN",
        ["QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"],
        [],
    ),
    "qwen-token-plan-individual": (
        "Qwen Token Plan Individual",
        ["QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
        [],
    ),
    "qwen-token-plan-individual-cn": (
        "Qwen Token Plan Individual CN",
        ["QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"],
        [],
    ),
    "radius": ("Radius", ["RADIUS_API_KEY"], []),
    "together": ("Together", ["TOGETHER_API_KEY"], []),
    "vercel-ai-gateway": ("Vercel AI Gateway", ["AI_GATEWAY_API_KEY"], []),
    "xai": ("xAI", ["XAI_API_KEY"], []),
    "xiaomi": ("Xiaomi", ["XIAOMI_API_KEY"], []),
    "xiaomi-token-plan-ams": ("Xiaomi Token Plan AMS", ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"], []),
    "xiaomi-token-plan-cn": ("Xiaomi Token Plan CN", ["XIAOMI_TOKEN_PLAN_CN_API_KEY"], []),
    "xiaomi-token-plan-sgp": ("Xiaomi Token Plan SGP", ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"], []),
    "zai": ("Z.AI", ["ZAI_API_KEY"], []),
    "zai-coding-cn": ("Z.AI Coding CN", ["ZAI_CODING_CN_API_KEY"], []),
}

KEPT = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
    "thinkingLevelMap",
    "compat",
    "headers",
)


def chat_models(source: Path, provider: str) -> list[dict]:
    groups = json.loads((source / "dist" / "providers" / "data" / f"{provider}.json").read_text("utf-8"))
    return [m for group in groups.values() for m in group.values() if m.get("type") == "chat"]


def catalogue_entry(raw: dict) -> dict:
    entry = {key: raw[key] for key in KEPT if key in raw}
    if entry["api"] == "mistral-conversations":
        entry["api"] = "openai-completions"
        entry["baseUrl"] = entry["baseUrl"].rstrip("/") + "/v1"
    return entry


def list_row(raw: dict) -> list[str]:
    """The row pi 1.6.0's ``--list-models`` prints for a model (from 1.6.0's data)."""
    return [
        raw["id"],
        format_tokens(raw["contextWindow"]),
        format_tokens(raw["maxTokens"]),
        "yes" if raw["reasoning"] else "no",
        "yes" if "image" in raw["input"] else "no",
    ]


def write_models(path: Path, provider: str, models: list[dict]) -> None:
    lines = ",\n".join(json.dumps(m, ensure_ascii=False, separators=(",", ":")) for m in models)
    path.write_text(f'{{"provider":{json.dumps(provider)},"models":[\n{lines}\n]}}\n', "utf-8")


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE
    package = json.loads((source / "package.json").read_text("utf-8"))
    for old in OUT.glob("*.json"):
        old.unlink()
    manifest: dict = {"source": f"{package['name']} {package['version']}", "providers": {}}
    table: dict = {"source": manifest["source"], "providers": {}}
    for provider, (name, env, required_env) in PROVIDERS.items():
        raw = chat_models(source, provider)
        models = [catalogue_entry(m) for m in raw]
        file = f"{provider}.json"
        write_models(OUT / file, provider, models)
        entry: dict = {"file": file, "models": len(models), "name": name, "env": env}
        if required_env:
            entry["requiredEnv"] = required_env
        manifest["providers"][provider] = entry
        table["providers"][provider] = sorted((list_row(m) for m in raw), key=lambda r: locale_sort_key(r[0]))
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(json.dumps(table, indent=0) + "\n")


if __name__ == "__main__":
    main()
