"""Which files a stretch of conversation read and changed, and how that is appended to summaries.

Only ``read``, ``write`` and ``edit`` tool calls with a string ``path`` argument count; bash, grep and
friends are ignored (spec 30 R-CMP-14).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.types import ToolCall


@dataclass
class FileOperations:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_details(self, details: Any) -> None:
        """Carry over the lists stored in an earlier compaction/branch summary's ``details``."""
        if not isinstance(details, dict):
            return
        read, modified = details.get("readFiles"), details.get("modifiedFiles")
        if isinstance(read, list):
            self.read.update(p for p in read if isinstance(p, str))
        if isinstance(modified, list):
            self.edited.update(p for p in modified if isinstance(p, str))


def extract_file_ops(messages: Iterable[Any], ops: FileOperations | None = None) -> FileOperations:
    ops = ops or FileOperations()
    for message in messages:
        if getattr(message, "role", None) != "assistant":
            continue
        for block in message.content or []:
            if not isinstance(block, ToolCall):
                continue
            path = block.arguments.get("path") if isinstance(block.arguments, dict) else None
            if not isinstance(path, str) or not path:
                continue
            if block.name == "read":
                ops.read.add(path)
            elif block.name == "write":
                ops.written.add(path)
            elif block.name == "edit":
                ops.edited.add(path)
    return ops


def compute_file_lists(ops: FileOperations) -> tuple[list[str], list[str]]:
    """(read_files, modified_files): modified = edited ∪ written; read excludes modified."""
    modified = ops.edited | ops.written
    return sorted(ops.read - modified), sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""
