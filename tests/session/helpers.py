"""Small builders shared by the session tests."""

from __future__ import annotations

import os
from pathlib import Path

from pi_app.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_app.coding.session.storage import JsonlSessionStorage, default_session_storage

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PI_REFERENCE = FIXTURES / "pi-reference"


def user(text: str, ts: int = 1_700_000_000_000) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=ts)


def assistant(
    text: str = "ok",
    *,
    tool_calls: list[ToolCall] | None = None,
    stop_reason: str = "stop",
    total_tokens: int = 0,
    ts: int = 1_700_000_000_001,
    error: str | None = None,
) -> AssistantMessage:
    content: list = [TextContent(text=text)] if text else []
    content += tool_calls or []
    return AssistantMessage(
        content=content,
        api="openai-completions",
        provider="fake",
        model="fake-model",
        usage=Usage(input=total_tokens, total_tokens=total_tokens),
        stop_reason=stop_reason,  # type: ignore[arg-type]
        timestamp=ts,
        error_message=error,
    )


def tool_result(
    call_id: str, text: str, name: str = "bash", ts: int = 1_700_000_000_002
) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)], is_error=False, timestamp=ts
    )


class StoredFile:
    """A session file reached through the test's default storage (JSONL file or SQLite row), with
    the few ``Path`` methods the session tests use; pass it wherever a path goes."""

    def __init__(self, path: str | Path) -> None:
        self.path = os.path.abspath(str(path))

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"StoredFile({self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoredFile | str | Path) and str(other) == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    def exists(self) -> bool:
        return default_session_storage().exists(self.path)

    def read_text(self) -> str:
        text = default_session_storage().load(self.path)
        if text is None:
            raise FileNotFoundError(self.path)
        return text

    def read_bytes(self) -> bytes:
        return self.read_text().encode("utf-8", "surrogateescape")

    def write_text(self, text: str) -> None:
        default_session_storage().rewrite(self.path, text)

    def write_bytes(self, data: bytes) -> None:
        self.write_text(data.decode("utf-8", "surrogateescape"))

    def set_mtime(self, when: float) -> None:
        storage = default_session_storage()
        if isinstance(storage, JsonlSessionStorage):
            os.utime(self.path, (when, when))
        else:
            storage.touch(self.path, when)  # type: ignore[attr-defined]

    def append_text(self, text: str) -> None:
        default_session_storage().append(self.path, text)


def stored(path: str | Path) -> StoredFile:
    return StoredFile(path)


def stored_files(directory: str | Path, pattern: str = "*.jsonl") -> list[StoredFile]:
    """The stored sessions of ``directory`` whose name matches ``pattern`` (shell-style)."""
    import fnmatch

    storage = default_session_storage()
    return sorted(
        (
            StoredFile(p)
            for p in storage.list_files(str(directory), suffix="")
            if fnmatch.fnmatch(os.path.basename(p), pattern)
        ),
        key=str,
    )


def copy_in(source: str | Path, target: str | Path) -> StoredFile:
    """Put a fixture file's bytes into the store at ``target``."""
    stored_file = StoredFile(target)
    stored_file.write_bytes(Path(source).read_bytes())
    return stored_file
