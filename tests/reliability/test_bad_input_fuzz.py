"""Bad-input fuzzing with hypothesis (issue 12 item 3).

Every reader of user-controlled input gets random and near-valid input; each must give a clear
error or skip with a warning, never raise out of its public entry point, and never rewrite the
user's file. Spec: 30 R-SES-02/D-26 (session lines), R-SET-03/R-PHIL-11 (settings), 40 R-MOD-01/02
(models.json), R-SKL (SKILL.md frontmatter), 60 R-THEME-02 (themes), R-RPC framing and errors,
20 tool-argument validation.

Example counts stay modest so the file runs in seconds; ``PI_FUZZ_EXAMPLES`` raises them locally.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import shlex
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_app.agent.agent import Agent, AgentOptions
from pi_app.ai.auth import InMemoryCredentialStore
from pi_app.ai.testing import fake_provider, text, tool_call
from pi_app.coding.models.registry import ModelRegistry
from pi_app.coding.resources.themes import ThemeError, ThemeSpec, load_theme_file
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.settings import SettingsManager
from pi_app.coding.tools import BUILTIN_TOOL_NAMES
from pi_app.coding.tools.definition import wrap_tool_definition
from pi_app.modes.rpc.protocol import COMMAND_MODELS
from tests.modes.rpc_harness import make_harness
from tests.reliability.helpers import fuzz_settings

FUZZ = fuzz_settings(40)

# JSON values, small and nested; keys drawn partly from the real vocabulary so near-valid shapes
# (right key, wrong type) come up often.
VOCAB = [
    "type", "id", "parentId", "timestamp", "message", "role", "content", "text", "name", "api",
    "providers", "models", "baseUrl", "apiKey", "contextWindow", "maxTokens", "cost", "input",
    "colors", "vars", "export", "theme", "retry", "compaction", "enabled", "provider", "modelId",
    "thinkingLevel", "summary", "firstKeptEntryId", "path", "command", "oldText", "newText",
    "edits", "offset", "limit", "pattern", "timeout", "images", "data", "mimeType", "session",
]  # fmt: skip
keys = st.one_of(st.sampled_from(VOCAB), st.text(max_size=8))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["user", "assistant", "toolResult", "message", "session", "#zz", "$x", "!x"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)),
    max_leaves=12,
)
json_objects = st.dictionaries(keys, json_values, max_size=6)
garbage_text = st.one_of(
    st.text(max_size=60),
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", errors="surrogateescape")),
    json_values.map(json.dumps),
    json_objects.map(lambda o: json.dumps(o)[: max(1, len(json.dumps(o)) // 2)]),  # cut short
)


def _fresh_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="pi-fuzz-"))


# ---------------------------------------------------------------------------------------------
# Session JSONL lines
# ---------------------------------------------------------------------------------------------

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}
USER = {
    "type": "message",
    "id": "aaaa0001",
    "parentId": None,
    "timestamp": "2025-01-01T00:00:01.000Z",
    "message": {"role": "user", "content": "hi", "timestamp": 1},
}


def _entry_like(obj: dict[str, Any]) -> dict[str, Any]:
    """Near-valid entries: real entry types and tree fields with random bodies."""
    return {
        "type": "message",
        "id": "r" + str(abs(hash(json.dumps(obj))) % 10**7),
        "parentId": "aaaa0001",
        **obj,
    }


session_lines = st.lists(
    st.one_of(
        garbage_text.map(lambda t: t.replace("\n", " ")),
        json_objects.map(lambda o: json.dumps(_entry_like(o))),
        json_objects.map(
            lambda o: json.dumps({"type": "message", "message": o, "id": "m1", "parentId": None})
        ),
    ),
    min_size=1,
    max_size=6,
)


@FUZZ
@given(lines=session_lines)
def test_session_files_with_random_lines_load_and_are_never_rewritten(lines: list[str]) -> None:
    path = _fresh_dir() / "s.jsonl"
    body = "\n".join([json.dumps(HEADER), json.dumps(USER), *lines]) + "\n"
    path.write_text(body, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()

    manager = SessionManager.open(path)
    manager.build_session_context()
    manager.get_tree()
    manager.get_branch()
    assert path.read_bytes() == before  # loading never rewrites a v3 file

    manager.append_message({"role": "user", "content": "after", "timestamp": 2})
    after = path.read_bytes()
    assert after.startswith(before)  # only appended to; every odd line kept verbatim
    reopened = SessionManager.open(path)
    assert reopened.get_entries()[-1].raw["message"]["content"] == "after"


# ---------------------------------------------------------------------------------------------
# settings.json
# ---------------------------------------------------------------------------------------------

settings_documents = st.one_of(garbage_text, json_objects.map(json.dumps), json_values.map(json.dumps))


def _is_json_object(data: str) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except ValueError:
        return False


@FUZZ
@given(document=settings_documents)
def test_random_settings_files_never_break_start_up_or_get_overwritten(document: str) -> None:
    root = _fresh_dir()
    path = root / "settings.json"
    path.write_text(document, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()

    manager = SettingsManager.create(root / "project", root)
    for name in dir(manager):  # every getter answers with a default instead of raising
        if name.startswith("get_"):
            getter = getattr(manager, name)
            required = [
                p
                for p in inspect.signature(getter).parameters.values()
                if p.default is inspect.Parameter.empty
            ]
            getter(*("anthropic", "claude-x")[: len(required)])  # per-model getters: some model
    manager.set_theme("light")

    if document.strip() and not _is_json_object(document):
        assert path.read_bytes() == before, "an unreadable settings file was rewritten"
        assert any(str(path.name) in e for e in manager.errors)
    else:
        saved = json.loads(path.read_text())
        assert saved["theme"] == "light"
        original = json.loads(document) if document.strip() else {}
        assert set(original) - {"theme"} <= set(saved)  # no key of the user's was dropped


# ---------------------------------------------------------------------------------------------
# models.json
# ---------------------------------------------------------------------------------------------

model_entries = st.fixed_dictionaries(
    {"id": json_values}, optional={"name": json_values, "contextWindow": json_values}
)
provider_configs = st.fixed_dictionaries(
    {},
    optional={
        "baseUrl": json_values,
        "api": st.one_of(st.sampled_from(["openai-completions", "anthropic-messages", "nope"]), json_values),
        "apiKey": json_values,
        "models": st.one_of(st.lists(model_entries, max_size=3), json_values),
        "headers": json_values,
        "modelOverrides": json_values,
    },
)
models_documents = st.one_of(
    garbage_text,
    st.dictionaries(
        st.sampled_from(["providers", "x"]), st.dictionaries(keys, provider_configs, max_size=3)
    ).map(json.dumps),
)


@FUZZ
@given(document=models_documents)
def test_random_models_json_gives_a_clear_error_and_is_never_rewritten(document: str) -> None:
    root = _fresh_dir()
    path = root / "models.json"
    path.write_text(document, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()

    registry = ModelRegistry(InMemoryCredentialStore(), path)
    registry.get_all()
    error = registry.get_error()
    if error is not None:
        assert str(path) in error or "models.json" in error
        assert "Traceback" not in error
    assert path.read_bytes() == before


# ---------------------------------------------------------------------------------------------
# Theme files
# ---------------------------------------------------------------------------------------------

theme_documents = st.one_of(
    garbage_text,
    st.fixed_dictionaries(
        {"name": json_values},
        optional={
            "colors": st.dictionaries(st.sampled_from(["accent", "border", "text", "x"]), json_values),
            "vars": st.dictionaries(keys, json_values),
            "export": json_values,
        },
    ).map(json.dumps),
)


@FUZZ
@given(document=theme_documents)
def test_random_theme_files_load_or_fail_with_a_theme_error(document: str) -> None:
    path = _fresh_dir() / "mine.json"
    path.write_text(document, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()
    try:
        spec = load_theme_file(path)
    except ThemeError as exc:
        message = str(exc)
        assert message and "Traceback" not in message
    else:
        assert isinstance(spec, ThemeSpec)
    assert path.read_bytes() == before


# ---------------------------------------------------------------------------------------------
# SKILL.md frontmatter
# ---------------------------------------------------------------------------------------------

yaml_fragments = st.one_of(
    st.text(max_size=80),
    json_objects.map(json.dumps),  # JSON is YAML
    st.sampled_from(
        [
            "name: [unclosed",
            "description: {a: b",
            "name: !!python/object:os.system ls",
            "- a list\n- not a mapping",
            "name: ok\ndescription: |\n  multi\n  line",
            "description: &a [*a]",
            ":\n:\n",
            "name: Bad Name!\ndescription: fine",
        ]
    ),
)


@FUZZ
@given(frontmatter=yaml_fragments, body=st.text(max_size=40))
def test_random_skill_frontmatter_is_skipped_with_a_warning(frontmatter: str, body: str) -> None:
    from pi_app.coding.resources.diagnostics import PathMetadata
    from pi_app.coding.resources.skills import load_skills_from_path

    root = _fresh_dir()
    skill_dir = root / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    path = skill_dir / "SKILL.md"
    path.write_text(f"---\n{frontmatter}\n---\n{body}", encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()

    skills, diagnostics = load_skills_from_path(root / "skills", PathMetadata())
    for skill in skills:
        assert skill.description  # a skill without a description is never loaded
    if not skills:
        assert diagnostics, "a skipped skill must say why"
    for diagnostic in diagnostics:
        assert "Traceback" not in str(diagnostic)
    assert path.read_bytes() == before


# ---------------------------------------------------------------------------------------------
# RPC lines
# ---------------------------------------------------------------------------------------------

# Commands that would touch the disk or run a shell with fuzzed values stay out.
SAFE_COMMANDS = sorted(
    set(COMMAND_MODELS) - {"bash", "export_html", "switch_session", "extension_ui_response"}
)
rpc_records = st.one_of(
    garbage_text.map(lambda t: t.replace("\n", " ").encode("utf-8", errors="surrogateescape")),
    st.builds(
        lambda kind, fields, rid: json.dumps({**fields, "type": kind, "id": rid}).encode(),
        st.sampled_from(SAFE_COMMANDS),
        json_objects,
        st.one_of(st.text(max_size=5), st.integers(), st.none(), st.booleans()),
    ),
)


@FUZZ
@given(records=st.lists(rpc_records, min_size=1, max_size=8))
def test_random_rpc_lines_each_get_an_answer_and_the_server_keeps_going(records: list[bytes]) -> None:
    async def scenario() -> None:
        harness = await make_harness(str(_fresh_dir()), script=[[text("ok")]] * 20)
        try:
            for record in records:
                harness.send_raw(record.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n")
            harness.send({"type": "get_state", "id": "final"})
            state = await harness.response("final", timeout=20)
            assert state["success"] is True
            for line in harness.lines():
                assert line.get("type") != "response" or isinstance(line.get("success"), bool)
                if line.get("success") is False:
                    assert isinstance(line.get("error"), str) and line["error"]
                    assert "Traceback" not in line["error"]
            await harness.session.wait_for_idle()
        finally:
            harness.session.abort()
            await harness.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------------------------------
# Tool arguments
# ---------------------------------------------------------------------------------------------

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def _tame(tool: str, args: Any) -> Any:
    """Keep fuzzed arguments inside the sandbox: file names stay relative, shell input is echoed."""
    if not isinstance(args, dict):
        return args
    out = dict(args)
    if isinstance(out.get("path"), str):
        out["path"] = _SAFE_NAME.sub("", out["path"]).lstrip(".")[:20] or "f.txt"
    if tool == "bash" and isinstance(out.get("command"), str):
        out["command"] = "echo " + shlex.quote(out["command"][:50])
    if tool == "bash" and isinstance(out.get("timeout"), int | float):
        out["timeout"] = min(abs(out["timeout"]), 5)
    return out


tool_arguments = st.one_of(
    json_objects,
    st.fixed_dictionaries(
        {},
        optional={
            "path": json_values,
            "content": json_values,
            "command": json_values,
            "edits": st.one_of(st.lists(json_objects, max_size=2), json_values),
            "oldText": json_values,
            "newText": json_values,
            "offset": json_values,
            "limit": json_values,
            "pattern": json_values,
            "timeout": json_values,
        },
    ),
    # raw argument text that is not a JSON object (valid Unicode: it arrives as decoded SSE)
    st.text(st.characters(exclude_categories=["Cs"]), max_size=40),
)


@FUZZ
@given(tool=st.sampled_from(BUILTIN_TOOL_NAMES), arguments=tool_arguments)
def test_random_tool_arguments_become_a_tool_result_never_a_crash(tool: str, arguments: Any) -> None:
    from pi_app.coding.sdk import build_tool_definitions

    cwd = _fresh_dir()
    (cwd / "f.txt").write_text("alpha\nbeta\n")
    definitions = build_tool_definitions(str(cwd), list(BUILTIN_TOOL_NAMES), False)
    tools = [wrap_tool_definition(d, lambda: None) for d in definitions]
    provider = fake_provider(script=[[tool_call(tool, _tame(tool, arguments), id="call_1")], [text("done")]])
    agent = Agent(
        AgentOptions(
            initial_state={"model": provider.get_models()[0], "tools": tools},
            stream_fn=provider.stream_simple,
            tool_abort_grace_s=1.0,
        )
    )

    async def scenario() -> None:
        await asyncio.wait_for(agent.prompt("go"), 60)

    asyncio.run(scenario())
    messages = agent.state.messages
    results = [m for m in messages if getattr(m, "role", None) == "toolResult"]
    assert len(results) == 1 and results[0].tool_call_id == "call_1"
    if results[0].is_error:
        assert results[0].content and "Traceback" not in str(results[0].content)
    assert messages[-1].role == "assistant" and messages[-1].stop_reason == "stop"


@pytest.mark.parametrize("with_model", [True, False])
@pytest.mark.parametrize("name", ["settings.json", "models.json", "auth.json"])
def test_unreadable_state_files_are_named_and_left_alone(name: str, with_model: bool, tmp_path: Path) -> None:
    """R-PHIL-11: a syntactically broken file is reported with its path and never rewritten."""
    from tests.fakes.llm_server import FakeLLMServer
    from tests.reliability.helpers import PiHome

    pi_home = PiHome.make(tmp_path)
    with FakeLLMServer() as server:
        if with_model and name != "models.json":
            pi_home.point_at(server.base_url)
        server.enqueue(text("hello back"))
        broken = pi_home.agent_dir / name
        broken.write_text('{"oops": ', encoding="utf-8")
        before = broken.read_bytes()

        result = pi_home.run("-p", "--thinking", "high", "hello", timeout=60)

    assert broken.read_bytes() == before
    shown = result.stderr.replace(str(pi_home.home), "~")
    assert f"~/.pi/agent/{name}" in shown, result.stderr
    assert "Expecting value" in shown  # the parse problem itself, not just "something is wrong"
    assert "Traceback" not in result.stderr
    if with_model and name != "models.json":
        assert result.stdout == "hello back\n"


# ---------------------------------------------------------------------------------------------
# Pathological JSON: Python's json raises RecursionError for absurd nesting and a plain ValueError
# (not JSONDecodeError) for numbers over 4300 digits. Random generation never reaches these.
# ---------------------------------------------------------------------------------------------

PATHOLOGICAL_JSON = {
    "deep": "[" * 50_000 + "]" * 50_000,
    "huge-number": '{"a": ' + "9" * 5000 + "}",
}


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL_JSON))
@pytest.mark.parametrize("name", ["settings.json", "models.json", "auth.json"])
def test_pathological_state_files_get_one_clear_line_not_a_traceback(
    name: str, kind: str, tmp_path: Path
) -> None:
    from tests.reliability.helpers import PiHome

    pi_home = PiHome.make(tmp_path)
    broken = pi_home.agent_dir / name
    broken.write_text(PATHOLOGICAL_JSON[kind], encoding="utf-8")
    before = broken.read_bytes()

    result = pi_home.run("-p", "hello", timeout=60)

    assert broken.read_bytes() == before
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert str(broken) in result.stderr.replace("~", str(pi_home.home))


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL_JSON))
def test_pathological_rpc_line_gets_a_parse_error_and_the_server_keeps_going(
    kind: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        harness = await make_harness(str(tmp_path), script=[[text("ok")]])
        try:
            harness.send_raw(PATHOLOGICAL_JSON[kind].encode() + b"\n")
            harness.send({"type": "get_state", "id": "after"})
            assert (await harness.response("after", timeout=20))["success"] is True
            errors = [line for line in harness.lines() if line.get("success") is False]
            assert [e["command"] for e in errors] == ["parse"]
            assert errors[0]["error"].startswith("Failed to parse command")
        finally:
            await harness.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL_JSON))
def test_pathological_session_line_is_skipped_by_load_and_listing(kind: str, tmp_path: Path) -> None:
    from pi_app.coding.session.listing import build_session_info

    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([json.dumps(HEADER), json.dumps(USER), PATHOLOGICAL_JSON[kind]]) + "\n")
    before = path.read_bytes()
    manager = SessionManager.open(path)
    assert [e.raw["id"] for e in manager.get_entries()] == ["aaaa0001"]
    info = build_session_info(str(path))
    assert info is not None and info.message_count == 1
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL_JSON))
def test_pathological_manifest_trust_file_and_error_body_are_reported(kind: str, tmp_path: Path) -> None:
    from pi_app.ai.http.transport import format_http_error
    from pi_app.coding.extensions.discovery import read_manifest
    from pi_app.coding.trust import TrustStore

    document = PATHOLOGICAL_JSON[kind]
    (tmp_path / "package.json").write_text(document)
    entries, problem = read_manifest(tmp_path)
    assert entries is None and problem and problem.startswith("invalid package.json: ")

    trust_file = tmp_path / "trust.json"
    trust_file.write_text(document)
    store = TrustStore(trust_file)
    assert store.decision_for(tmp_path) is None
    assert store.save(tmp_path, True) is False  # unreadable: left untouched, never rewritten
    assert store.error and str(trust_file) in store.error
    assert trust_file.read_text() == document

    assert format_http_error(500, document).startswith("500 " + document[:20])  # shown raw, cut
