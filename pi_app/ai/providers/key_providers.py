"""Built-in providers that need nothing but an API key from one env var (R-AI-44).

Each reuses an existing wire API (chosen per model by the catalogue): adding another such provider
is one line in ``KEY_PROVIDERS`` (R-AI-43).
"""

from __future__ import annotations

from pi_app.ai.auth.helpers import env_api_key_auth
from pi_app.ai.providers.base import CatalogProvider, catalog_provider

# id -> (display name, env vars in lookup order)
KEY_PROVIDERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "openrouter": ("OpenRouter", ("OPENROUTER_API_KEY",)),
    "xai": ("xAI", ("XAI_API_KEY",)),
    "groq": ("Groq", ("GROQ_API_KEY",)),
    "cerebras": ("Cerebras", ("CEREBRAS_API_KEY",)),
    "zai": ("Z.AI", ("ZAI_API_KEY",)),
    "huggingface": ("Hugging Face", ("HF_TOKEN",)),
    "deepseek": ("DeepSeek", ("DEEPSEEK_API_KEY",)),
    "mistral": ("Mistral", ("MISTRAL_API_KEY",)),
    "minimax": ("MiniMax", ("MINIMAX_API_KEY",)),
    "minimax-cn": ("MiniMax (China)", ("MINIMAX_CN_API_KEY",)),
    "kimi-coding": ("Kimi For Coding", ("KIMI_API_KEY",)),
    "vercel-ai-gateway": ("Vercel AI Gateway", ("AI_GATEWAY_API_KEY",)),
    "opencode": ("OpenCode Zen", ("OPENCODE_API_KEY",)),
    "opencode-go": ("OpenCode Go", ("OPENCODE_API_KEY",)),
    "azure-openai-responses": ("Azure OpenAI", ("AZURE_OPENAI_API_KEY",)),
}


def key_provider(id: str) -> CatalogProvider:
    name, env_vars = KEY_PROVIDERS[id]
    return catalog_provider(id, name, env_api_key_auth(f"{name} API key", env_vars))
