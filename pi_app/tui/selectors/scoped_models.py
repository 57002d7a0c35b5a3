"""``/scoped-models``: choose the models Ctrl+P cycles through (R-SEL-05).

A checklist of the available models: Enter toggles one, Ctrl+A enables all (of the search
matches), Ctrl+X clears them, Ctrl+P toggles the selected model's whole provider, Alt+Up/Down
move the selected model in the cycle order, Ctrl+S saves the list to the ``enabledModels``
setting. Until saved, changes apply to this session only and the list says ``(unsaved)``.

``ScopeModel`` is the headless part (order, enabled set, provider toggles), tested without Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_app.tui.selectors.select_list import SelectItem, SelectList

if TYPE_CHECKING:
    from pi_app.ai.types import Model
    from pi_app.coding.agent_session import AgentSession
    from pi_app.tui.host import SessionHost


def _ref(model: Model) -> str:
    return f"{model.provider}/{model.id}"


@dataclass
class ScopeModel:
    models: list[Model]
    enabled: list[str] = field(default_factory=list)
    """References (``provider/id``) in cycle order."""
    dirty: bool = False

    def order(self) -> list[Model]:
        """Enabled models first in their cycle order, then the others in catalogue order."""
        by_ref = {_ref(m): m for m in self.models}
        first = [by_ref[r] for r in self.enabled if r in by_ref]
        return first + [m for m in self.models if _ref(m) not in self.enabled]

    def toggle(self, ref: str) -> None:
        if ref in self.enabled:
            self.enabled.remove(ref)
        else:
            self.enabled.append(ref)
        self.dirty = True

    def set_all(self, refs: list[str], on: bool) -> None:
        for ref in refs:
            if on and ref not in self.enabled:
                self.enabled.append(ref)
            elif not on and ref in self.enabled:
                self.enabled.remove(ref)
        self.dirty = True

    def toggle_provider(self, provider: str) -> None:
        refs = [_ref(m) for m in self.models if m.provider == provider]
        self.set_all(refs, not all(r in self.enabled for r in refs))

    def move(self, ref: str, delta: int) -> None:
        if ref not in self.enabled:
            return
        i = self.enabled.index(ref)
        j = max(0, min(len(self.enabled) - 1, i + delta))
        self.enabled.insert(j, self.enabled.pop(i))
        self.dirty = True


async def open_scoped_models(app: SessionHost) -> None:
    from pi_app.coding.models.resolver import ScopedModel
    from pi_app.tui.commands.actions import available_models, scoped_models

    if app.session is None:
        app.show_status("Still starting up…")
        return
    models = await available_models(app)
    current = [_ref(s.model) for s in await scoped_models(app)]
    scope = ScopeModel(models, list(current))
    by_ref = {_ref(m): m for m in models}

    def items() -> list[SelectItem]:
        return [
            SelectItem(
                _ref(m),
                m.id,
                m.provider,
                marker="[x] " if _ref(m) in scope.enabled else "[ ] ",
                search_text=f"{m.id} {m.provider}",
            )
            for m in scope.order()
        ]

    def apply_to_session() -> None:
        chosen = [ScopedModel(by_ref[r]) for r in scope.enabled if r in by_ref]

        def set_scope(session: AgentSession) -> None:
            session.scoped_models = chosen

        app.bridge.call_soon(set_scope)

    def refresh() -> None:
        selector.title = "Scoped models" + (" (unsaved)" if scope.dirty else "")
        selector.set_items(items())
        apply_to_session()

    def selected_ref() -> str | None:
        item = selector.model.current()
        return item.value if item is not None else None

    def toggle(item: SelectItem) -> None:
        scope.toggle(item.value)
        refresh()

    def matching() -> list[str]:
        return [item.value for item in selector.model.filtered]

    def enable_all() -> None:
        scope.set_all(matching(), True)
        refresh()

    def clear_all() -> None:
        scope.set_all(matching(), False)
        refresh()

    def toggle_provider() -> None:
        ref = selected_ref()
        if ref is not None:
            scope.toggle_provider(by_ref[ref].provider)
            refresh()

    def reorder(delta: int) -> None:
        ref = selected_ref()
        if ref is not None:
            scope.move(ref, delta)
            refresh()
            selector.model.select_value(ref)

    def save() -> None:
        if app.settings is None:
            return
        try:
            app.settings.set_enabled_models(list(scope.enabled) or None)
        except Exception as exc:
            app.show_error(f"Could not save enabledModels: {exc}")
            return
        scope.dirty = False
        refresh()
        app.show_status(f"Saved {len(scope.enabled)} scoped model(s)")

    h = app.keybindings.hint
    selector = SelectList(
        items(),
        title="Scoped models",
        keybindings=app.keybindings,
        theme=app.themes.current,
        hint=(
            f"enter toggle · {h('app.models.enableAll')} all · {h('app.models.clearAll')} clear · "
            f"{h('app.models.toggleProvider')} provider · {h('app.models.reorderUp')}/"
            f"{h('app.models.reorderDown')} reorder · {h('app.models.save')} save · esc close"
        ),
        max_visible=12,
        on_select=toggle,
        on_cancel=app.restore_editor,
        extra_keys={
            "app.models.enableAll": enable_all,
            "app.models.clearAll": clear_all,
            "app.models.toggleProvider": toggle_provider,
            "app.models.reorderUp": lambda: reorder(-1),
            "app.models.reorderDown": lambda: reorder(1),
            "app.models.save": save,
        },
        id="scoped-models-selector",
    )
    app.show_in_editor_slot(selector)
