"""RPC envelopes: the command models, their parsing, and the response shapes (spec 60 §2.9, R-RPC-10).

Every command is a ``msgspec.Struct`` with camelCase encoded names (``streamingBehavior``,
``modelId`` …), filled by ``pi_app.ai.util.structs.convert`` with pydantic's lax coercion and error
texts (the commands were pydantic models until issue 20: an RPC client's first prompt must not wait
for pydantic's import); ``parse_command`` turns one raw record into a command or a ``CommandError``
whose response already carries the request's ``id`` and command name:

- not JSON / not an object  -> ``command: "parse"``, ``Failed to parse command: <detail>``
- unknown ``type``          -> ``Unknown command: <type>``
- missing or invalid fields -> ``Invalid <type> command: <field>: <problem>; …``

Extra keys are allowed (clients may send more than this version knows). Responses are plain dicts:
``data`` is omitted when a command returns nothing and written as ``null`` when it returns None on
purpose (``cycle_model`` with nothing to cycle).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from pi_app.ai.util.sanitize import loads_clean
from pi_app.ai.util.structs import ConversionError, UnknownFields, convert

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]

NO_DATA = object()  # a handler result meaning "omit the data key"


class _Record(msgspec.Struct, rename="camel", dict=True):
    """camelCase keys, snake_case attributes (Python names accepted too), unknown keys kept."""

    unknown_fields: ClassVar[UnknownFields] = "allow"
    populate_by_name: ClassVar[bool] = True


class _Command(_Record, kw_only=True):  # kw_only is per class: every command repeats it
    id: str | int | None = None
    type: str


class ImagePayload(_Record, kw_only=True):
    type: Literal["image"] = "image"
    data: str
    mime_type: str


class PromptCommand(_Command, kw_only=True):
    message: str
    images: list[ImagePayload] | None = None
    streaming_behavior: Literal["steer", "followUp"] | None = None


class SteerCommand(_Command, kw_only=True):
    message: str
    images: list[ImagePayload] | None = None


class NewSessionCommand(_Command, kw_only=True):
    parent_session: str | None = None


class SetModelCommand(_Command, kw_only=True):
    provider: str
    model_id: str


class SetThinkingLevelCommand(_Command, kw_only=True):
    level: ThinkingLevel


class SetQueueModeCommand(_Command, kw_only=True):
    mode: QueueMode


class CompactCommand(_Command, kw_only=True):
    custom_instructions: str | None = None


class EnabledCommand(_Command, kw_only=True):
    enabled: bool


class BashCommand(_Command, kw_only=True):
    command: str
    exclude_from_context: bool = False


class ExportHtmlCommand(_Command, kw_only=True):
    output_path: str | None = None


class SwitchSessionCommand(_Command, kw_only=True):
    session_path: str


class ForkCommand(_Command, kw_only=True):
    entry_id: str


class GetEntriesCommand(_Command, kw_only=True):
    since: str | None = None


class NavigateTreeCommand(_Command, kw_only=True):
    """This product's command (pi 1.6.0 has none): move to another entry of the tree, and with
    ``restoreFiles`` put the files back as they were there (``overwrite``: files changed outside
    pi too)."""

    target_id: str
    summarize: bool = False
    custom_instructions: str | None = None
    restore_files: Literal["keep", "restore", "overwrite"] = "keep"


class SetSessionNameCommand(_Command, kw_only=True):
    name: str


class ExtensionUIResponse(_Command, kw_only=True):
    id: str | int  # required here: it names the pending dialog
    value: str | None = None
    confirmed: bool | None = None
    cancelled: bool | None = None


COMMAND_MODELS: dict[str, type[_Command]] = {
    "prompt": PromptCommand,
    "steer": SteerCommand,
    "follow_up": SteerCommand,
    "abort": _Command,
    "clear_queue": _Command,
    "new_session": NewSessionCommand,
    "get_state": _Command,
    "get_messages": _Command,
    "set_model": SetModelCommand,
    "cycle_model": _Command,
    "get_available_models": _Command,
    "set_thinking_level": SetThinkingLevelCommand,
    "cycle_thinking_level": _Command,
    "get_available_thinking_levels": _Command,
    "set_steering_mode": SetQueueModeCommand,
    "set_follow_up_mode": SetQueueModeCommand,
    "compact": CompactCommand,
    "set_auto_compaction": EnabledCommand,
    "set_auto_retry": EnabledCommand,
    "abort_retry": _Command,
    "bash": BashCommand,
    "abort_bash": _Command,
    "get_session_stats": _Command,
    "export_html": ExportHtmlCommand,
    "switch_session": SwitchSessionCommand,
    "fork": ForkCommand,
    "clone": _Command,
    "get_fork_messages": _Command,
    "get_entries": GetEntriesCommand,
    "get_tree": _Command,
    "navigate_tree": NavigateTreeCommand,
    "get_last_assistant_text": _Command,
    "set_session_name": SetSessionNameCommand,
    "get_commands": _Command,
    "extension_ui_response": ExtensionUIResponse,
}


class CommandError(Exception):
    """A record that cannot become a command; ``response`` is the error line to send."""

    def __init__(self, response: dict[str, Any]) -> None:
        super().__init__(response["error"])
        self.response = response


def success(command: str, request_id: str | int | None, data: Any = NO_DATA) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if request_id is not None:
        out["id"] = request_id
    out.update(type="response", command=command, success=True)
    if data is not NO_DATA:
        out["data"] = data
    return out


def failure(command: str, request_id: str | int | None, error: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if request_id is not None:
        out["id"] = request_id
    out.update(type="response", command=command, success=False, error=error)
    return out


def parse_command(record: bytes) -> _Command:
    """One record -> a validated command, or ``CommandError`` with the error response."""
    try:
        raw = loads_clean(record.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise CommandError(failure("parse", None, f"Failed to parse command: {exc}")) from None
    if not isinstance(raw, dict):
        raise CommandError(failure("parse", None, "Failed to parse command: expected a JSON object"))
    request_id = raw.get("id")
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind:
        raise CommandError(failure("parse", request_id, "Failed to parse command: missing field 'type'"))
    model = COMMAND_MODELS.get(kind)
    if model is None:
        raise CommandError(failure(kind, request_id, f"Unknown command: {kind}"))
    try:
        return convert(raw, model)
    except ConversionError as exc:
        raise CommandError(failure(kind, request_id, f"Invalid {kind} command: {exc}")) from None


__all__ = [
    "COMMAND_MODELS",
    "NO_DATA",
    "BashCommand",
    "CommandError",
    "CompactCommand",
    "EnabledCommand",
    "ExportHtmlCommand",
    "ExtensionUIResponse",
    "ForkCommand",
    "GetEntriesCommand",
    "ImagePayload",
    "NewSessionCommand",
    "PromptCommand",
    "SetModelCommand",
    "SetQueueModeCommand",
    "SetSessionNameCommand",
    "SetThinkingLevelCommand",
    "SteerCommand",
    "SwitchSessionCommand",
    "failure",
    "parse_command",
    "success",
]
