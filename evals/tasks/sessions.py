"""Tasks that exercise the session itself: a long task that compacts part-way (the work before the
compaction must still be known after it), and a branch made with the tree (``/tree``)."""

from __future__ import annotations

import re
from typing import Any

from evals.harness import CheckResult, ScriptContext, Task, TaskRun
from evals.tasks._script import call, say
from pi_app.ai.types import Model

PARTS = 5
SECTION_WORDS = ("latency", "throughput", "errors", "capacity", "costs")


def _section(i: int) -> str:
    topic = SECTION_WORDS[i - 1]
    body = " ".join(f"{topic} observation {n} holds within the agreed bounds." for n in range(1, 45))
    return f"Section {i}: {topic}\n\n{body}\n"


def _step_prompt(i: int) -> str:
    return (
        f"Step {i} of {PARTS}: create the file part{i}.txt containing exactly the text between the markers.\n"
        f"<<<\n{_section(i)}>>>"
    )


FINAL_PROMPT = (
    "Finally, create manifest.txt listing the name of every partN.txt file you created in this task, "
    "one per line, in order. Reply when done."
)


async def _long_drive(run: TaskRun) -> None:
    for i in range(1, PARTS + 1):
        await run.prompt(_step_prompt(i))
    await run.prompt(FINAL_PROMPT)


def _long_script(ctx: ScriptContext) -> list:
    prompt = ctx.last_user_text()
    calls = ctx.calls_since_user()
    step = re.match(r"Step (\d+) of", prompt)
    if step:
        if calls:
            return say(f"Created part{step.group(1)}.txt.")
        body = prompt.split("<<<\n", 1)[1].rsplit(">>>", 1)[0]
        return call("write", path=f"part{step.group(1)}.txt", content=body)
    if prompt.startswith("Finally"):
        if calls:
            return say("manifest.txt is written.")
        # what this context still knows: the compaction summary and the recent messages
        names = sorted(set(re.findall(r"part(\d+)\.txt", ctx.all_text())), key=int)
        return call("write", path="manifest.txt", content="".join(f"part{n}.txt\n" for n in names))
    return say("Nothing to do.")


def _long_settings(model: Model) -> dict[str, Any]:
    """Compaction well before the window is full, for any model: about 6,000 tokens of context."""
    window = model.context_window
    return {
        "compaction": {"enabled": True, "reserveTokens": max(1000, window - 6000), "keepRecentTokens": 1500}
    }


def _long_check(run: TaskRun) -> CheckResult:
    compactions = [e for e in run.entries() if e.raw.get("type") == "compaction"]
    parts_ok = all(
        (run.file(f"part{i}.txt") or "").strip() == _section(i).strip() for i in range(1, PARTS + 1)
    )
    manifest = (run.file("manifest.txt") or "").split()
    return CheckResult.of(
        (bool(compactions), "the session compacted during the task"),
        (parts_ok, "every part file has its section"),
        (
            manifest == [f"part{i}.txt" for i in range(1, PARTS + 1)],
            f"manifest lists every part (got {manifest})",
        ),
    )


COMPACTION_LONG_TASK = Task(
    name="compaction_long_task",
    description="six prompts that outgrow the context: compaction part-way, earlier work still known",
    files={},
    prompt=_step_prompt(1),
    drive=_long_drive,
    check=_long_check,
    script=_long_script,
    settings=_long_settings,
    context_window=10_000,
)

# -- tree_branch: try plan A, go back with the tree, take plan B ------------------------------------

PLAN_A = "Create notes.txt containing exactly the text: plan A"
PLAN_B = "Create notes.txt containing exactly the text: plan B. Also create branch.txt containing exactly: B"


async def _tree_drive(run: TaskRun) -> None:
    await run.prompt(PLAN_A)
    first_user = next(
        e for e in run.entries() if e.raw.get("type") == "message" and e.raw["message"].get("role") == "user"
    )
    # as /tree does when the user picks the first message: back to before it, the abandoned
    # branch summarised
    await run.session.navigate_tree(first_user.id, summarize=True)
    await run.prompt(PLAN_B)


def _tree_script(ctx: ScriptContext) -> list:
    prompt = ctx.last_user_text()
    calls = ctx.calls_since_user()
    wanted = re.search(r"containing exactly the text: (plan \w)", prompt)
    if wanted is None:
        return say("Nothing to do.")
    if not calls:
        return call("write", path="notes.txt", content=wanted.group(1) + "\n")
    if "branch.txt" in prompt and "branch.txt" not in " ".join(ctx.result_texts("write")) and len(calls) == 1:
        return call("write", path="branch.txt", content="B\n")
    return say("Done.")


def _tree_check(run: TaskRun) -> CheckResult:
    sm = run.session.session_manager
    users = [
        e for e in run.entries() if e.raw.get("type") == "message" and e.raw["message"].get("role") == "user"
    ]
    texts = {e.id: "".join(b.get("text", "") for b in e.raw["message"]["content"]) for e in users}
    branch_ids = {e.id for e in sm.get_branch()}
    a = [uid for uid, t in texts.items() if t.startswith(PLAN_A) and not t.startswith(PLAN_B)]
    b = [uid for uid, t in texts.items() if t.startswith(PLAN_B)]
    # plan B grows from where plan A started (through the branch summary entry)
    b_path = {e.id for e in sm.get_branch(b[0])} if b else set()
    siblings = bool(a and b) and sm.get_entry(a[0]).parent_id in b_path | {None}
    summaries = [e for e in sm.get_branch() if e.raw.get("type") == "branch_summary"]
    return CheckResult.of(
        (siblings, "plan B branches off where plan A started"),
        (bool(b) and b[0] in branch_ids and not (set(a) & branch_ids), "the current branch is plan B only"),
        (bool(summaries), "the abandoned branch was summarised"),
        ((run.file("notes.txt") or "").strip() == "plan B", "notes.txt is plan B"),
        ((run.file("branch.txt") or "").strip() == "B", "branch.txt is B"),
    )


TREE_BRANCH = Task(
    name="tree_branch",
    description="do plan A, go back with the tree (summarising it), do plan B on a new branch",
    files={},
    prompt=PLAN_A,
    drive=_tree_drive,
    check=_tree_check,
    script=_tree_script,
)

TASKS = [COMPACTION_LONG_TASK, TREE_BRANCH]
