"""The model selector: ``/model [search]`` and Ctrl+L (R-SEL-04, R-CMD-02).

Lists the available models (providers with credentials), fuzzy-searchable by id, name and
provider, the current one marked ``✓``. With scoped models (``--models`` / ``enabledModels``)
Tab switches between the scope and all models. Enter switches the session's model (saved as the
default, as pi does) and reports ``Model: <id>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_app.tui.selectors.select_list import SelectItem, SelectList

if TYPE_CHECKING:
    from pi_app.ai.types import Model
    from pi_app.tui.editor.autocomplete import AutocompleteItem
    from pi_app.tui.host import SessionHost


def _key(model: Model) -> tuple[str, str]:
    return (model.provider, model.id)


def model_items(models: list[Model], current_key: tuple[str, str] | None) -> list[SelectItem]:
    """The rows; ``current_key`` (provider, id) is the session's model, marked ``✓``."""
    return [
        SelectItem(
            value=_key(m),
            label=m.id,
            description=m.provider,
            marker="✓ " if _key(m) == current_key else "  ",
            search_text=f"{m.id} {m.provider} {m.name or ''}",
        )
        for m in models
    ]


async def open_model_selector(app: SessionHost, search: str) -> None:
    from pi_app.tui.commands.actions import available_models, scoped_models

    if app.session is None:
        app.show_status("Still starting up…")
        return
    available = await available_models(app)
    scope = [s.model for s in await scoped_models(app)]
    by_key = {_key(m): m for m in available + scope}
    snapshot = app.snapshot
    current = (snapshot.provider, snapshot.model_id) if snapshot.provider and snapshot.model_id else None
    state = {"scoped": bool(scope)}

    def models_now() -> list[Model]:
        return scope if state["scoped"] and scope else available

    def hint() -> str:
        parts = ["enter select", "esc cancel"]
        if scope:
            parts.insert(1, f"tab scope: {'scoped' if state['scoped'] else 'all'}")
        return " · ".join(parts)

    def choose(item: SelectItem) -> None:
        model = by_key[item.value]
        app.restore_editor()

        async def switch() -> None:
            await app.bridge.request(lambda s: s.set_model(model))
            app.refresh_footer()
            app.show_status(f"Model: {model.id}")

        app.run_worker(switch(), group="command", exit_on_error=False)

    def toggle_scope() -> None:
        if scope:
            state["scoped"] = not state["scoped"]
            selector.hint = hint()
            selector.set_items(model_items(models_now(), current))

    notice = None
    if not available:
        notice = "No models available. Use /login or configure ~/.pi/agent/models.json."
    elif not scope:
        notice = "Showing models of providers with credentials. Scope them with /scoped-models."
    selector = SelectList(
        model_items(models_now(), current),
        title="Select model",
        keybindings=app.keybindings,
        theme=app.themes.current,
        hint=hint(),
        notice=notice,
        on_select=choose,
        on_cancel=app.restore_editor,
        extra_keys={"tui.input.tab": toggle_scope},
        id="model-selector",
    )
    if current is not None:
        selector.model.select_value(current)
    if search:
        selector.model.set_query(search)
    app.show_in_editor_slot(selector)


async def model_command(app: SessionHost, args: str) -> None:
    """``/model``: an exact reference switches at once; anything else opens the selector."""
    from pi_app.coding.models.resolver import find_exact_model_reference_match
    from pi_app.tui.commands.actions import available_models, scoped_models

    search = args.strip()
    if search and app.session is not None:
        scope = [s.model for s in await scoped_models(app)]
        pool = scope or await available_models(app)
        model = find_exact_model_reference_match(search, pool)
        if model is not None:
            await app.bridge.request(lambda s: s.set_model(model))
            app.refresh_footer()
            app.show_status(f"Model: {model.id}")
            return
    await open_model_selector(app, search)


def model_argument_completions(app: SessionHost) -> Callable[[str], list[AutocompleteItem] | None]:
    """``/model <tab>``: models fuzzy-matched against ``<id> <provider>`` (R-AC-04)."""
    from pi_app.coding.fuzzy import fuzzy_filter
    from pi_app.tui.editor.autocomplete import AutocompleteItem

    def complete(argument: str) -> list[AutocompleteItem] | None:
        models = list(app.known_models)
        matches = fuzzy_filter(models, argument, lambda m: f"{m.id} {m.provider}")
        return [AutocompleteItem(f"{m.provider}/{m.id}", m.id, m.provider) for m in matches[:50]]

    return complete
