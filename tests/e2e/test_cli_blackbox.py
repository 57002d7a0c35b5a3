"""Black-box: ``pi`` flags that shape the request, the session and the model, checked in what the
loopback fake server receives and in the session files written."""

from __future__ import annotations

import base64
import json

from pi_app.ai.testing import text
from tests.e2e.helpers import run_pi, session_files, write_models_json

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _user_texts(body: dict) -> list[str]:
    out = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        out.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return out


def test_files_images_stdin_and_several_messages(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url, input=["text", "image"])
    (project / "notes.md").write_text("remember the milk\n")
    (project / "pic.png").write_bytes(PNG)
    llm_server.enqueue(text("first answer"))
    llm_server.enqueue(text("second answer"))
    result = run_pi("-p", "@notes.md", "@pic.png", "and then this", cwd=project, input="from stdin\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second answer\n"
    first, second = (r.body for r in llm_server.requests)
    first_user = first["messages"][-1]["content"]
    texts = "".join(p.get("text", "") for p in first_user if p["type"] == "text")
    assert "remember the milk" in texts and str(project / "notes.md") in texts and "from stdin" in texts
    images = [p for p in first_user if p["type"] == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert _user_texts(second)[-1] == "and then this"


def test_system_prompt_file_append_text_and_tool_selection(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    (project / "SYSTEM.txt").write_text("You are a pirate.")
    llm_server.enqueue(text("arr"))
    llm_server.enqueue(text("arr again"))
    args = ["--no-session", "--system-prompt", "SYSTEM.txt", "--append-system-prompt", "Always rhyme."]
    assert run_pi(*args, "--tools", "read", "-p", "hi", cwd=project).returncode == 0
    assert run_pi("--no-session", "--no-tools", "-p", "hi", cwd=project).returncode == 0
    first, second = (r.body for r in llm_server.requests)
    system = first["messages"][0]["content"]
    assert system.startswith("You are a pirate.") and "Always rhyme." in system
    assert [t["function"]["name"] for t in first["tools"]] == ["read"]
    assert not second.get("tools")


def test_model_with_thinking_suffix_and_api_key(llm_server, project, agent_dir) -> None:
    agent_dir.mkdir(parents=True)
    config = {
        "providers": {
            "fake": {
                "baseUrl": llm_server.base_url + "/v1",
                "api": "openai-completions",
                "apiKey": "PI_TEST_KEY_THAT_IS_NOT_SET",  # an env var name: no key without --api-key
                "models": [{"id": "fake-model", "reasoning": True}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(config))
    llm_server.enqueue(text("thought about it"))
    result = run_pi(
        "--no-session", "--model", "fake/fake-model:high", "--api-key", "sk-cli", "-p", "q", cwd=project
    )
    assert result.returncode == 0, result.stderr
    request = llm_server.requests[0]
    assert request.headers["authorization"] == "Bearer sk-cli"
    assert request.body.get("reasoning_effort") == "high"


def test_session_id_then_fork(llm_server, project, agent_dir) -> None:
    write_models_json(agent_dir, llm_server.base_url)
    sid = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"
    llm_server.enqueue(text("one"))
    llm_server.enqueue(text("two"))
    llm_server.enqueue(text("three"))
    assert run_pi("--session-id", sid, "-p", "first", cwd=project).returncode == 0
    assert run_pi("--session-id", sid, "-p", "second", cwd=project).returncode == 0
    assert _user_texts(llm_server.requests[1].body) == ["first", "second"]
    files = session_files(agent_dir)
    assert len(files) == 1 and sid in files[0].name
    forked = run_pi("--fork", sid[:8], "-p", "third", cwd=project)
    assert forked.returncode == 0, forked.stderr
    assert _user_texts(llm_server.requests[2].body) == ["first", "second", "third"]
    new = [f for f in session_files(agent_dir) if f != files[0]]
    assert len(new) == 1
    header = json.loads(new[0].read_text().splitlines()[0])
    assert header["parentSession"] == str(files[0]) and header["id"] != sid
    clash = run_pi("--fork", sid, "--no-session", "-p", "x", cwd=project)
    assert clash.returncode == 1 and "--fork cannot be combined with --no-session" in clash.stderr


def test_unknown_option_is_one_line_and_exit_2(project) -> None:
    result = run_pi("--frobnicate", "-p", "hi", cwd=project)
    assert result.returncode == 2
    assert result.stderr == "pi: unknown option --frobnicate (see pi --help)\n"
    assert result.stdout == ""


async def test_skill_and_prompt_template_flags_over_rpc(llm_server, project, agent_dir, tmp_path) -> None:
    from pi_app.modes.rpc_client import RpcClient
    from tests.e2e.helpers import PI

    write_models_json(agent_dir, llm_server.base_url)
    skill = tmp_path / "skills" / "pdf-tools"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Work with PDF files\n---\nUse pdftotext.\n"
    )
    template = tmp_path / "review.md"
    template.write_text("---\ndescription: Review code\n---\nPlease review $1 carefully.\n")
    llm_server.enqueue(text("reviewed"))
    llm_server.enqueue(text("skilled"))
    args = ["--no-session", "--skill", str(skill), "--prompt-template", str(template)]
    async with RpcClient(cli_args=args, cwd=str(project), command=[PI]) as client:
        commands = {c["name"]: c for c in await client.get_commands()}
        assert commands["review"]["source"] == "prompt" and commands["review"]["description"] == "Review code"
        assert commands["review"]["path"] == str(template)
        assert commands["skill:pdf-tools"]["source"] == "skill"
        await client.prompt_and_wait("/review src/app.py")
        await client.prompt_and_wait("/skill:pdf-tools extract page 2")
    first, second = (r.body for r in llm_server.requests)
    assert (
        "pdf-tools" in first["messages"][0]["content"]
        and "Work with PDF files" in first["messages"][0]["content"]
    )
    assert _user_texts(first)[-1] == "Please review src/app.py carefully."
    assert "Use pdftotext." in _user_texts(second)[-1] and "extract page 2" in _user_texts(second)[-1]

    # a discovered skill (in the agent dir) is listed unless --no-skills says otherwise
    import shutil

    shutil.copytree(skill, agent_dir / "skills" / "pdf-tools")
    llm_server.enqueue(text("plain"))
    llm_server.enqueue(text("plain"))
    assert run_pi("--no-session", "-p", "hi", cwd=project).returncode == 0
    assert run_pi("--no-session", "--no-skills", "-p", "hi", cwd=project).returncode == 0
    assert "pdf-tools" in llm_server.requests[-2].body["messages"][0]["content"]
    assert "pdf-tools" not in llm_server.requests[-1].body["messages"][0]["content"]
