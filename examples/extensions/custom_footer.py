"""A custom footer: model, thinking level, context use and git branch on one line.

``ctx.ui.set_footer(factory)`` replaces the built-in footer in the TUI; the factory receives
``(app, theme, footer_data)`` and returns a widget (Textual is imported inside the factory, which
only the TUI ever calls). ``/footer`` switches between this footer and the built-in one. In print
and JSON modes nothing is shown.
"""

from __future__ import annotations

from typing import Any

from pi_app.ext import ExtensionAPI


def footer_text(ctx: Any, footer_data: Any = None) -> str:
    model = ctx.model
    parts = [
        f"{model.provider}/{model.id}" if model is not None else "no model",
        f"thinking: {ctx.thinking_level}",
    ]
    usage = ctx.get_context_usage()
    if usage is not None and usage.percent is not None:
        parts.append(f"context {usage.percent:.0f}%")
    branch = getattr(footer_data, "git_branch", None) if footer_data is not None else None
    if branch:
        parts.append(f"git: {branch}")
    return "  |  ".join(parts)


def setup(pi: ExtensionAPI) -> None:
    enabled = True

    def make_factory(ctx: Any):
        def factory(app: Any, theme: Any, footer_data: Any) -> Any:
            from textual.widgets import Static

            class ExampleFooter(Static):
                def on_mount(self) -> None:
                    self.set_interval(1.0, self.refresh_text)
                    self.refresh_text()

                def refresh_text(self) -> None:
                    self.update(footer_text(ctx, footer_data))

            return ExampleFooter(id="example-footer")

        return factory

    @pi.on("session_start")
    def install(event, ctx) -> None:
        if enabled:
            ctx.ui.set_footer(make_factory(ctx))

    async def toggle(args: str, ctx) -> None:
        nonlocal enabled
        enabled = not enabled
        ctx.ui.set_footer(make_factory(ctx) if enabled else None)
        ctx.ui.notify("Custom footer on" if enabled else "Built-in footer restored", "info")

    pi.register_command("footer", handler=toggle, description="Toggle the example footer")
