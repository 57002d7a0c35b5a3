"""``AgentSession``: the product core joining an ``Agent`` to a session file, settings and models.

Every shell (the Textual app, print/JSON/RPC modes, SDK hosts) drives one ``AgentSession``:
``prompt``/``steer``/``follow_up``/``abort``, model and thinking-level changes, and ``subscribe`` to
the event superset of decision D-2 (agent events plus session events from
``pi_app.coding.session_events``). The session persists every finished message to the session
file as it arrives, so a crash loses at most the message being written.

The session is confined to the asyncio loop it was created on (decision D-13): the TUI runs it in
a worker thread and calls in with ``run_coroutine_threadsafe`` / ``call_soon_threadsafe``.

Listener exceptions are logged and never stop persistence, other listeners or the run (R-SEAM-07).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

from pi_app.agent import Agent
from pi_app.ai.types import AssistantMessage, ImageContent, Model, TextContent, UserMessage, now_ms
from pi_app.coding.session_events import QueueUpdateEvent, SessionInfoChangedEvent, ThinkingLevelChangedEvent

log = logging.getLogger(__name__)

SessionListener = Callable[[Any], Any]

PERSISTED_ROLES = ("user", "assistant", "toolResult", "bashExecution", "custom")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


class NoModelError(RuntimeError):
    """The session has no usable model; the message says how to configure one (decision D-31)."""


def clamp_level(model: Model | None, level: str) -> str:
    """The level the model supports that is closest to ``level`` (decision D-18)."""
    if model is None:
        return level
    try:
        from pi_app.ai.thinking import clamp_thinking_level
    except ImportError:  # pragma: no cover - L1 thinking helpers not present yet
        return level if model.reasoning else "off"
    return clamp_thinking_level(model, level)  # type: ignore[arg-type]


class AgentSession:
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: Any,
        settings_manager: Any,
        model_registry: Any = None,
        cwd: str,
        tool_definitions: Sequence[Any] = (),
        no_model_message: str | None = None,
        resource_loader: Any = None,
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings_manager = settings_manager
        self.model_registry = model_registry
        self.resource_loader = resource_loader
        self.cwd = cwd
        self.tool_definitions = list(tool_definitions)
        self.no_model_message = no_model_message or "No model configured."
        self._listeners: list[SessionListener] = []
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)
        self._disposed = False

    # -- state ----------------------------------------------------------------------------------

    @property
    def messages(self) -> list[Any]:
        return self.agent.state.messages

    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self.agent.state.is_streaming

    @property
    def session_id(self) -> str:
        return self.session_manager.get_session_id()

    @property
    def session_file(self) -> str | None:
        return self.session_manager.get_session_file()

    @property
    def session_name(self) -> str | None:
        return self.session_manager.get_session_name()

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    # -- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            try:
                self._listeners.remove(listener)
            except ValueError:
                pass

        return unsubscribe

    async def _emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("session listener failed on %s", getattr(event, "type", event))

    async def _on_agent_event(self, event: Any, signal: Any) -> None:
        if event.type == "message_end":
            self._persist(event.message)
        await self._emit(event)

    def _persist(self, message: Any) -> None:
        if getattr(message, "role", None) not in PERSISTED_ROLES:
            return
        try:
            self.session_manager.append_message(message)
        except Exception:
            log.exception("could not save the message to the session file")

    def _emit_soon(self, event: Any) -> None:
        """Deliver an event from synchronous code: sync listeners run now, async ones are scheduled."""
        for listener in list(self._listeners):
            try:
                result = listener(event)
            except Exception:
                log.exception("session listener failed on %s", event.type)
                continue
            if inspect.isawaitable(result):
                try:
                    asyncio.get_running_loop()
                    asyncio.ensure_future(result)
                except RuntimeError:  # no loop to run it on: drop it cleanly
                    if inspect.iscoroutine(result):
                        result.close()

    # -- runs -----------------------------------------------------------------------------------

    def _user_message(self, text: str, images: Sequence[ImageContent] | None = None) -> UserMessage:
        return UserMessage(content=[TextContent(text=text), *(images or [])], timestamp=now_ms())

    async def prompt(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Run one prompt to completion. In-run failures end up in the transcript, not as exceptions."""
        if self.agent.state.model is None:
            raise NoModelError(self.no_model_message)
        await self.agent.prompt(self._user_message(text, images))

    def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        self.agent.steer(self._user_message(text, images))
        self._emit_soon(self._queue_event())

    def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        self.agent.follow_up(self._user_message(text, images))
        self._emit_soon(self._queue_event())

    def clear_queue(self) -> list[str]:
        removed = self.agent.clear_all_queues()
        self._emit_soon(self._queue_event())
        return [_text_of(m) for m in removed]

    def _queue_event(self) -> QueueUpdateEvent:
        steering, follow_ups = self.agent.queued_messages()
        return QueueUpdateEvent([_text_of(m) for m in steering], [_text_of(m) for m in follow_ups])

    def abort(self) -> None:
        self.agent.abort()

    async def wait_for_idle(self) -> None:
        await self.agent.wait_for_idle()

    # -- model and thinking -----------------------------------------------------------------------

    async def set_model(self, model: Model, *, persist_default: bool = True) -> None:
        self.agent.state.model = model
        self.session_manager.append_model_change(model.provider, model.id)
        if persist_default:
            try:
                self.settings_manager.set_default_model_and_provider(model.provider, model.id)
            except Exception:
                log.exception("could not save the default model")
        clamped = clamp_level(model, self.agent.state.thinking_level)
        if clamped != self.agent.state.thinking_level:
            self.set_thinking_level(clamped)

    def set_thinking_level(self, level: str) -> None:
        clamped = clamp_level(self.agent.state.model, level)
        if clamped == self.agent.state.thinking_level:
            return
        self.agent.state.thinking_level = clamped  # type: ignore[assignment]
        self.session_manager.append_thinking_level_change(clamped)
        self._emit_soon(ThinkingLevelChangedEvent(clamped))

    def set_session_name(self, name: str) -> None:
        self.session_manager.append_session_info(name)
        self._emit_soon(SessionInfoChangedEvent(self.session_manager.get_session_name()))

    # -- queries ----------------------------------------------------------------------------------

    def get_last_assistant_message(self) -> AssistantMessage | None:
        for message in reversed(self.messages):
            if getattr(message, "role", None) == "assistant":
                return message
        return None

    def get_last_assistant_text(self) -> str | None:
        message = self.get_last_assistant_message()
        if message is None:
            return None
        texts = [b.text for b in message.content if isinstance(b, TextContent)]
        return "\n".join(texts) if texts else ""

    def dispose(self) -> None:
        if self._disposed:
            return
        self._disposed = True
        self.agent.abort()
        self._unsubscribe_agent()
        self._listeners.clear()


def _text_of(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if isinstance(b, TextContent))
