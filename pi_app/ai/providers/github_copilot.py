"""The ``github-copilot`` provider: three wire APIs behind one Copilot token (spec 10 §A.7.3).

The base URL comes from the Copilot token itself (``proxy-ep=<host>;``, R-AI-57), so a refresh that
moves the account to another host takes effect on the next request. Every request also carries
``X-Initiator`` (``user`` when the last message is the user's, else ``agent``), ``Openai-Intent``
and, when the conversation holds an image, ``Copilot-Vision-Request``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pi_app.ai.auth.helpers import env_api_key_auth
from pi_app.ai.auth.lazy_oauth import LazyOAuth
from pi_app.ai.auth.types import ProviderAuth
from pi_app.ai.event_stream import AssistantMessageEventStream
from pi_app.ai.providers.base import CatalogProvider, all_api_streams
from pi_app.ai.types import Context, ImageContent, Model, ToolResultMessage, UserMessage

if TYPE_CHECKING:
    from pi_app.ai.types import StreamOptions

DEFAULT_BASE_URL = "https://api.individual.githubcopilot.com"
ENV_VARS = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
_PROXY_EP = re.compile(r"proxy-ep=([^;]+);?")


def copilot_base_url(token: str | None, enterprise_domain: str | None = None) -> str:
    """``https://api.<host>`` from the token's ``proxy-ep``; else the enterprise or individual host."""
    match = _PROXY_EP.search(token or "")
    if match:
        host = match.group(1).strip()
        if host.startswith("proxy."):
            host = "api." + host[len("proxy.") :]
        return f"https://{host}"
    if enterprise_domain:
        return f"https://copilot-api.{enterprise_domain}"
    return DEFAULT_BASE_URL


def copilot_dynamic_headers(context: Context) -> dict[str, str]:
    last = context.messages[-1] if context.messages else None
    headers = {
        "X-Initiator": "user" if isinstance(last, UserMessage) else "agent",
        "Openai-Intent": "conversation-edits",
    }
    for message in context.messages:
        if isinstance(message, UserMessage | ToolResultMessage) and isinstance(message.content, list):
            if any(isinstance(b, ImageContent) for b in message.content):
                headers["Copilot-Vision-Request"] = "true"
                break
    return headers


@dataclass
class CopilotProvider(CatalogProvider):
    """GitHub Copilot: the catalogue provider plus Copilot's per-request headers."""

    def _with_headers(self, context: Context, options: StreamOptions | None) -> Any:
        from pi_app.ai.api.shared import merge_headers
        from pi_app.ai.types import StreamOptions

        options = options if options is not None else StreamOptions()
        return replace(options, headers=merge_headers(copilot_dynamic_headers(context), options.headers))

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        return super().stream(model, context, self._with_headers(context, options))

    def stream_simple(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AssistantMessageEventStream:
        return super().stream_simple(model, context, self._with_headers(context, options))


def github_copilot_provider() -> CopilotProvider:
    oauth = LazyOAuth("pi_app.ai.auth.oauth.github_copilot", "github_copilot_oauth", "GitHub Copilot")
    api_key = env_api_key_auth("GitHub token", ENV_VARS).api_key
    return CopilotProvider(
        id="github-copilot",
        name="GitHub Copilot",
        base_url=DEFAULT_BASE_URL,
        auth=ProviderAuth(api_key=api_key, oauth=oauth),
        api=all_api_streams(),
    )
