"""Dev-time generator of the built-in model catalogue (``pi_app/ai/catalog/*.json``; R-AI-05).

The runtime never fetches a catalogue: it reads the JSON files this script writes. The table below
is maintained by hand from the providers' published model pages (ids, context windows, output
limits, prices in US dollars per million tokens, image input, reasoning). Only models that
support tool calling are listed (R-AI-06). R-AI-79's id heuristic fills ``thinkingLevelMap.xhigh``.

Run: ``python scripts/generate_catalog.py`` (rewrites the files; commit the result).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_app.ai.thinking import xhigh_heuristic  # noqa: E402

OUT = ROOT / "pi_app" / "ai" / "catalog"

TI = ["text", "image"]
T = ["text"]
COPILOT_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.26.7",
    "Editor-Version": "vscode/1.99.3",
    "Editor-Plugin-Version": "copilot-chat/0.26.7",
    "Copilot-Integration-Id": "vscode-chat",
}

# provider -> (default api, default baseUrl, [models])
# model: (id, name, reasoning, input, (in, out, cacheRead, cacheWrite), contextWindow, maxTokens, extra)
PROVIDERS: dict[str, tuple[str, str, list[tuple]]] = {
    "anthropic": (
        "anthropic-messages",
        "https://api.anthropic.com",
        [
            ("claude-opus-4-6", "Claude Opus 4.6", True, TI, (5, 25, 0.5, 6.25), 200000, 128000, {}),
            ("claude-sonnet-4-6", "Claude Sonnet 4.6", True, TI, (3, 15, 0.3, 3.75), 200000, 64000, {}),
            ("claude-opus-4-5", "Claude Opus 4.5", True, TI, (5, 25, 0.5, 6.25), 200000, 64000, {}),
            ("claude-sonnet-4-5", "Claude Sonnet 4.5", True, TI, (3, 15, 0.3, 3.75), 200000, 64000, {}),
            ("claude-haiku-4-5", "Claude Haiku 4.5", True, TI, (1, 5, 0.1, 1.25), 200000, 64000, {}),
            ("claude-opus-4-1", "Claude Opus 4.1", True, TI, (15, 75, 1.5, 18.75), 200000, 32000, {}),
            ("claude-sonnet-4-0", "Claude Sonnet 4", True, TI, (3, 15, 0.3, 3.75), 200000, 64000, {}),
            ("claude-3-5-haiku-latest", "Claude Haiku 3.5", False, TI, (0.8, 4, 0.08, 1), 200000, 8192, {}),
        ],
    ),
    "openai": (
        "openai-responses",
        "https://api.openai.com/v1",
        [
            ("gpt-5.2", "GPT-5.2", True, TI, (1.75, 14, 0.175, 0), 400000, 128000, {}),
            ("gpt-5.1", "GPT-5.1", True, TI, (1.25, 10, 0.125, 0), 400000, 128000, {}),
            ("gpt-5.1-codex", "GPT-5.1 Codex", True, TI, (1.25, 10, 0.125, 0), 400000, 128000, {}),
            ("gpt-5", "GPT-5", True, TI, (1.25, 10, 0.125, 0), 400000, 128000, {}),
            ("gpt-5-mini", "GPT-5 mini", True, TI, (0.25, 2, 0.025, 0), 400000, 128000, {}),
            ("gpt-5-nano", "GPT-5 nano", True, TI, (0.05, 0.4, 0.005, 0), 400000, 128000, {}),
            ("gpt-4.1", "GPT-4.1", False, TI, (2, 8, 0.5, 0), 1047576, 32768, {}),
            ("gpt-4.1-mini", "GPT-4.1 mini", False, TI, (0.4, 1.6, 0.1, 0), 1047576, 32768, {}),
            ("gpt-4o", "GPT-4o", False, TI, (2.5, 10, 1.25, 0), 128000, 16384, {}),
            ("gpt-4o-mini", "GPT-4o mini", False, TI, (0.15, 0.6, 0.075, 0), 128000, 16384, {}),
            ("o3", "o3", True, TI, (2, 8, 0.5, 0), 200000, 100000, {}),
            ("o4-mini", "o4-mini", True, TI, (1.1, 4.4, 0.275, 0), 200000, 100000, {}),
        ],
    ),
    "google": (
        "google-generative-ai",
        "https://generativelanguage.googleapis.com/v1beta",
        [
            ("gemini-3-pro-preview", "Gemini 3 Pro Preview", True, TI, (2, 12, 0.2, 0), 1048576, 65536, {}),
            (
                "gemini-3-flash-preview",
                "Gemini 3 Flash Preview",
                True,
                TI,
                (0.5, 3, 0.05, 0),
                1048576,
                65536,
                {},
            ),
            ("gemini-2.5-pro", "Gemini 2.5 Pro", True, TI, (1.25, 10, 0.31, 0), 1048576, 65536, {}),
            ("gemini-2.5-flash", "Gemini 2.5 Flash", True, TI, (0.3, 2.5, 0.075, 0), 1048576, 65536, {}),
            (
                "gemini-2.5-flash-lite",
                "Gemini 2.5 Flash-Lite",
                True,
                TI,
                (0.1, 0.4, 0.025, 0),
                1048576,
                65536,
                {},
            ),
        ],
    ),
    "openrouter": (
        "openai-completions",
        "https://openrouter.ai/api/v1",
        [
            (
                "anthropic/claude-sonnet-4.5",
                "Anthropic: Claude Sonnet 4.5",
                True,
                TI,
                (3, 15, 0.3, 3.75),
                1000000,
                64000,
                {},
            ),
            (
                "anthropic/claude-opus-4.5",
                "Anthropic: Claude Opus 4.5",
                True,
                TI,
                (5, 25, 0.5, 6.25),
                200000,
                64000,
                {},
            ),
            ("openai/gpt-5", "OpenAI: GPT-5", True, TI, (1.25, 10, 0.125, 0), 400000, 128000, {}),
            ("openai/gpt-oss-120b", "OpenAI: gpt-oss-120b", True, T, (0.1, 0.5, 0, 0), 131072, 32768, {}),
            (
                "google/gemini-2.5-pro",
                "Google: Gemini 2.5 Pro",
                True,
                TI,
                (1.25, 10, 0.31, 1.625),
                1048576,
                65536,
                {},
            ),
            ("x-ai/grok-4", "xAI: Grok 4", True, TI, (3, 15, 0.75, 0), 256000, 64000, {}),
            (
                "x-ai/grok-code-fast-1",
                "xAI: Grok Code Fast 1",
                True,
                T,
                (0.2, 1.5, 0.02, 0),
                256000,
                10000,
                {},
            ),
            (
                "deepseek/deepseek-chat-v3.1",
                "DeepSeek: DeepSeek V3.1",
                True,
                T,
                (0.27, 1, 0, 0),
                163840,
                32768,
                {},
            ),
            ("qwen/qwen3-coder", "Qwen: Qwen3 Coder", False, T, (0.22, 0.95, 0, 0), 262144, 65536, {}),
            (
                "moonshotai/kimi-k2-0905",
                "MoonshotAI: Kimi K2 0905",
                False,
                T,
                (0.39, 1.9, 0, 0),
                262144,
                65536,
                {},
            ),
            ("z-ai/glm-4.6", "Z.AI: GLM 4.6", True, T, (0.6, 2.2, 0.11, 0), 202752, 65536, {}),
        ],
    ),
    "xai": (
        "openai-completions",
        "https://api.x.ai/v1",
        [
            ("grok-4", "Grok 4", True, TI, (3, 15, 0.75, 0), 256000, 64000, {}),
            ("grok-4-fast", "Grok 4 Fast", True, TI, (0.2, 0.5, 0.05, 0), 2000000, 30000, {}),
            ("grok-code-fast-1", "Grok Code Fast 1", True, T, (0.2, 1.5, 0.02, 0), 256000, 10000, {}),
            ("grok-3", "Grok 3", False, T, (3, 15, 0.75, 0), 131072, 8192, {}),
        ],
    ),
    "groq": (
        "openai-completions",
        "https://api.groq.com/openai/v1",
        [
            ("openai/gpt-oss-120b", "GPT OSS 120B", True, T, (0.15, 0.75, 0, 0), 131072, 32768, {}),
            ("openai/gpt-oss-20b", "GPT OSS 20B", True, T, (0.1, 0.5, 0, 0), 131072, 32768, {}),
            (
                "moonshotai/kimi-k2-instruct-0905",
                "Kimi K2 Instruct 0905",
                False,
                T,
                (1, 3, 0, 0),
                262144,
                16384,
                {},
            ),
            ("qwen/qwen3-32b", "Qwen3 32B", True, T, (0.29, 0.59, 0, 0), 131072, 40960, {}),
            (
                "llama-3.3-70b-versatile",
                "Llama 3.3 70B Versatile",
                False,
                T,
                (0.59, 0.79, 0, 0),
                131072,
                32768,
                {},
            ),
        ],
    ),
    "cerebras": (
        "openai-completions",
        "https://api.cerebras.ai/v1",
        [
            ("gpt-oss-120b", "GPT OSS 120B", True, T, (0.25, 0.69, 0, 0), 131072, 32768, {}),
            ("qwen-3-coder-480b", "Qwen 3 Coder 480B", False, T, (2, 2, 0, 0), 131072, 32768, {}),
            ("zai-glm-4.6", "Z.AI GLM 4.6", True, T, (2.25, 2.75, 0, 0), 131072, 40960, {}),
        ],
    ),
    "zai": (
        "openai-completions",
        "https://api.z.ai/api/coding/paas/v4",
        [
            ("glm-4.6", "GLM-4.6", True, T, (0.6, 2.2, 0.11, 0), 204800, 131072, {}),
            ("glm-4.5", "GLM-4.5", True, T, (0.6, 2.2, 0.11, 0), 131072, 98304, {}),
            ("glm-4.5-air", "GLM-4.5-Air", True, T, (0.2, 1.1, 0.03, 0), 131072, 98304, {}),
            ("glm-4.5v", "GLM-4.5V", True, TI, (0.6, 1.8, 0.11, 0), 65536, 16384, {}),
        ],
    ),
    "huggingface": (
        "openai-completions",
        "https://router.huggingface.co/v1",
        [
            (
                "moonshotai/Kimi-K2-Instruct-0905",
                "Kimi K2 Instruct 0905",
                False,
                T,
                (1, 3, 0, 0),
                262144,
                16384,
                {},
            ),
            (
                "Qwen/Qwen3-Coder-480B-A35B-Instruct",
                "Qwen3 Coder 480B",
                False,
                T,
                (2, 2, 0, 0),
                262144,
                65536,
                {},
            ),
            ("deepseek-ai/DeepSeek-V3.1", "DeepSeek V3.1", True, T, (0.6, 1.7, 0, 0), 131072, 32768, {}),
            ("openai/gpt-oss-120b", "GPT OSS 120B", True, T, (0.15, 0.6, 0, 0), 131072, 32768, {}),
        ],
    ),
    "deepseek": (
        "openai-completions",
        "https://api.deepseek.com",
        [
            ("deepseek-chat", "DeepSeek Chat", False, T, (0.28, 0.42, 0.028, 0), 128000, 8192, {}),
            ("deepseek-reasoner", "DeepSeek Reasoner", True, T, (0.28, 0.42, 0.028, 0), 128000, 64000, {}),
        ],
    ),
    "mistral": (
        "openai-completions",
        "https://api.mistral.ai/v1",
        [
            ("devstral-medium-latest", "Devstral Medium", False, T, (0.4, 2, 0, 0), 131072, 32768, {}),
            ("mistral-medium-latest", "Mistral Medium", False, TI, (0.4, 2, 0, 0), 131072, 32768, {}),
            ("codestral-latest", "Codestral", False, T, (0.3, 0.9, 0, 0), 256000, 32768, {}),
            ("magistral-medium-latest", "Magistral Medium", True, T, (2, 5, 0, 0), 40000, 40000, {}),
        ],
    ),
    "minimax": (
        "anthropic-messages",
        "https://api.minimax.io/anthropic",
        [("MiniMax-M2", "MiniMax-M2", True, T, (0.3, 1.2, 0.03, 0.375), 204800, 131072, {})],
    ),
    "minimax-cn": (
        "anthropic-messages",
        "https://api.minimaxi.com/anthropic",
        [("MiniMax-M2", "MiniMax-M2", True, T, (0.3, 1.2, 0.03, 0.375), 204800, 131072, {})],
    ),
    "kimi-coding": (
        "anthropic-messages",
        "https://api.kimi.com/coding",
        [
            ("kimi-for-coding", "Kimi For Coding", True, T, (0, 0, 0, 0), 262144, 32768, {}),
            ("kimi-k2-thinking", "Kimi K2 Thinking", True, T, (0, 0, 0, 0), 262144, 32768, {}),
        ],
    ),
    "vercel-ai-gateway": (
        "anthropic-messages",
        "https://ai-gateway.vercel.sh",
        [
            (
                "anthropic/claude-sonnet-4.5",
                "Claude Sonnet 4.5",
                True,
                TI,
                (3, 15, 0.3, 3.75),
                200000,
                64000,
                {},
            ),
            ("anthropic/claude-opus-4.5", "Claude Opus 4.5", True, TI, (5, 25, 0.5, 6.25), 200000, 64000, {}),
            (
                "anthropic/claude-haiku-4.5",
                "Claude Haiku 4.5",
                True,
                TI,
                (1, 5, 0.1, 1.25),
                200000,
                64000,
                {},
            ),
        ],
    ),
    "opencode": (
        "openai-completions",
        "https://opencode.ai/zen/v1",
        [
            (
                "claude-sonnet-4-5",
                "Claude Sonnet 4.5",
                True,
                TI,
                (3, 15, 0.3, 3.75),
                200000,
                64000,
                {"api": "anthropic-messages", "baseUrl": "https://opencode.ai/zen"},
            ),
            ("gpt-5", "GPT-5", True, TI, (1.25, 10, 0.125, 0), 400000, 128000, {"api": "openai-responses"}),
            (
                "gemini-3-pro",
                "Gemini 3 Pro",
                True,
                TI,
                (2, 12, 0.2, 0),
                1048576,
                65536,
                {"api": "google-generative-ai"},
            ),
            ("qwen3-coder", "Qwen3 Coder 480B", False, T, (0.45, 1.8, 0, 0), 262144, 65536, {}),
            ("kimi-k2", "Kimi K2", False, T, (0.6, 2.5, 0.15, 0), 262144, 65536, {}),
            ("glm-4.6", "GLM-4.6", True, T, (0.6, 2.2, 0.1, 0), 204800, 131072, {}),
        ],
    ),
    "opencode-go": (
        "openai-completions",
        "https://opencode.ai/zen/go/v1",
        [
            ("kimi-k2", "Kimi K2", False, T, (0, 0, 0, 0), 262144, 65536, {}),
            ("glm-4.6", "GLM-4.6", True, T, (0, 0, 0, 0), 204800, 131072, {}),
        ],
    ),
    "github-copilot": (
        "openai-completions",
        "https://api.individual.githubcopilot.com",
        [
            (
                "claude-sonnet-4.5",
                "Claude Sonnet 4.5",
                True,
                TI,
                (0, 0, 0, 0),
                128000,
                16000,
                {"api": "anthropic-messages", "headers": COPILOT_HEADERS},
            ),
            (
                "claude-haiku-4.5",
                "Claude Haiku 4.5",
                True,
                TI,
                (0, 0, 0, 0),
                128000,
                16000,
                {"api": "anthropic-messages", "headers": COPILOT_HEADERS},
            ),
            (
                "gpt-5",
                "GPT-5",
                True,
                TI,
                (0, 0, 0, 0),
                128000,
                128000,
                {"api": "openai-responses", "headers": COPILOT_HEADERS},
            ),
            (
                "gpt-5-mini",
                "GPT-5 mini",
                True,
                TI,
                (0, 0, 0, 0),
                128000,
                64000,
                {"api": "openai-responses", "headers": COPILOT_HEADERS},
            ),
            ("gpt-4.1", "GPT-4.1", False, TI, (0, 0, 0, 0), 128000, 16384, {"headers": COPILOT_HEADERS}),
            (
                "gemini-2.5-pro",
                "Gemini 2.5 Pro",
                True,
                TI,
                (0, 0, 0, 0),
                128000,
                64000,
                {"headers": COPILOT_HEADERS},
            ),
            (
                "grok-code-fast-1",
                "Grok Code Fast 1",
                True,
                T,
                (0, 0, 0, 0),
                128000,
                64000,
                {"headers": COPILOT_HEADERS},
            ),
        ],
    ),
    "azure-openai-responses": (
        "azure-openai-responses",
        "",
        [
            ("gpt-5", "GPT-5 (Azure)", True, TI, (1.25, 10, 0.125, 0), 400000, 128000, {}),
            ("gpt-5-mini", "GPT-5 mini (Azure)", True, TI, (0.25, 2, 0.025, 0), 400000, 128000, {}),
            ("gpt-4.1", "GPT-4.1 (Azure)", False, TI, (2, 8, 0.5, 0), 1047576, 32768, {}),
        ],
    ),
    "openai-codex": (
        "openai-codex-responses",
        "https://chatgpt.com/backend-api",
        [
            ("gpt-5.2", "GPT-5.2 (Codex)", True, TI, (0, 0, 0, 0), 272000, 128000, {}),
            ("gpt-5.1-codex", "GPT-5.1 Codex", True, TI, (0, 0, 0, 0), 272000, 128000, {}),
            ("gpt-5.1-codex-mini", "GPT-5.1 Codex mini", True, TI, (0, 0, 0, 0), 272000, 128000, {}),
            ("gpt-5.1", "GPT-5.1 (Codex)", True, TI, (0, 0, 0, 0), 272000, 128000, {}),
        ],
    ),
}


def model_entry(provider: str, api: str, base_url: str, row: tuple) -> dict:
    mid, name, reasoning, inputs, (c_in, c_out, c_read, c_write), window, max_out, extra = row
    entry = {
        "id": mid,
        "name": name,
        "api": extra.get("api", api),
        "provider": provider,
        "baseUrl": extra.get("baseUrl", base_url),
        "reasoning": reasoning,
        "input": inputs,
        "cost": {"input": c_in, "output": c_out, "cacheRead": c_read, "cacheWrite": c_write},
        "contextWindow": window,
        "maxTokens": max_out,
    }
    if reasoning and xhigh_heuristic(mid):
        entry["thinkingLevelMap"] = {"xhigh": "max" if "opus" in mid else "xhigh"}
    if "headers" in extra:
        entry["headers"] = extra["headers"]
    if "compat" in extra:
        entry["compat"] = extra["compat"]
    return entry


def main() -> None:
    manifest = {"providers": {}}
    for provider, (api, base_url, rows) in PROVIDERS.items():
        models = [model_entry(provider, api, base_url, row) for row in rows]
        name = f"{provider}.json"
        (OUT / name).write_text(json.dumps({"provider": provider, "models": models}, indent=1) + "\n")
        manifest["providers"][provider] = {"file": name, "models": len(models)}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
