"""``pi auth login|logout|check|print-api-key|print-bearer-token``: credentials from a shell (issue 23).

As pi 1.6.0:

- ``login <provider> [--api-key] [--no-browser]`` needs a terminal; it signs in with an account
  (OAuth: the URL or device code is printed, pasted input is read from the terminal) or, with
  ``--api-key`` or for a provider without an account sign-in, asks for the key (not echoed) and
  any other setting the provider needs, and saves it to ``auth.json`` (0600). ``--no-browser``
  never opens a browser (we never do; the URL is printed).
- ``logout <provider>`` removes the stored credential; environment and models.json stay.
- ``print-api-key`` prints the key a request would use (OAuth tokens included, refreshed when
  expired); ``print-bearer-token`` only an OAuth access token, refreshed when it expires within
  ``--min-expiry`` (``30m``, ``1h``, ``90s``).
- ``check`` prints ``ready``, ``not_ready`` or ``invalid`` and exits 0, 1 or 2; ``--json`` prints
  ``{"status", "provider", "authType" | "reason"}``, ``--credentials`` adds (or prints) the key,
  ``--no-refresh`` reports an expired OAuth token as not ready instead of refreshing it.

``--provider`` or ``--model provider/id`` (or a bare id pi can resolve) picks the provider.
"""

from __future__ import annotations

import asyncio
import getpass
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi_app.ai.codec import encode_line
from pi_app.ai.event_stream import AbortSignal

if TYPE_CHECKING:
    from pi_app.coding.models.registry import ModelRegistry

USAGE = """Usage:
  pi auth login <provider> [--api-key] [--no-browser]
  pi auth logout <provider>
  pi auth print-api-key [--provider <provider>] [--model <model>]
  pi auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  pi auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Sign in to and out of model providers, print their credentials for other programs, or check that
they are ready. Credentials are stored in ~/.pi/agent/auth.json.

Commands:
  login <provider>        Sign in with an account, or save an API key, then exit
  logout <provider>       Remove the stored credentials; environment variables and models.json stay
  print-api-key           Print the resolved API key
  print-bearer-token      Print a resolved OAuth bearer token (refreshed when it expires soon)
  check                   Print ready, not_ready or invalid; exit with 0, 1 or 2

Options for print-api-key, print-bearer-token and check (one is required):
  --provider <provider>   Resolve the credentials of a provider
  --model <model>         Resolve the credentials of a model's provider

Options for login:
  --api-key               Save an API key instead of signing in with an account
  --no-browser            Do not open a browser (pi prints the URL or device code)

Other options:
  --min-expiry <duration> Least remaining token lifetime for print-bearer-token, e.g. 30m or 1h
  --json                  Print the check result as JSON
  --credentials           Print the credential from check, or include it in the JSON
  --no-refresh            Do not refresh an expired OAuth token during check
"""

FLAGS = ("--api-key", "--no-browser", "--json", "--credentials", "--no-refresh")
VALUED = ("--provider", "--model", "--min-expiry")


