"""The user-input pipeline in front of every prompt (spec 40 §2.8, R-PRM-08, R-EXT-41, R-EXT-48).

Order: extension command dispatch -> ``input`` event -> ``/skill:name`` expansion -> prompt
template expansion. ``AgentSession.prompt`` (and steer/follow-up, which use the same expansion)
call ``prepare_user_input`` and send ``result.text``/``result.images`` unless ``result.handled``.

Text an extension sends with ``send_user_message`` skips command dispatch and expansion unless it
asked for ``expand_prompt_templates=True``; its ``input`` event has ``source="extension"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_app.coding.resources.prompt_templates import PromptTemplate, expand_prompt_template
from pi_app.coding.resources.skills import Skill, expand_skill_command


class CommandNotQueueableError(ValueError):
    """An extension command typed while the agent streams cannot be queued (R-EXT-48)."""


@dataclass
class PreparedInput:
    """A prompt after the ``input`` handlers: handled by one of them, or the text and images to send."""

    handled: bool
    text: str
    images: list[Any] | None = None


async def prepare_user_input(
    text: str,
    images: list[Any] | None = None,
    *,
    runner: Any = None,
    skills: Sequence[Skill] = (),
    templates: Sequence[PromptTemplate] = (),
    source: str = "interactive",
    streaming_behavior: str | None = None,
    dispatch_commands: bool = True,
    expand: bool = True,
    enable_skill_commands: bool = True,
) -> PreparedInput:
    """Run the pipeline; ``handled=True`` means nothing is to be sent to the agent."""
    if dispatch_commands and runner is not None and runner.parse_command(text) is not None:
        if streaming_behavior is not None:
            name = text[1:].split(" ", 1)[0]
            raise CommandNotQueueableError(
                f"/{name} is an extension command and cannot be queued; run it when the agent is idle"
            )
        await runner.execute_command(text)
        return PreparedInput(True, text, images)
    if runner is not None and runner.has_handlers("input"):
        outcome = await runner.emit_input(text, images, source, streaming_behavior)
        if outcome.action == "handled":
            return PreparedInput(True, outcome.text, outcome.images)
        text, images = outcome.text, outcome.images
    if expand:

        def skill_error(skill: Skill, exc: Exception) -> None:
            if runner is not None:
                runner._report(skill.file_path, "skill_expansion", exc)

        text = expand_skill_command(text, list(skills), enabled=enable_skill_commands, on_error=skill_error)
        text = expand_prompt_template(text, list(templates))
    return PreparedInput(False, text, images)
