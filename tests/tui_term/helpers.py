"""Small apps and message builders for the terminal-level widget tests."""

from __future__ import annotations

from textual.app import App, ComposeResult

from pi_app.ai.types import AssistantMessage, TextContent, ThinkingContent
from pi_app.tui.transcript.view import Transcript


class TranscriptApp(App[None]):
    """Nothing but a transcript filling the screen."""

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)


def assistant(text: str, thinking: str | None = None, stop_reason: str = "stop") -> AssistantMessage:
    content: list[object] = []
    if thinking is not None:
        content.append(ThinkingContent(thinking=thinking))
    content.append(TextContent(text=text))
    return AssistantMessage(content=content, stop_reason=stop_reason)  # type: ignore[arg-type]


def fill(transcript: Transcript, messages: int) -> None:
    """``messages`` finished messages: alternating user prompts and markdown answers."""
    for i in range(messages // 2):
        transcript.add_user(f"question {i}: how does part {i} work?")
        transcript.end_assistant(
            assistant(f"Answer **{i}**.\n\n- point one\n- point two\n\n```python\nx = {i}\n```\n\nDone {i}.")
        )
    if messages % 2:
        transcript.add_user("one more")
