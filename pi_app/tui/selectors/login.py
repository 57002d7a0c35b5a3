"""``/login`` and ``/logout`` (R-SEL-07).

``/login`` lists the providers that offer an OAuth login; choosing one runs its login flow on the
agent loop and shows it in a dialog in the editor slot: the authorization URL or device code,
progress lines, and an input for whatever the flow asks (an enterprise domain, the redirect URL
pasted by hand, which races the local callback server). Escape cancels quietly. On success the
credential is saved to ``auth.json`` and the model list refreshed. ``/logout`` lists only the
providers with a saved OAuth credential.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_app.tui.dialogs import PanelDialog
from pi_app.tui.selectors.select_list import SelectItem, SelectList


def oauth_providers(registry: Any) -> list[tuple[str, str, Any]]:
    """(provider id, label, OAuthAuth) for every provider with an OAuth login."""
    found = []
    for provider in registry.models.get_providers():
        oauth = getattr(getattr(provider, "auth", None), "oauth", None)
        if oauth is None:
            continue
        label = getattr(oauth, "login_label", None) or registry.get_provider_display_name(provider.id)
        found.append((provider.id, label, oauth))
    return found


class _Interaction:
    """``AuthInteraction`` for the dialog: lives on the agent loop, talks to the UI thread."""

    def __init__(self, app: Any, dialog: PanelDialog, signal: Any) -> None:
        self.app = app
        self.dialog = dialog
        self.signal = signal

    def notify(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "auth_url":
            line = f"Open this URL in your browser:\n{event.get('url')}"
        elif kind == "device_code":
            line = f"Open {event.get('url')} and enter the code: {event.get('code')}"
        else:
            line = str(event.get("message") or event)
        self.app.call_from_thread(self.dialog.add_line, line)

    async def prompt(self, prompt: dict[str, Any]) -> str:
        message = str(prompt.get("message") or "Enter a value")
        future = self.app.call_from_thread(self.dialog.ask, message, str(prompt.get("placeholder") or ""))
        return await asyncio.wrap_future(future)


async def open_login(app: Any) -> None:
    session = app.session
    registry = getattr(session, "model_registry", None) if session is not None else None
    if registry is None:
        app.show_status("Still starting up…")
        return
    providers = oauth_providers(registry)
    if not providers:
        app.show_status("No provider offers an OAuth login. Set an API key or edit models.json instead.")
        return
    by_id = {pid: (label, oauth) for pid, label, oauth in providers}

    def choose(item: SelectItem) -> None:
        label, oauth = by_id[item.value]
        app.run_worker(_run_login(app, item.value, label, oauth), group="login", exit_on_error=False)

    app.show_in_editor_slot(
        SelectList(
            [SelectItem(pid, label, pid) for pid, label, _ in providers],
            title="Login",
            keybindings=app.keybindings,
            theme=app.themes.current,
            hint="enter login · esc cancel",
            on_select=choose,
            on_cancel=app.restore_editor,
            id="login-selector",
        )
    )


async def _run_login(app: Any, provider_id: str, label: str, oauth: Any) -> None:
    from pi_app.ai.event_stream import AbortController

    controller = AbortController()
    dialog = PanelDialog(
        f"Login to {label}",
        hint=f"{app.hint('tui.select.cancel')} cancel",
        on_cancel=lambda: (app.bridge.call_soon(lambda _s: controller.abort()), app.restore_editor()),
        keybindings=app.keybindings,
        id="login-dialog",
    )
    app.show_in_editor_slot(dialog)
    interaction = _Interaction(app, dialog, controller.signal)

    async def login(session: Any) -> str:
        credential = await oauth.login(interaction)
        registry = session.model_registry

        async def store(_current: Any) -> Any:
            return credential

        await registry.credentials.modify(provider_id, store)
        await registry.refresh()
        return str(getattr(registry.credentials, "path", "auth.json"))

    try:
        path = await app.bridge.request(login)
    except Exception as exc:
        if controller.signal.aborted or isinstance(exc, asyncio.CancelledError):
            return
        app.restore_editor()
        app.show_error(f"Failed to login to {label}: {exc}")
        return
    app.restore_editor()
    app.refresh_footer()
    app.show_status(f"Logged in to {label}. Credentials saved to {path}")


async def open_logout(app: Any) -> None:
    session = app.session
    registry = getattr(session, "model_registry", None) if session is not None else None
    if registry is None:
        app.show_status("Still starting up…")
        return
    infos = await app.bridge.request(lambda s: s.model_registry.credentials.list())
    logged_in = [str(info.get("providerId")) for info in infos if info.get("type") == "oauth"]
    if not logged_in:
        app.show_status("No OAuth providers logged in. Use /login first.")
        return

    def choose(item: SelectItem) -> None:
        async def logout() -> None:
            async def delete(s: Any) -> None:
                await s.model_registry.credentials.delete(item.value)
                await s.model_registry.refresh()

            await app.bridge.request(delete)
            app.restore_editor()
            app.refresh_footer()
            app.show_status(f"Logged out of {item.label}")

        app.run_worker(logout(), group="login", exit_on_error=False)

    app.show_in_editor_slot(
        SelectList(
            [SelectItem(pid, registry.get_provider_display_name(pid), pid) for pid in logged_in],
            title="Logout",
            keybindings=app.keybindings,
            theme=app.themes.current,
            hint="enter logout · esc cancel",
            on_select=choose,
            on_cancel=app.restore_editor,
            id="logout-selector",
        )
    )
