"""Finding things: grep in a large tree, find by glob, reading one line of a long file by offset,
running a program with bash and keeping its answer."""

from __future__ import annotations

import re
from pathlib import Path

from evals.harness import CheckResult, ScriptContext, Task, TaskRun
from evals.tasks._script import call, grep_hits, say

# -- grep_large_tree: one definition among 2,000 files that mention the name ----------------------

DEFINED_IN = "src/pkg_17/mod_33.py"


def _large_tree(root: Path) -> None:
    for p in range(40):
        for m in range(50):
            path = root / "src" / f"pkg_{p:02d}" / f"mod_{m:02d}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            body = [f'"""Module {p}.{m}."""', "", "from config import RETRY_LIMIT" if m % 9 == 0 else ""]
            body += [f"def handler_{i}(x):\n    return x + {i}\n" for i in range(8)]
            if f"src/pkg_{p:02d}/mod_{m:02d}.py" == DEFINED_IN:
                body.insert(3, "RETRY_LIMIT = 7  # how often a request is retried")
            path.write_text("\n".join(body) + "\n")
    (root / "README.md").write_text("RETRY_LIMIT is documented in the source.\n")


def _grep_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("grep", pattern=r"^RETRY_LIMIT\s*=", glob="*.py")
    if calls[-1] == "grep":
        hits = grep_hits(ctx.result_texts("grep")[-1])
        if not hits:
            return say("RETRY_LIMIT is not defined anywhere.")
        path, _, line = hits[0]
        value = re.search(r"=\s*(\S+)", line)
        return call("write", path="answer.txt", content=f"{path}={value.group(1) if value else '?'}\n")
    return say("Written to answer.txt.")


def _grep_check(run: TaskRun) -> CheckResult:
    answer = (run.file("answer.txt") or "").strip()
    return CheckResult.of(
        (answer == f"{DEFINED_IN}=7", f"answer.txt is {DEFINED_IN}=7 (got {answer!r})"),
        (run.called("grep") or run.called("find"), "grep or find was used"),
        (not run.called("bash"), "no bash (the search tools are there for this)"),
    )


GREP_LARGE_TREE = Task(
    name="grep_large_tree",
    description="locate one definition in a 2,000-file tree where the name is used in many files",
    files={"config.py": "from src.pkg_17.mod_33 import RETRY_LIMIT  # re-exported\n"},
    setup=_large_tree,
    prompt=(
        "The constant RETRY_LIMIT is assigned (defined) in exactly one module under src/. Write that "
        "module's path relative to the project root and the value, as `path=value`, to answer.txt."
    ),
    check=_grep_check,
    script=_grep_script,
    tools=("read", "bash", "edit", "write", "grep", "find", "ls"),
)

# -- find_docs_index -------------------------------------------------------------------------------

DOCS = {
    "docs/index.md": "# Docs\n",
    "docs/guide/install.md": "# Install\n",
    "docs/guide/usage.md": "# Usage\n",
    "docs/guide/images/shot.png.txt": "not markdown\n",
    "docs/api/reference.md": "# API\n",
    "docs/api/notes.txt": "plain text\n",
    "docs/zz/deep/er/leaf.md": "# Leaf\n",
    "README.md": "# outside docs\n",
}
EXPECTED_INDEX = ["api/reference.md", "guide/install.md", "guide/usage.md", "index.md", "zz/deep/er/leaf.md"]


def _find_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("find", pattern="**/*.md", path="docs")
    if calls[-1] == "find":
        found = [
            line.strip().removeprefix("docs/")
            for line in ctx.result_texts("find")[-1].splitlines()
            if line.strip().endswith(".md")
        ]
        return call("write", path="docs/INDEX.txt", content="".join(f"{p}\n" for p in sorted(found)))
    return say("docs/INDEX.txt lists the Markdown files.")


FIND_DOCS_INDEX = Task(
    name="find_docs_index",
    description="list files by glob with find, write a sorted index",
    files=DOCS,
    prompt=(
        "Write docs/INDEX.txt listing every Markdown (.md) file under docs/, as paths relative to docs/, "
        "sorted, one per line. Do not include files outside docs/."
    ),
    check=lambda run: CheckResult.of(
        ((run.file("docs/INDEX.txt") or "").split() == EXPECTED_INDEX, "docs/INDEX.txt is the sorted list"),
        (run.called("find") or run.called("ls"), "find or ls was used"),
    ),
    script=_find_script,
    tools=("read", "bash", "edit", "write", "grep", "find", "ls"),
)

# -- read_offset: one line of a 5,000-line log -----------------------------------------------------

LOG_LINES = 5000
TARGET_LINE = 4321


def _log(root: Path) -> None:
    lines = [
        f"2026-12-03T10:{i // 60 % 60:02d}:{i % 60:02d}Z INFO request {i} ok" for i in range(1, LOG_LINES + 1)
    ]
    lines[TARGET_LINE - 1] = f"2026-12-03T11:12:01Z ERROR request {TARGET_LINE} failed code=E7731"
    (root / "server.log").write_text("\n".join(lines) + "\n")


def _offset_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("read", path="server.log", offset=TARGET_LINE, limit=1)
    if calls[-1] == "read":
        code = re.search(r"code=(\w+)", ctx.result_texts("read")[-1])
        return call("write", path="answer.txt", content=(code.group(1) if code else "none") + "\n")
    return say("The code is in answer.txt.")


READ_OFFSET = Task(
    name="read_offset",
    description="read one line deep in a long file (offset/limit) instead of the whole file",
    files={},
    setup=_log,
    prompt=f"Line {TARGET_LINE} of server.log is an error. Write just its error code (after code=) to answer.txt.",
    check=lambda run: CheckResult.of(
        ((run.file("answer.txt") or "").strip() == "E7731", "answer.txt is E7731"),
        (run.called("read") or run.called("bash") or run.called("grep"), "the log was read"),
    ),
    script=_offset_script,
)

# -- bash_pipeline ---------------------------------------------------------------------------------

GEN_REPORT = (
    "import sys\n\n\n"
    "def primes(limit):\n    sieve = [True] * limit\n    sieve[:2] = [False, False]\n"
    "    for i in range(2, int(limit ** 0.5) + 1):\n        if sieve[i]:\n"
    "            sieve[i * i :: i] = [False] * len(sieve[i * i :: i])\n"
    "    return [i for i, p in enumerate(sieve) if p]\n\n\n"
    "print('computing...', file=sys.stderr)\nprint('report v1')\nprint(sum(primes(1000)))\n"
)


def _bash_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("bash", command="python tools/gen_report.py")
    if calls[-1] == "bash":
        lines = [line for line in ctx.result_texts("bash")[-1].splitlines() if line.strip()]
        return call("write", path="result.txt", content=(lines[-1].strip() if lines else "") + "\n")
    return say("Saved the number to result.txt.")


BASH_PIPELINE = Task(
    name="bash_pipeline",
    description="run a program with bash and keep the last line of its output",
    files={"tools/gen_report.py": GEN_REPORT},
    prompt="Run `python tools/gen_report.py` and save the number it prints on its last line to result.txt.",
    check=lambda run: CheckResult.of(
        ((run.file("result.txt") or "").strip() == "76127", "result.txt is 76127"),
        (run.called("bash"), "bash ran the program"),
    ),
    script=_bash_script,
)

TASKS = [GREP_LARGE_TREE, FIND_DOCS_INDEX, READ_OFFSET, BASH_PIPELINE]
