"""A task that only succeeds by following a skill: the house style for release notes lives in a
SKILL.md the model has to read (the system prompt lists it, as pi lists skills)."""

from __future__ import annotations

import re

from evals.harness import CheckResult, ScriptContext, Task, TaskRun
from evals.tasks._script import call, say

SKILL = """---
name: release-notes
description: The house style for recording a release in CHANGELOG.md and RELEASES.txt. Use it whenever a release is recorded.
---
# Recording a release

1. Insert the entry at the top of CHANGELOG.md, directly below the `# Changelog` title line and a
   blank line, in exactly this form (one blank line after it):

       ## [VERSION] - DATE
       ### Added
       - CHANGE

2. Append a line `VERSION DATE` to RELEASES.txt.
"""

CHANGELOG = "# Changelog\n\n## [1.3.0] - 2026-10-01\n### Added\n- themes\n"
RELEASES = "1.3.0 2026-10-01\n"


def _skill_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    location = re.search(r"<location>([^<]+)</location>", ctx.system_prompt)
    if not calls:
        if location is None:
            return say("I have no release-notes skill.")
        return call("read", path=location.group(1).strip())
    if calls == ["read"]:
        skill = ctx.result_texts("read")[-1]
        form = [line[7:] for line in skill.splitlines() if line.startswith(" " * 7)]  # the indented block
        if not form:
            return say("The skill does not say how to write the entry.")
        entry = "".join(line + "\n" for line in form)
        entry = (
            entry.replace("VERSION", "1.4.0").replace("DATE", "2026-12-03").replace("CHANGE", "offline mode")
        )
        return call(
            "edit",
            path="CHANGELOG.md",
            edits=[{"oldText": "# Changelog\n\n", "newText": "# Changelog\n\n" + entry + "\n"}],
        )
    if calls == ["read", "edit"]:
        return call(
            "edit",
            path="RELEASES.txt",
            edits=[{"oldText": RELEASES, "newText": RELEASES + "1.4.0 2026-12-03\n"}],
        )
    return say("Release 1.4.0 recorded.")


def _skill_check(run: TaskRun) -> CheckResult:
    changelog = run.file("CHANGELOG.md") or ""
    expected = (
        "# Changelog\n\n## [1.4.0] - 2026-12-03\n### Added\n- offline mode\n\n## [1.3.0] - 2026-10-01\n"
    )
    read_skill = any(
        c.name == "read" and str(c.arguments.get("path", "")).endswith("SKILL.md") for c in run.tool_calls
    )
    return CheckResult.of(
        (changelog.startswith(expected), "CHANGELOG.md has the entry in the house style, above 1.3.0"),
        (
            (run.file("RELEASES.txt") or "").splitlines()[-1:] == ["1.4.0 2026-12-03"],
            "RELEASES.txt has 1.4.0",
        ),
        (read_skill, "the skill file was read"),
    )


SKILL_RELEASE_NOTES = Task(
    name="skill_release_notes",
    description="follow a project skill (read SKILL.md, then write in its format)",
    files={"skills/release-notes/SKILL.md": SKILL, "CHANGELOG.md": CHANGELOG, "RELEASES.txt": RELEASES},
    skills=("skills/release-notes",),
    prompt="Record release 1.4.0, dated 2026-12-03, which added offline mode.",
    check=_skill_check,
    script=_skill_script,
)

TASKS = [SKILL_RELEASE_NOTES]
