"""Fake operation objects for the seven built-in tools (spec 50 §2.5, spec 70 R-SEAM-06, D-37).

``FakeWorkspace`` is a dict of ``absolute path -> text`` standing in for a container or a remote
machine. ``operations()`` returns one object per tool, each implementing that tool's operations
protocol over the dict and recording every call in ``workspace.calls``; nothing touches the real
file system or starts a process.
"""

from __future__ import annotations

import fnmatch
import posixpath
from dataclasses import dataclass, field
from typing import Any

from pi_app.coding.tools.grep import GrepMatch


@dataclass
class FakeWorkspace:
    files: dict[str, str] = field(default_factory=dict)
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (tool, operation, target)
    commands: dict[str, str] = field(default_factory=dict)  # bash command -> output

    def _dirs(self) -> set[str]:
        out: set[str] = set()
        for path in self.files:
            parent = posixpath.dirname(path)
            while parent not in out and parent != "/":
                out.add(parent)
                parent = posixpath.dirname(parent)
        return out

    def note(self, tool: str, operation: str, target: str) -> None:
        self.calls.append((tool, operation, target))

    def operations(self) -> dict[str, Any]:
        return {
            "read": _Read(self),
            "write": _Write(self),
            "edit": _Edit(self),
            "bash": _Bash(self),
            "grep": _Grep(self),
            "find": _Find(self),
            "ls": _Ls(self),
        }


class _Op:
    tool = ""

    def __init__(self, ws: FakeWorkspace) -> None:
        self.ws = ws

    def _need(self, path: str) -> str:
        self.ws.note(self.tool, "access", path)
        if path not in self.ws.files:
            raise FileNotFoundError(2, "No such file or directory", path)
        return self.ws.files[path]


class _Read(_Op):
    tool = "read"

    def access(self, absolute_path: str) -> None:
        self._need(absolute_path)

    def read_file(self, absolute_path: str) -> bytes:
        return self._need(absolute_path).encode()


class _Write(_Op):
    tool = "write"

    def mkdir(self, directory: str) -> None:
        self.ws.note("write", "mkdir", directory)

    def write_file(self, absolute_path: str, content: str) -> None:
        self.ws.note("write", "write_file", absolute_path)
        self.ws.files[absolute_path] = content


class _Edit(_Op):
    tool = "edit"

    def access(self, absolute_path: str) -> None:
        self._need(absolute_path)

    def read_file(self, absolute_path: str) -> bytes:
        return self._need(absolute_path).encode()

    def write_file(self, absolute_path: str, content: str) -> None:
        self.ws.note("edit", "write_file", absolute_path)
        self.ws.files[absolute_path] = content


class _Bash(_Op):
    tool = "bash"

    async def exec(self, command, cwd, on_data, signal, timeout, env) -> int:
        self.ws.note("bash", "exec", f"{cwd}$ {command}")
        on_data(self.ws.commands.get(command, "").encode())
        return 0


class _Grep(_Op):
    tool = "grep"

    def is_directory(self, absolute_path: str) -> bool:
        self.ws.note("grep", "is_directory", absolute_path)
        if absolute_path in self.ws._dirs():
            return True
        self._need(absolute_path)
        return False

    def read_file(self, absolute_path: str) -> str:
        return self._need(absolute_path)

    def search(self, query: Any, signal: Any) -> tuple[list[GrepMatch], bool]:
        self.ws.note("grep", "search", query.search_path)
        out = []
        for path, text in sorted(self.ws.files.items()):
            if path.startswith(query.search_path.rstrip("/") + "/") or path == query.search_path:
                for number, line in enumerate(text.splitlines(), 1):
                    if query.pattern in line:
                        out.append(GrepMatch(path, number, line))
        return out, False


class _Find(_Op):
    tool = "find"

    def exists(self, absolute_path: str) -> bool:
        self.ws.note("find", "exists", absolute_path)
        return absolute_path in self.ws.files or absolute_path in self.ws._dirs()

    def glob(self, pattern: str, search_dir: str, ignore: Any, limit: int) -> list[str]:
        self.ws.note("find", "glob", search_dir)
        found = [p for p in sorted(self.ws.files) if fnmatch.fnmatch(posixpath.basename(p), pattern)]
        return found[:limit]


class _Stat:
    def __init__(self, is_dir: bool) -> None:
        self._is_dir = is_dir

    def is_dir(self) -> bool:
        return self._is_dir


class _Ls(_Op):
    tool = "ls"

    def exists(self, absolute_path: str) -> bool:
        self.ws.note("ls", "exists", absolute_path)
        return absolute_path in self.ws.files or absolute_path in self.ws._dirs()

    def stat(self, absolute_path: str) -> _Stat:
        return _Stat(absolute_path in self.ws._dirs())

    def readdir(self, absolute_path: str) -> list[str]:
        self.ws.note("ls", "readdir", absolute_path)
        prefix = absolute_path.rstrip("/") + "/"
        names = {
            p[len(prefix) :].split("/")[0] for p in [*self.ws.files, *self.ws._dirs()] if p.startswith(prefix)
        }
        return sorted(names)