class AuthCommandError(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def parse(argv: Sequence[str]) -> tuple[str, list[str], dict[str, Any]]:
    if not argv:
        raise AuthCommandError(USAGE.rstrip(), 0)
    command = argv[0]
    positional: list[str] = []
    options: dict[str, Any] = {}
    rest = list(argv[1:])
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if name in VALUED:
            if not eq:
                if not rest:
                    raise AuthCommandError(f"Error: {name} needs a value", 2)
                value = rest.pop(0)
            options[name[2:].replace("-", "_")] = value
        elif arg in FLAGS:
            options[arg[2:].replace("-", "_")] = True
        elif arg.startswith("-"):
            raise AuthCommandError(f"Error: unknown option {arg}", 2)
        else:
            positional.append(arg)
    return command, positional, options


def parse_duration_ms(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*", text)
    if not match:
        raise AuthCommandError(f'Error: invalid duration "{text}" (use e.g. 90s, 30m or 1h)', 2)
    scale = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}[match.group(2) or "s"]
    return int(float(match.group(1)) * scale)


def make_registry() -> ModelRegistry:
    from pi_app.coding import paths
    from pi_app.coding.auth_storage import AuthStorage
    from pi_app.coding.models.registry import ModelRegistry

    agent_dir = paths.agent_dir()
    from pi_app.coding.http_proxy import apply_http_proxy_from_agent_dir

    apply_http_proxy_from_agent_dir(agent_dir)
    return ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")


def unknown_provider(registry: ModelRegistry, provider: str) -> AuthCommandError:
    ids = ", ".join(sorted(registry.get_provider_ids()))
    return AuthCommandError(f'Unknown provider "{provider}".\nProviders: {ids}')


def target_provider(registry: ModelRegistry, options: dict[str, Any]) -> str:
    if options.get("provider"):
        return str(options["provider"])
    reference = options.get("model")
    if not reference:
        raise AuthCommandError("Error: Auth checks require --provider <provider> or --model <model>", 2)
    provider, slash, model_id = str(reference).partition("/")
    if slash and registry.has_provider(provider):
        return provider
    for model in registry.get_all():
        if model.id == reference:
            return str(model.provider)
    return provider if slash else str(reference)


class TerminalInteraction:
    """``AuthInteraction`` on the terminal: URLs and codes printed, answers read (secrets unechoed).

    ``prefer_device_code`` (``--no-browser``) makes a flow that offers it take the device code."""

    signal: AbortSignal | None = None

    def __init__(self, prefer_device_code: bool = False) -> None:
        self.prefer_device_code = prefer_device_code

    @property
    def device_id(self) -> str:
        """This installation's id for "Sign in with ChatGPT" (agent settings' ``deviceId``)."""
        import os

        from pi_app.coding import paths
        from pi_app.coding.login_support import device_id
        from pi_app.coding.settings import SettingsManager

        return device_id(SettingsManager.create(os.getcwd(), paths.agent_dir()))

    def notify(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "auth_url":
            line = f"Open this URL in your browser:\n{event.get('url')}"
            if event.get("instructions"):
                line += f"\n{event['instructions']}"
        elif kind == "device_code":
            line = f"Open {event.get('url')} and enter the code: {event.get('code')}"
        else:
            line = str(event.get("message") or event)
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    async def prompt(self, prompt: dict[str, Any]) -> str:
        options = prompt.get("options") if prompt.get("type") == "select" else None
        if options:
            lines = [str(prompt.get("message") or "Choose:")]
            lines += [f"  {i}. {o.get('label') or o.get('id')}" for i, o in enumerate(options, 1)]
            sys.stderr.write("\n".join(lines) + "\n")
            while True:
                sys.stderr.write(f"Choose 1-{len(options)} [1]: ")
                sys.stderr.flush()
                answer = (await asyncio.to_thread(sys.stdin.readline)).strip() or "1"
                if answer.isdigit() and 1 <= int(answer) <= len(options):
                    return str(options[int(answer) - 1].get("id"))
        message = f"{prompt.get('message') or 'Enter a value'}: "
        if prompt.get("type") == "secret":
            return (await asyncio.to_thread(getpass.getpass, message)).strip()
        sys.stderr.write(message)
        sys.stderr.flush()
        line = await asyncio.to_thread(sys.stdin.readline)
        return line.strip()


async def login(registry: ModelRegistry, positional: list[str], options: dict[str, Any]) -> int:
    from pi_app.coding.login_support import save_api_key

    if not positional:
        raise AuthCommandError("Error: pi auth login needs a provider", 2)
    provider_id = positional[0]
    provider = registry.models.get_provider(provider_id)
    if provider is None:
        raise unknown_provider(registry, provider_id)
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise AuthCommandError(
            '"pi auth login <provider> [--api-key] [--no-browser]" requires an interactive terminal'
        )
    name = registry.get_provider_display_name(provider_id)
    interaction = TerminalInteraction(prefer_device_code=bool(options.get("no_browser")))
    oauth = getattr(provider.auth, "oauth", None)
    path = getattr(registry.credentials, "path", "auth.json")
    if oauth is not None and not options.get("api_key"):
        await registry.models.login(provider_id, "oauth", interaction)
        sys.stdout.write(
            f"Logged in to {getattr(oauth, 'login_label', None) or name}. Credentials saved to {path}\n"
        )
        return 0
    if getattr(provider.auth, "api_key", None) is None:
        raise AuthCommandError(f"{name} has no API key sign-in")
    await save_api_key(registry, provider_id, interaction)
    sys.stdout.write(f"Saved API key for {name}. Credentials saved to {path}\n")
    return 0


async def logout(registry: ModelRegistry, positional: list[str]) -> int:
    from pi_app.coding.login_support import remove_credentials

    if not positional:
        raise AuthCommandError("Error: pi auth logout needs a provider", 2)
    provider_id = positional[0]
    if not registry.has_provider(provider_id):
        stored = ", ".join(str(i.get("providerId")) for i in await registry.credentials.list()) or "none"
        raise AuthCommandError(f'Unknown provider "{provider_id}".\nStored credentials: {stored}')
    sys.stdout.write(await remove_credentials(registry, provider_id) + "\n")
    return 0


async def resolve(
    registry: ModelRegistry, provider_id: str, *, refresh: bool, min_expiry_ms: int = 0
) -> tuple[str, Any]:
    """(status, detail): ``ready`` with the AuthResult, ``not_ready``/``invalid`` with a reason."""
    from pi_app.ai.auth.resolve import ModelsError
    from pi_app.ai.types import now_ms

    provider = registry.models.get_provider(provider_id)
    if provider is None:
        return "not_ready", "provider_not_found"
    credential = await registry.credentials.read(provider_id)
    if credential and credential.get("type") == "oauth" and provider.auth.oauth is not None:
        expires = int(credential.get("expires") or 0)
        if now_ms() + min_expiry_ms >= expires:
            if not refresh:
                return "not_ready", "credentials_expired"
            if min_expiry_ms and now_ms() < expires:  # still valid but too short-lived: refresh now

                async def force(current: Any) -> Any:
                    fresh = await provider.auth.oauth.refresh(current)
                    return {**fresh, "type": "oauth"}

                try:
                    await registry.credentials.modify(provider_id, force)
                except Exception as exc:
                    return "invalid", f"OAuth refresh failed for {provider_id}: {exc}"
    try:
        result = await registry.models.get_auth(provider_id)
    except ModelsError as exc:
        return "invalid", str(exc)
    if result is None:
        return "not_ready", "credentials_not_configured"
    return "ready", result


async def check(registry: ModelRegistry, options: dict[str, Any]) -> int:
    provider_id = target_provider(registry, options)
    status, detail = await resolve(registry, provider_id, refresh=not options.get("no_refresh"))
    out: dict[str, Any] = {"status": status, "provider": provider_id}
    secret = None
    if status == "ready":
        kind = "oauth" if detail.source == "OAuth" else "api_key"
        out["authType"] = kind
        secret = detail.auth.get("apiKey")
        if options.get("credentials") and secret:
            out["credentials"] = secret
    else:
        out["reason"] = detail
    if options.get("json"):
        sys.stdout.write(encode_line(out))
    elif options.get("credentials") and secret:
        sys.stdout.write(f"{secret}\n")
    else:
        sys.stdout.write(f"{status}\n")
    return {"ready": 0, "not_ready": 1}.get(status, 2)


async def print_key(registry: ModelRegistry, options: dict[str, Any], *, bearer: bool) -> int:
    provider_id = target_provider(registry, options)
    min_expiry = parse_duration_ms(options["min_expiry"]) if options.get("min_expiry") else 0
    status, detail = await resolve(registry, provider_id, refresh=True, min_expiry_ms=min_expiry)
    if status == "invalid":
        raise AuthCommandError(f"Error: {detail}", 2)
    if status != "ready" or not detail.auth.get("apiKey"):
        if detail == "provider_not_found":
            raise unknown_provider(registry, provider_id)
        raise AuthCommandError("Error: No usable API key is configured")
    if bearer and detail.source != "OAuth":
        raise AuthCommandError(f"Error: {provider_id} is not signed in with an account (no OAuth token)")
    sys.stdout.write(f"{detail.auth['apiKey']}\n")
    return 0


async def run(argv: Sequence[str]) -> int:
    command, positional, options = parse(argv)
    if command in ("-h", "--help", "help") or options.get("help"):
        sys.stdout.write(USAGE)
        return 0
    registry = make_registry()
    if command == "login":
        return await login(registry, positional, options)
    if command == "logout":
        return await logout(registry, positional)
    if command == "check":
        return await check(registry, options)
    if command == "print-api-key":
        return await print_key(registry, options, bearer=False)
    if command == "print-bearer-token":
        return await print_key(registry, options, bearer=True)
    raise AuthCommandError(f'Unknown auth command "{command}".\n\n{USAGE.rstrip()}', 2)


def run_auth_command(argv: Sequence[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(USAGE)
        return 0
    try:
        return asyncio.run(run(argv))
    except AuthCommandError as exc:
        if exc.code == 0:
            sys.stdout.write(f"{exc}\n")
        else:
            sys.stderr.write(f"{exc}\n")
        return exc.code
    except KeyboardInterrupt:
        sys.stderr.write("Cancelled\n")
        return 130
    except Exception as exc:  # a failed sign-in: one line
        sys.stderr.write(f"Error: {exc}\n")
        return 1
