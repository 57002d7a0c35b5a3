"""OAuth login flows (spec 10 §3.7). Each module is imported lazily, on the first login or refresh.

Shared pieces: ``pkce`` (verifier/challenge), ``callback_server`` (loopback redirect receiver),
``device_code`` (RFC 8628 polling). Providers: ``anthropic`` (Claude Pro/Max), ``github_copilot``
and ``openai_codex`` (ChatGPT Plus/Pro). Gemini CLI OAuth is not built (00-index.md, D-44).
"""
