"""Which bash commands count as read-only in plan mode."""

from __future__ import annotations

import re
import shlex

READ_ONLY_COMMANDS = frozenset(
    {
        # inspection and search
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "wc",
        "file",
        "stat",
        "du",
        "df",
        "tree",
        "ls",
        "pwd",
        "find",
        "grep",
        "rg",
        "ag",
        "fd",
        "which",
        "whereis",
        "type",
        "echo",
        "printf",
        "diff",
        "cmp",
        "sort",
        "uniq",
        "cut",
        "awk",
        "jq",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "md5sum",
        "sha256sum",
        # system info
        "uname",
        "whoami",
        "id",
        "date",
        "uptime",
        "env",
        "printenv",
        "hostname",
        "ps",
        "top",
        "free",
    }
)
READ_ONLY_GIT = frozenset(
    {"status", "log", "diff", "show", "branch", "remote", "blame", "ls-files", "rev-parse", "describe", "tag"}
)
PACKAGE_INFO = (
    ("npm", {"ls", "list", "view", "info", "outdated"}),
    ("pip", {"show", "list", "freeze"}),
    ("cargo", {"tree", "metadata"}),
    ("python", {"--version"}),
    ("node", {"--version"}),
)
_SPLIT = re.compile(r"\|\||&&|;|\|")
_REDIRECT = re.compile(r"(?<![0-9&])>{1,2}(?!&)")


def _segment_is_read_only(segment: str) -> bool:
    try:
        words = shlex.split(segment)
    except ValueError:
        return False
    if not words:
        return True
    head, rest = words[0], words[1:]
    if head == "git":
        return (
            bool(rest)
            and rest[0] in READ_ONLY_GIT
            and not (rest[0] == "branch" and {"-d", "-D", "-m"} & set(rest))
        )
    for tool, allowed in PACKAGE_INFO:
        if head == tool:
            return bool(rest) and rest[0] in allowed
    if head == "find" and {"-delete", "-exec", "-execdir"} & set(rest):
        return False
    return head in READ_ONLY_COMMANDS


def is_read_only_command(command: str) -> bool:
    """True when every piped/chained part is an allowed inspection command and nothing is written."""
    if _REDIRECT.search(command) or "$(" in command or "`" in command:
        return False
    return all(_segment_is_read_only(part) for part in _SPLIT.split(command))
