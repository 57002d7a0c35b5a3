"""``/login`` and ``/logout`` (R-SEL-07, issue 23).

``/login`` first asks how to sign in, as pi 1.6.0 does: "Sign in with an account" lists the
providers that offer an OAuth login; choosing one runs its login flow on the agent loop and shows
it in a dialog in the editor slot: the authorization URL or device code, progress lines, and an
input for whatever the flow asks (an enterprise domain, the redirect URL pasted by hand, which
races the local callback server). "Sign in with an API key" lists every provider (type to filter),
each marked configured or not; choosing one asks for the key (masked) and any other setting the
provider needs, and saves it to ``auth.json`` (0600). Escape cancels quietly. On success the model
list is refreshed and, when no model is selected yet, the provider's default model is. ``/logout``
lists the providers with a stored credential of either kind and removes the chosen one.

The login flow runs on the agent loop; what it asks goes through the bridge's ``ask_user`` (the
one way the agent thread waits for the user), whose flow opens the dialog's input and waits for
the dialog's next answer in the slot (``slot.answer_in``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_app.tui.selectors.dialogs import PanelDialog
from pi_app.tui.selectors.select_list import SelectItem, SelectList
from pi_app.tui.selectors.slot import SlotHost, answer_in

if TYPE_CHECKING:
    from pi_app.ai.event_stream import AbortController, AbortSignal
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.login_support import LoginProvider
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.tui.host import SessionHost


def oauth_providers(registry: ModelRegistry) -> list[tuple[str, str, Any]]:
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
    """``AuthInteraction`` for the dialog: lives on the agent loop; what it asks the user goes
    through the bridge's ``ask_user`` into the dialog's input."""

    def __init__(
        self, app: SessionHost, dialog: PanelDialog, host: SlotHost, signal: AbortSignal | None
    ) -> None:
        self.app = app
        self.dialog = dialog
        self.host = host
        """Holds the dialog in the editor slot: each question's answer is the dialog's next one."""
        self.signal: AbortSignal | None = signal
        self._device_id: str | None = None

    @property
    def device_id(self) -> str:
        """This installation's id for "Sign in with ChatGPT" (agent settings' ``deviceId``)."""
        if self._device_id is None:
            from pi_app.coding.login_support import device_id

            session = self.app.session
            self._device_id = device_id(session.settings_manager if session is not None else None)
        return self._device_id

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
        options = prompt.get("options") if prompt.get("type") == "select" else None
        if options:  # a choice: numbered lines, answered by number (Enter: the first)
            lines = [f"  {i}. {o.get('label') or o.get('id')}" for i, o in enumerate(options, 1)]
            self.app.call_from_thread(self.dialog.add_line, "\n".join([message, *lines]))
            while True:
                answer = (await self._ask(f"Choose 1-{len(options)}", "1")).strip() or "1"
                if answer.isdigit() and 1 <= int(answer) <= len(options):
                    return str(options[int(answer) - 1].get("id"))
        secret = prompt.get("type") == "secret"
        return await self._ask(message, str(prompt.get("placeholder") or ""), secret=secret)

    async def _ask(self, question: str, placeholder: str, *, secret: bool = False) -> str:
        """The text typed into the dialog's input for ``question`` (the agent loop waits, the UI
        does not). Escape, the dialog leaving the slot or the app closing end the login quietly,
        as a cancellation."""
        app, host, dialog = self.app, self.host, self.dialog

        async def ask_in_dialog() -> str | None:  # on the UI thread
            dialog.open_question(question, placeholder, secret=secret)
            try:
                answer = await answer_in(app, host)
            except asyncio.CancelledError:  # answered another way (the browser's redirect won)
                dialog.withdraw_question()
                raise
            return answer.text if isinstance(answer, PanelDialog.Submitted) else None

        text = await app.bridge.ask_user(ask_in_dialog, None)
        if text is None:
            raise asyncio.CancelledError
        return text


METHOD_ACCOUNT = "account"
METHOD_API_KEY = "api_key"


async def open_login(app: SessionHost) -> None:
    registry = app.session.model_registry if app.session is not None else None
    if registry is None:
        app.show_status("Still starting up…")
        return

    def choose_method(item: SelectItem) -> None:
        if item.value == METHOD_ACCOUNT:
            app.run_worker(_open_account_list(app, registry), group="login", exit_on_error=False)
        else:
            app.run_worker(open_api_key_list(app), group="login", exit_on_error=False)

    app.show_in_editor_slot(
        SelectList(
            [
                SelectItem(METHOD_ACCOUNT, "Sign in with an account"),
                SelectItem(METHOD_API_KEY, "Sign in with an API key"),
            ],
            title="Select authentication method:",
            keybindings=app.keybindings,
            theme=app.themes.current,
            hint="enter select · esc cancel",
            on_select=choose_method,
            on_cancel=app.restore_editor,
            id="login-method",
        )
    )


async def _open_account_list(app: SessionHost, registry: ModelRegistry) -> None:
    """The account route, as 1.6.0 lists it: provider names (featured first, marked ✦) and status."""
    from pi_app.coding.login_support import login_providers

    providers = oauth_providers(registry)
    if not providers:
        app.restore_editor()
        app.show_status("No provider offers an account sign-in. Use an API key instead.")
        return
    by_id = {pid: (label, oauth) for pid, label, oauth in providers}
    listed = await app.bridge.request(lambda s: login_providers(_registry(s), api_key=False))

    def choose(item: SelectItem) -> None:
        label, oauth = by_id[item.value]
        app.run_worker(_run_login(app, item.value, label, oauth), group="login", exit_on_error=False)

    shown = [p for p in listed if p.id in by_id]
    _show_provider_list(app, shown, hint="enter login", on_select=choose, widget_id="login-selector")


async def open_api_key_list(app: SessionHost) -> None:
    """The API-key route: every provider, type to filter, configured ones marked."""
    from pi_app.coding.login_support import login_providers

    providers = await app.bridge.request(lambda s: login_providers(_registry(s), api_key=True))
    names = {p.id: p.name for p in providers}

    def choose(item: SelectItem) -> None:
        app.run_worker(
            _run_api_key_login(app, item.value, names[item.value]), group="login", exit_on_error=False
        )

    _show_provider_list(
        app, providers, hint="enter select", on_select=choose, widget_id="login-api-key-selector"
    )


def _show_provider_list(
    app: SessionHost,
    providers: list[LoginProvider],
    *,
    hint: str,
    on_select: Callable[[SelectItem], None],
    widget_id: str,
) -> None:
    """ "Select provider to configure:" — featured providers starred, configured ones marked."""
    from pi_app.coding.login_support import FEATURED

    items = [
        SelectItem(
            p.id,
            f"{p.name} ✦" if p.id in FEATURED else p.name,
            "✓ configured" if p.configured else "not configured",
        )
        for p in providers
    ]
    app.show_in_editor_slot(
        SelectList(
            items,
            title="Select provider to configure:",
            keybindings=app.keybindings,
            theme=app.themes.current,
            hint=f"type to filter · {hint} · esc cancel",
            on_select=on_select,
            on_cancel=app.restore_editor,
            id=widget_id,
        )
    )


def _open_dialog(app: SessionHost, title: str, extra_hint: str = "") -> tuple[AbortController, _Interaction]:
    """The login dialog in the editor slot; Escape aborts the flow on the agent loop."""
    from pi_app.ai.event_stream import AbortController

    controller = AbortController()

    def cancel() -> None:
        app.bridge.call_soon(lambda _s: controller.abort())
        app.restore_editor()

    dialog = PanelDialog(
        title,
        hint=f"{app.hint('tui.select.cancel')} cancel{extra_hint}",
        on_cancel=cancel,
        keybindings=app.keybindings,
        id="login-dialog",
    )
    host = SlotHost(dialog)
    app.show_in_editor_slot(host)
    return controller, _Interaction(app, dialog, host, controller.signal)


def _registry(session: AgentSession) -> ModelRegistry:
    if session.model_registry is None:
        raise RuntimeError("this session has no model registry")
    return session.model_registry


async def _run_api_key_login(app: SessionHost, provider_id: str, name: str) -> None:
    from pi_app.coding.login_support import model_after_login, save_api_key

    controller, interaction = _open_dialog(app, f"Login to {name}", " · enter submit")

    async def login(session: AgentSession) -> tuple[str, str | None]:
        registry = _registry(session)
        await save_api_key(registry, provider_id, interaction)
        selected = None
        if session.model is None:
            model = await model_after_login(registry, provider_id)
            if model is not None:
                await session.set_model(model)
                selected = model.id
        return str(getattr(registry.credentials, "path", "auth.json")), selected

    try:
        path, selected = await app.bridge.request(login)
    except Exception as exc:
        if controller.signal.aborted or isinstance(exc, asyncio.CancelledError):
            return
        app.restore_editor()
        app.show_error(f"Failed to save API key for {name}: {exc}")
        return
    app.restore_editor()
    app.refresh_footer()
    chosen = f" Selected {selected}." if selected else ""
    app.show_status(f"Saved API key for {name}.{chosen} Credentials saved to {path}")


async def _run_login(app: SessionHost, provider_id: str, label: str, oauth: Any) -> None:
    controller, interaction = _open_dialog(app, f"Login to {label}")

    async def login(session: AgentSession) -> str:
        credential = await oauth.login(interaction)
        registry = _registry(session)

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


async def open_logout(app: SessionHost) -> None:
    from pi_app.coding.login_support import remove_credentials

    registry = app.session.model_registry if app.session is not None else None
    if registry is None:
        app.show_status("Still starting up…")
        return
    infos = await app.bridge.request(lambda s: _registry(s).credentials.list())
    stored = [str(info.get("providerId")) for info in infos]
    if not stored:
        app.show_status("No stored credentials. Use /login first.")
        return

    def choose(item: SelectItem) -> None:
        async def logout() -> None:
            message = await app.bridge.request(lambda s: remove_credentials(_registry(s), item.value))
            app.restore_editor()
            app.refresh_footer()
            app.show_status(message)

        app.run_worker(logout(), group="login", exit_on_error=False)

    app.show_in_editor_slot(
        SelectList(
            [SelectItem(pid, registry.get_provider_display_name(pid), "✓ configured") for pid in stored],
            title="Select provider to logout:",
            keybindings=app.keybindings,
            theme=app.themes.current,
            hint="enter logout · esc cancel",
            on_select=choose,
            on_cancel=app.restore_editor,
            id="logout-selector",
        )
    )
