"""Coding-layer message kinds, their JSON form, and ``convert_to_llm`` (spec 30 §2.5, §2.6; 20 §2.1).

Four kinds extend the agent's message set: ``bashExecution`` (a user ``!cmd``), ``custom`` (an
extension-injected message that the LLM sees as a user message), ``branchSummary`` and
``compactionSummary`` (derived in memory from their own session entries, never stored as
``message`` entries). Each is an ``AgentCustomMessage`` subclass with a ``to_dict`` giving pi's
camelCase JSON, so ``pi_app.ai.codec.encode_line`` writes them like any L1 message.

``message_from_dict`` never raises: a role this version does not know (or a malformed message)
becomes an ``UnknownMessage`` that keeps its JSON verbatim and is never sent to the LLM.

The preface wording of the summary and bash conversions is ours; only the ``<summary>`` wrapping
is structural.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from pi_app.agent.types import AgentCustomMessage, AgentMessage, register_message_role
from pi_app.ai import codec
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserMessage,
)

L1_ROLES = frozenset({"user", "assistant", "toolResult"})

COMPACTION_SUMMARY_PREFIX = (
    "Earlier parts of this conversation were compacted to save context. "
    "This summary stands in for them:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The conversation returned here after exploring another branch. "
    "This summary describes that branch:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"


def _content_to_json(content: Any) -> Any:
    if isinstance(content, str):
        return content
    return [codec.to_json_value(block) for block in content or []]


def _content_from_json(content: Any) -> str | list[Any]:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return [codec.block_from_dict(b) for b in content]
    return ""


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = codec.to_json_value(value)


def _with_extra(out: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    for key, value in extra.items():
        out.setdefault(key, value)
    return out


@dataclass(kw_only=True)
class BashExecutionMessage(AgentCustomMessage):
    """The record of a user ``!cmd`` (``!!cmd`` sets ``exclude_from_context``)."""

    role: str = "bashExecution"  # type: ignore[misc]  # a field: the role is per instance (AgentCustomMessage)
    command: str = ""
    output: str = ""
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "command": self.command, "output": self.output}
        _put(out, "exitCode", self.exit_code)
        out["cancelled"] = self.cancelled
        out["truncated"] = self.truncated
        _put(out, "fullOutputPath", self.full_output_path)
        _put(out, "excludeFromContext", self.exclude_from_context)
        out["timestamp"] = self.timestamp
        return _with_extra(out, self.extra)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BashExecutionMessage:
        known = {
            "role",
            "command",
            "output",
            "exitCode",
            "cancelled",
            "truncated",
            "fullOutputPath",
            "excludeFromContext",
            "timestamp",
        }
        extra = {k: v for k, v in data.items() if k not in known}
        if "exitCode" in data and data["exitCode"] is None:
            extra["exitCode"] = None  # a signal-killed process: keep the explicit null
        return cls(
            command=str(data.get("command") or ""),
            output=str(data.get("output") or ""),
            exit_code=data.get("exitCode"),
            cancelled=bool(data.get("cancelled", False)),
            truncated=bool(data.get("truncated", False)),
            full_output_path=data.get("fullOutputPath"),
            exclude_from_context=data.get("excludeFromContext"),
            timestamp=_int(data.get("timestamp")),
            extra=extra,
        )


@dataclass(kw_only=True)
class CustomMessage(AgentCustomMessage):
    """An extension-injected message; sent to the LLM as a user message, ``details`` never sent."""

    role: str = "custom"  # type: ignore[misc]  # a field: the role is per instance (AgentCustomMessage)
    custom_type: str = ""
    content: str | list[Any] = ""
    display: bool = True
    details: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "role": self.role,
            "customType": self.custom_type,
            "content": _content_to_json(self.content),
            "display": self.display,
        }
        _put(out, "details", self.details)
        out["timestamp"] = self.timestamp
        return _with_extra(out, self.extra)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CustomMessage:
        known = {"role", "customType", "content", "display", "details", "timestamp"}
        return cls(
            custom_type=str(data.get("customType") or ""),
            content=_content_from_json(data.get("content")),
            display=bool(data.get("display", True)),
            details=data.get("details"),
            timestamp=_int(data.get("timestamp")),
            extra={k: v for k, v in data.items() if k not in known},
        )


@dataclass(kw_only=True)
class BranchSummaryMessage(AgentCustomMessage):
    """In-memory view of a ``branch_summary`` entry."""

    role: str = "branchSummary"  # type: ignore[misc]  # a field: the role is per instance (AgentCustomMessage)
    summary: str = ""
    from_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "summary": self.summary,
            "fromId": self.from_id,
            "timestamp": self.timestamp,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BranchSummaryMessage:
        return cls(
            summary=str(data.get("summary") or ""),
            from_id=str(data.get("fromId") or ""),
            timestamp=_int(data.get("timestamp")),
        )


@dataclass(kw_only=True)
class CompactionSummaryMessage(AgentCustomMessage):
    """In-memory view of a ``compaction`` entry."""

    role: str = "compactionSummary"  # type: ignore[misc]  # a field: the role is per instance (AgentCustomMessage)
    summary: str = ""
    tokens_before: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "summary": self.summary,
            "tokensBefore": self.tokens_before,
            "timestamp": self.timestamp,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CompactionSummaryMessage:
        return cls(
            summary=str(data.get("summary") or ""),
            tokens_before=_int(data.get("tokensBefore")),
            timestamp=_int(data.get("timestamp")),
        )


@dataclass(kw_only=True)
class SystemMessage(AgentCustomMessage):
    """pi 1.6.0's ``role: "system"`` message: the prompt and the tool declarations a session starts
    with, announced to JSON/RPC clients before the first request (never sent as a message: the
    prompt travels as the request's system prompt). Read back from a 1.6.0 file it stays an
    ``UnknownMessage``, kept verbatim."""

    role: str = "system"  # type: ignore[misc]  # a field: the role is per instance (AgentCustomMessage)
    content: str = ""
    sections: dict[str, str | None] | None = None
    tools_added: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.sections is not None:
            out["sections"] = dict(self.sections)
        out["timestamp"] = self.timestamp
        if self.tools_added is not None:
            out["toolsAdded"] = list(self.tools_added)
        return out


@dataclass(kw_only=True)
class UnknownMessage(AgentCustomMessage):
    """A message whose role this version does not know (or could not read); kept verbatim."""

    role: str = "unknown"  # type: ignore[misc]  # a field: the role is per instance (AgentCustomMessage)
    raw: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)


CodingMessage: TypeAlias = (
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | UnknownMessage
)

_CODING_CLASSES: dict[str, Any] = {
    "bashExecution": BashExecutionMessage,
    "custom": CustomMessage,
    "branchSummary": BranchSummaryMessage,
    "compactionSummary": CompactionSummaryMessage,
}
for _role, _cls in _CODING_CLASSES.items():
    register_message_role(_role, _cls)


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value:
        return int(value)
    return 0


def message_to_dict(msg: AgentMessage | dict[str, Any]) -> dict[str, Any]:
    """pi's JSON shape of any agent message (L1 roles via the codec)."""
    if isinstance(msg, dict):
        return dict(msg)
    to_dict = getattr(msg, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return codec.to_dict(msg)


def message_from_dict(data: Any) -> AgentMessage:
    """Inverse of :func:`message_to_dict`. Never raises: unreadable data becomes ``UnknownMessage``."""
    if not isinstance(data, dict):
        return UnknownMessage(raw={"value": data})
    role = data.get("role")
    try:
        if role in L1_ROLES:
            return codec.message_from_dict(data)
        if role == "hookMessage":  # legacy v2 name of ``custom``
            return CustomMessage.from_dict(data)
        cls = _CODING_CLASSES.get(role) if isinstance(role, str) else None
        if cls is not None:
            return cls.from_dict(data)
    except Exception:
        pass
    return UnknownMessage(
        role=str(role) if isinstance(role, str) else "unknown",
        raw=dict(data),
        timestamp=_int(data.get("timestamp")),
    )


def bash_execution_to_text(msg: BashExecutionMessage) -> str:
    text = f"I ran this shell command: `{msg.command}`\n"
    if msg.output:
        text += f"```\n{msg.output}\n```"
    else:
        text += "(the command printed nothing)"
    if msg.cancelled:
        text += "\n\n(the command was cancelled before it finished)"
    elif msg.exit_code is not None and msg.exit_code != 0:
        text += f"\n\nIt exited with code {msg.exit_code}."
    if msg.truncated and msg.full_output_path:
        text += f"\n\n[The output above was truncated. The full output is in {msg.full_output_path}]"
    return text


def _user_text(text: str, timestamp: int) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def _as_blocks(content: str | list[Any]) -> list[TextContent | ImageContent]:
    if isinstance(content, str):
        return [TextContent(text=content)]
    return [b for b in content if isinstance(b, TextContent | ImageContent)]


def convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """Map agent messages to the L1 messages a provider sees (spec 30 §2.6)."""
    out: list[Message] = []
    for msg in messages:
        match msg:
            case UserMessage() | AssistantMessage() | ToolResultMessage():
                out.append(msg)
            case BashExecutionMessage():
                if not msg.exclude_from_context:
                    out.append(_user_text(bash_execution_to_text(msg), msg.timestamp))
            case CustomMessage():
                out.append(UserMessage(content=_as_blocks(msg.content), timestamp=msg.timestamp))
            case BranchSummaryMessage():
                out.append(
                    _user_text(BRANCH_SUMMARY_PREFIX + msg.summary + BRANCH_SUMMARY_SUFFIX, msg.timestamp)
                )
            case CompactionSummaryMessage():
                text = COMPACTION_SUMMARY_PREFIX + msg.summary + COMPACTION_SUMMARY_SUFFIX
                out.append(_user_text(text, msg.timestamp))
            case _:
                continue  # unknown kinds never reach the model
    return out
