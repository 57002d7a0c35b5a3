"""Streaming output of a shell command: bounded tail, totals, full-output file (R-BASH-14..19).

Chunks are decoded incrementally (a character split across chunks decodes correctly; invalid bytes
become U+FFFD). Only a rolling tail of the decoded text is kept, so memory stays bounded for any
output size. Once the output outgrows the limits, every byte from the beginning is written to
``<tmp>/pi-bash-<16 hex>.log`` (mode 0600, output may hold secrets; never deleted by pi, so the
model can ``read`` it later). ``snapshot()`` gives the tail-truncated text plus the notice data.
"""

from __future__ import annotations

import codecs
import os
import re
import secrets
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from pi_app.coding.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_tail,
    utf8_len,
)

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufff9-\ufffb]")


def sanitize_output(text: str) -> str:
    """For display/storage of user commands: no ANSI escapes, no control characters, no ``\\r``."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def create_full_output_file(prefix: str = "pi-bash-") -> tuple[int, str]:
    """A fresh ``<tmp>/<prefix><16 hex>.log`` opened for writing with mode 0600."""
    while True:
        path = os.path.join(tempfile.gettempdir(), f"{prefix}{secrets.token_hex(8)}.log")
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), path
        except FileExistsError:
            continue


@dataclass
class OutputSnapshot:
    text: str  # the kept tail (may be empty)
    truncation: TruncationResult
    full_output_path: str | None
    last_line_bytes: int

    @property
    def truncated(self) -> bool:
        return self.truncation.truncated

    def notice(self) -> str | None:
        """The footer naming what is shown and where the rest is, or None when nothing was cut."""
        t = self.truncation
        if not t.truncated:
            return None
        end = t.total_lines
        where = f"Full output: {self.full_output_path}"
        if t.last_line_partial:
            return (
                f"[Showing last {format_size(t.output_bytes)} of line {end} "
                f"(line is {format_size(self.last_line_bytes)}). {where}]"
            )
        start = end - t.output_lines + 1
        if t.truncated_by == "lines":
            return f"[Showing lines {start}-{end} of {t.total_lines}. {where}]"
        return f"[Showing lines {start}-{end} of {t.total_lines} ({format_size(DEFAULT_MAX_BYTES)} limit). {where}]"

    def details(self) -> dict | None:
        if not self.truncated:
            return None
        return {"truncation": self.truncation.to_dict(), "fullOutputPath": self.full_output_path}


class OutputAccumulator:
    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        sanitize: Callable[[str], str] | None = None,
        file_prefix: str = "pi-bash-",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._sanitize = sanitize
        self._file_prefix = file_prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._tail = ""
        self._pending_raw: list[bytes] = []
        self._fd: int | None = None
        self.full_output_path: str | None = None
        self.total_bytes = 0
        self.newlines = 0
        self.ends_with_newline = True  # vacuously, for empty output
        self._current_line_bytes = 0
        self._last_complete_line_bytes = 0
        self.empty = True

    @property
    def last_line_bytes(self) -> int:
        """UTF-8 size of the last line (a trailing newline does not start a new line)."""
        return self._last_complete_line_bytes if self.ends_with_newline else self._current_line_bytes

    @property
    def total_lines(self) -> int:
        if self.empty:
            return 0
        return self.newlines + (0 if self.ends_with_newline else 1)

    def append(self, chunk: bytes) -> str:
        """Add raw bytes; returns the decoded (and, if configured, sanitised) text of this chunk."""
        text = self._decoder.decode(chunk)
        return self._add(text, chunk)

    def finish(self) -> str:
        """Flush the decoder (a dangling partial character becomes U+FFFD)."""
        text = self._decoder.decode(b"", final=True)
        return self._add(text, b"") if text else ""

    def _add(self, text: str, raw: bytes) -> str:
        if self._sanitize is not None:
            text = self._sanitize(text)
            raw = text.encode("utf-8", "surrogatepass")
        if raw:
            self._store_raw(raw)
        if not text:
            return text
        self.empty = False
        self.total_bytes += utf8_len(text)
        self.newlines += text.count("\n")
        self.ends_with_newline = text.endswith("\n")
        *complete, rest = text.split("\n")
        for part in complete:
            self._last_complete_line_bytes = self._current_line_bytes + utf8_len(part)
            self._current_line_bytes = 0
        self._current_line_bytes += utf8_len(rest)
        self._tail += text
        self._trim_tail()
        if self._fd is None and (self.total_bytes > self.max_bytes or self.total_lines > self.max_lines):
            self._open_file()
        return text

    def _trim_tail(self) -> None:
        keep = 2 * self.max_bytes
        if len(self._tail) <= 2 * keep:
            return
        cut = len(self._tail) - keep
        newline = self._tail.rfind("\n", 0, cut)
        self._tail = self._tail[newline + 1 :] if newline >= 0 else self._tail[cut:]

    def _store_raw(self, raw: bytes) -> None:
        if self._fd is not None:
            os.write(self._fd, raw)
        else:
            self._pending_raw.append(raw)

    def _open_file(self) -> None:
        self._fd, self.full_output_path = create_full_output_file(self._file_prefix)
        for raw in self._pending_raw:
            os.write(self._fd, raw)
        self._pending_raw.clear()

    def snapshot(self) -> OutputSnapshot:
        tail = self._tail
        body = tail[:-1] if tail.endswith("\n") else tail
        extra = len(tail) - len(body)
        truncation = truncate_tail(body, self.max_lines, self.max_bytes - extra)
        truncation.max_bytes = self.max_bytes
        truncation.total_lines = self.total_lines
        truncation.total_bytes = self.total_bytes
        truncation.content += "\n" * extra
        truncation.output_bytes += extra
        if truncation.truncated:
            if self._fd is None:
                self._open_file()
        return OutputSnapshot(truncation.content, truncation, self.full_output_path, self.last_line_bytes)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
