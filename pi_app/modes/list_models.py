"""``pi --list-models [search]``: a table of the models that can be used right now.

Lists the models whose provider has credentials (API key flag, ``auth.json``, environment or
``models.json``), sorted by provider then id — the same set the model selector and RPC
``get_available_models`` offer; ids are ordered as pi 1.6.0 orders them (its locale comparison:
symbols before digits before letters, case ignored until a tie). With a search term, a model is
kept when ``<provider>/<id>`` matches each word of it as in every picker (``pi_app.coding.fuzzy``):
``openai/gpt``, ``gpt openai`` and ``4ogpt`` all find ``openai/gpt-4o``, as in pi 1.6.0.

Columns: provider, model, context window, max output, thinking, images. Token counts are shown
compactly (``128K``, ``1M``). Output goes to stdout; exit 0 even when nothing matches.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi_app.coding.fuzzy import fuzzy_score

if TYPE_CHECKING:
    from pi_app.coding.launch import LaunchOptions

HEADERS = ("provider", "model", "context", "max-out", "thinking", "images")


def format_tokens(count: int) -> str:
    if count >= 1_000_000:
        value = count / 1_000_000
        return f"{value:.0f}M" if value == int(value) else f"{value:.1f}M"
    if count >= 1000:
        value = count / 1000
        return f"{value:.0f}K" if value == int(value) else f"{value:.1f}K"
    return str(count)


# ICU's root order of the punctuation and symbols that occur in model ids
_SYMBOLS = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def locale_sort_key(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """A sort key ordering strings as pi 1.6.0's ``localeCompare`` does for model and provider ids."""
    primary = []
    for char in text:
        if char in _SYMBOLS:
            primary.append((0, _SYMBOLS.index(char)))
        elif char.isdigit():
            primary.append((1, ord(char)))
        elif char.isalpha():
            primary.append((2, ord(char.lower())))
        else:
            primary.append((3, ord(char)))
    return primary, [0 if char.islower() else 1 for char in text]


def model_rows(models: Sequence[Any], search: str | None = None) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for model in sorted(models, key=lambda m: (locale_sort_key(m.provider), locale_sort_key(m.id))):
        if search and fuzzy_score(search, f"{model.provider}/{model.id}") is None:
            continue
        rows.append(
            (
                model.provider,
                model.id,
                format_tokens(model.context_window),
                format_tokens(model.max_tokens),
                "yes" if model.reasoning else "no",
                "yes" if "image" in model.input else "no",
            )
        )
    return rows


def format_table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(HEADERS[i]), *(len(r[i]) for r in rows)) for i in range(len(HEADERS))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in [HEADERS, *rows]
    ]
    return "\n".join(lines) + "\n"


async def list_models(search: str | None, options: LaunchOptions | None = None) -> int:
    from pi_app.coding import paths
    from pi_app.coding.auth_storage import AuthStorage
    from pi_app.coding.models.registry import ModelRegistry

    agent_dir = paths.agent_dir()
    from pi_app.coding.http_proxy import apply_http_proxy_from_agent_dir

    apply_http_proxy_from_agent_dir(agent_dir)
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    error = registry.get_error()
    if error:
        sys.stderr.write(f"Warning: models.json error: {error}\n")
    api_key = getattr(options, "api_key", None)
    provider = getattr(options, "provider", None)
    if api_key and provider:
        registry.set_runtime_api_key(provider, api_key)
    available = await registry.get_available()
    if not available:
        sys.stdout.write(
            f"No models available. Set an API key or add a provider to {agent_dir / 'models.json'}\n"
        )
        return 0
    rows = model_rows(available, search)
    if not rows:
        sys.stdout.write(f'No models matching "{search}"\n')
        return 0
    sys.stdout.write(format_table(rows))
    return 0
