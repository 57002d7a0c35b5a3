"""The start-up header's content, built from the effective keybindings and loaded resources.

The collapsed form follows pi 0.73.1's first screen (version, one line of the most used keys, how
to see more, a tip: pi can answer questions about itself); the expanded form lists every hint
R-FOOT-07 asks for and the loaded resources. Unbound actions are left out rather than shown with
a wrong key (R-KEY-06). ``StartupHeader`` is the header part: its notices (the condensed changelog)
and its block at the top of the transcript, drawn again when a setting, a keybinding or an
extension's header changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pi_app import __version__
from pi_app.tui.chrome import resources
from pi_app.tui.transcript.blocks.startup import HeaderContent, StartupHeaderBlock

if TYPE_CHECKING:
    from pi_app.tui.input.keybindings import Keybindings
    from pi_app.tui.theme.themes import ThemeManager
    from pi_app.tui.transcript.view import Transcript


class HeaderHost(resources.ResourceHost, Protocol):
    """What the start-up header reads of the app."""

    keybindings: Keybindings

    @property
    def themes(self) -> ThemeManager: ...
    @property
    def transcript(self) -> Transcript: ...


TIP = "pi knows its own docs: ask it how a feature works or how to extend it."
"""The first screen's tip (pi 0.73.1 shows one with the same advice; the system prompt names the docs)."""


def _hints(app: HeaderHost) -> list[tuple[str, str]]:
    h = app.keybindings.hint
    pairs: list[tuple[str, str]] = []

    def add(key: str, what: str) -> None:
        if key:
            pairs.append((key, what))

    add(h("app.interrupt"), "to interrupt")
    add(h("app.clear"), "to clear")
    add(h("app.clear") and f"{h('app.clear')} twice", "to exit")
    add(h("app.exit"), "to exit (empty)")
    add(h("app.suspend"), "to suspend")
    add(h("tui.editor.deleteToLineEnd"), "to delete to end")
    add(h("app.thinking.cycle"), "to cycle thinking level")
    models = "/".join(k for k in (h("app.model.cycleForward"), h("app.model.cycleBackward")) if k)
    add(models, "to cycle models")
    add(h("app.model.select"), "to select model")
    add(h("app.tools.expand"), "to expand tools")
    add(h("app.thinking.toggle"), "to expand thinking")
    add(h("app.editor.external"), "for external editor")
    add("/", "for commands")
    add("!", "to run bash")
    add("!!", "to run bash (no context)")
    add(h("app.message.followUp"), "to queue follow-up")
    add(h("app.message.dequeue"), "to edit all queued messages")
    add(h("app.clipboard.pasteImage"), "to paste image")
    add("drop files", "to attach")
    return pairs


def build_header(app: HeaderHost, notices: Sequence[str] = ()) -> HeaderContent:
    h = app.keybindings.hint
    mode: object = app.settings.get_quiet_startup() if app.settings is not None else False
    quiet = mode is True
    listing = mode != "header"  # "header" (pi 1.6.0) keeps the header, hides the resource listing
    summary = [(h("app.interrupt"), "interrupt")]
    clear_exit = "/".join(k for k in (h("app.clear"), h("app.exit")) if k)
    if clear_exit:
        summary.append((clear_exit, "clear/exit"))
    summary += [("/", "commands"), ("!", "bash")]
    expand = h("app.tools.expand")
    if expand:
        summary.append((expand, "more"))
    summary = [(key, what) for key, what in summary if key]
    custom_themes = [name for name in app.themes.names() if name not in ("dark", "light")]
    sections: list[tuple[str, Sequence[str]]] = [
        ("Context", resources.context_files(app)),
        ("Skills", [s.name for s in resources.skills(app)]),
        ("Prompts", [f"/{t.name}" for t in resources.prompt_templates(app)]),
        ("Extensions", resources.extension_paths(app)),
        ("Themes", custom_themes),
    ]
    return HeaderContent(
        version_line=f"pi v{__version__}",
        summary=summary,
        more_line=f"Press {expand} to show full startup help and loaded resources." if expand else None,
        hints=_hints(app),
        resources=sections if listing else [],
        notices=list(notices),
        quiet=quiet,
        tip=TIP,
    )


class StartupHeader:
    """The header part: the block at the top of the transcript and the notices under it."""

    def __init__(self, host: HeaderHost) -> None:
        self._host = host
        self.notices: list[str] = []
        """One-line notices under the header (the condensed changelog)."""

    def content(self) -> HeaderContent:
        return build_header(self._host, self.notices)

    def show(self) -> None:
        """Add the header to the transcript, or redraw the one there (after a setting, a keybinding
        or an extension's header changed)."""
        host = self._host
        block = StartupHeaderBlock(self.content(), override=host.ext.surface.header_override)
        transcript = host.transcript
        if block.key in {b.key for b in transcript.blocks}:
            existing = next(b for b in transcript.blocks if b.key == block.key)
            assert isinstance(existing, StartupHeaderBlock)
            existing.override = block.override
            existing.set_content(block.content)
            transcript.refresh_block(existing, immediate=True)
            return
        transcript.append_block(block)
