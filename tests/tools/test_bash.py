"""The bash tool and user bash (spec 50 §3.8, scenarios 22-26)."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import stat
import subprocess
import time
from types import SimpleNamespace

import pytest

from pi_app.ai.event_stream import AbortController
from pi_app.ai.types import Model
from pi_app.coding.tools import (
    BashSpawnContext,
    create_bash_tool,
    execute_user_bash,
)
from tests.tools.conftest import aborted_signal, run_tool, text_of


async def bash(cwd: str, command: str, **kwargs):
    tool_kwargs = {
        k: kwargs.pop(k)
        for k in list(kwargs)
        if k in ("command_prefix", "spawn_hook", "expose_session_environment")
    }
    params = {"command": command}
    if "timeout" in kwargs:
        params["timeout"] = kwargs.pop("timeout")
    return await run_tool(create_bash_tool(cwd, **tool_kwargs), params, **kwargs)


async def test_basic_output(cwd):
    result = await bash(cwd, "echo 'test output'")
    assert text_of(result) == "test output\n"
    assert result.details is None


async def test_no_output(cwd):
    assert text_of(await bash(cwd, "true")) == "(no output)"


async def test_nonzero_exit_is_error_with_output(cwd):
    failed = await bash(cwd, "echo oops >&2; exit 1")  # returned, not raised (pi 1.6.0)
    assert failed.is_error and text_of(failed) == "oops\n\n\nCommand exited with code 1"
    assert failed.structured_content["exit_code"] == 1 and failed.structured_content["output"] == "oops\n"
    silent = await bash(cwd, "exit 3")
    assert silent.is_error and text_of(silent) == "(no output)\n\nCommand exited with code 3"


async def test_timeout(cwd):
    started = time.monotonic()
    with pytest.raises(Exception, match=r"Command timed out after 1 seconds$"):
        await bash(cwd, "sleep 5", timeout=1)
    assert time.monotonic() - started < 3


async def test_invalid_timeout(cwd):
    with pytest.raises(Exception, match="^Invalid timeout: must be a finite number of seconds$"):
        await bash(cwd, "true", timeout=0)


async def test_missing_cwd(tmp_path):
    with pytest.raises(Exception, match="^Working directory does not exist:"):
        await bash(str(tmp_path / "gone"), "true")


async def test_command_prefix(cwd):
    result = await bash(cwd, "echo $TEST_VAR", command_prefix="export TEST_VAR=hello")
    assert text_of(result).rstrip("\n") == "hello"
    result = await bash(cwd, "echo command-output", command_prefix="echo prefix-output")
    assert text_of(result).rstrip("\n") == "prefix-output\ncommand-output"


async def test_spawn_hook_rewrites(cwd):
    def hook(spawn: BashSpawnContext) -> BashSpawnContext:
        return BashSpawnContext(spawn.command.replace("one", "two"), spawn.cwd, {**spawn.env, "HOOKED": "1"})

    result = await bash(cwd, "echo one $HOOKED", spawn_hook=hook)
    assert text_of(result) == "two 1\n"


async def test_stderr_interleaved_in_order(cwd):
    result = await bash(cwd, "echo a; echo b >&2; echo c")
    assert text_of(result) == "a\nb\nc\n"


async def test_tail_truncation_and_full_output_file(cwd):
    result = await bash(cwd, "seq 1 3000")
    text = text_of(result)
    body, notice = text.rsplit("\n\n", 1)
    lines = body.splitlines()
    assert (lines[0], lines[-1], len(lines)) == ("1001", "3000", 2000)
    match = re.fullmatch(
        r"\[Showing lines 1001-3000 of 3000\. Full output: (.+/pi-bash-[0-9a-f]{16}\.log)\]", notice
    )
    assert match, notice
    path = match.group(1)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path) as handle:
        assert handle.read().split() == [str(i) for i in range(1, 3001)]
    assert result.details["fullOutputPath"] == path
    assert result.details["truncation"]["truncatedBy"] == "lines"
    os.unlink(path)


async def test_byte_truncation_notice(cwd):
    result = await bash(cwd, "for i in $(seq 1 600); do printf 'row %04d %0100d\\n' $i 0; done")
    notice = text_of(result).rsplit("\n\n", 1)[1]
    match = re.fullmatch(r"\[Showing lines (\d+)-600 of 600 \(50\.0KB limit\)\. Full output: (.+)\]", notice)
    assert match, notice
    assert text_of(result).startswith(f"row {int(match.group(1)):04d} ")
    os.unlink(match.group(2))


async def test_huge_single_line_keeps_its_end(cwd):
    result = await bash(cwd, "head -c 70000 /dev/zero | tr '\\0' 'z'; echo END")
    notice = text_of(result).rsplit("\n\n", 1)[1]
    assert notice.startswith("[Showing last 50.0KB of line 1 (line is 68.4KB). Full output: ")
    assert "zzzEND\n\n\n[Showing last" in text_of(result)
    os.unlink(result.details["fullOutputPath"])


async def test_abort_kills_process_group(cwd):
    marker = f"pi-test-sleep-{secrets.token_hex(6)}"  # unique argv[0] for pgrep, even across parallel runs
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.5, controller.abort)
    started = time.monotonic()
    with pytest.raises(Exception, match="^Command aborted$"):
        await bash(
            cwd,
            f"bash -c 'exec -a \"{marker}\" sleep 100' & bash -c 'exec -a \"{marker}\" sleep 100'; wait",
            signal=controller.signal,
        )
    assert time.monotonic() - started < 3  # spec: ~1.5 s; generous for a loaded CI machine
    await asyncio.sleep(0.1)
    alive = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.strip()
    assert alive == ""


async def test_already_aborted_never_spawns(cwd):
    with pytest.raises(Exception, match="^Command aborted$"):
        await bash(cwd, f"touch {cwd}/spawned", signal=aborted_signal())
    assert not os.path.exists(os.path.join(cwd, "spawned"))


async def test_abort_keeps_partial_output(cwd):
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.4, controller.abort)
    with pytest.raises(Exception) as info:
        await bash(cwd, "echo started; sleep 10", signal=controller.signal)
    assert str(info.value) == "started\n\n\nCommand aborted"


async def test_escaped_daemon_does_not_hang_the_call(cwd):
    started = time.monotonic()
    result = await bash(cwd, "(setsid sleep 3 &) ; echo done")
    assert text_of(result) == "done\n"
    assert time.monotonic() - started < 2.7  # not the 3 s the daemon sleeps


async def test_killed_by_signal_is_failure(cwd):
    killed = await bash(cwd, "kill -9 $$")
    assert killed.is_error and text_of(killed).endswith("Command exited with code 137")


async def test_session_environment(cwd, monkeypatch):
    monkeypatch.setenv("PI_MODEL", "old")
    ctx = SimpleNamespace(
        session_manager=SimpleNamespace(get_session_id=lambda: "S", get_session_file=lambda: None),
        model=Model(id="m1", provider="anthropic"),
        thinking_level="medium",
    )
    result = await bash(cwd, "env | grep -E '^PI_(SESSION|PROVIDER|MODEL|REASONING)' | sort", ctx=ctx)
    assert text_of(result).split() == [
        "PI_MODEL=m1",
        "PI_PROVIDER=anthropic",
        "PI_REASONING_LEVEL=medium",
        "PI_SESSION_ID=S",
    ]
    hidden = await bash(
        cwd,
        "env | grep -E '^PI_(SESSION|PROVIDER|MODEL|REASONING)' || true",
        ctx=ctx,
        expose_session_environment=False,
    )
    assert text_of(hidden) == "(no output)"
    assert create_bash_tool(cwd, expose_session_environment=False).prompt_guidelines is None


async def test_streaming_updates_are_throttled(cwd):
    updates: list[tuple[float, str]] = []

    def on_update(partial):
        updates.append((time.monotonic(), "".join(b.text for b in partial.content)))

    result = await bash(cwd, "for i in 1 2 3; do echo $i; sleep 0.3; done", on_update=on_update)
    assert text_of(result) == "1\n2\n3\n"
    assert updates[0][1] == ""
    texts = [t for _, t in updates[1:]]
    assert texts[0].startswith("1\n") and texts[-1] == "1\n2\n3\n"
    assert len(texts) >= 2  # output arrived in steps, so the UI saw it grow
    assert all(len(a) <= len(b) for a, b in zip(texts, texts[1:], strict=False))


async def test_fast_output_updates_at_most_every_100ms(cwd):
    stamps: list[float] = []
    await bash(
        cwd,
        "for i in $(seq 1 40); do echo $i; sleep 0.01; done",
        on_update=lambda p: stamps.append(time.monotonic()),
    )
    throttled = stamps[1:-1]  # the first (empty) update and the final flush are immediate
    gaps = [b - a for a, b in zip(throttled, throttled[1:], strict=False)]
    assert gaps and min(gaps) >= 0.095


async def test_user_bash_sanitises_and_reports(cwd):
    chunks: list[str] = []
    result = await execute_user_bash("printf '\\033[31mred\\033[0m\\r\\n'; exit 2", cwd, chunks.append)
    assert result.output == "red\n"
    assert "".join(chunks) == "red\n"
    assert (result.exit_code, result.cancelled, result.truncated) == (2, False, False)


async def test_user_bash_cancel(cwd):
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.3, controller.abort)
    result = await execute_user_bash("echo hi; sleep 10", cwd, None, controller.signal)
    assert result.cancelled and result.exit_code is None and result.output == "hi\n"


async def test_user_bash_truncates(cwd):
    result = await execute_user_bash("seq 1 5000", cwd)
    assert result.truncated and result.full_output_path
    assert result.output.split("\n")[0] == "3001"
    os.unlink(result.full_output_path)


async def test_custom_operations_only_move_bytes(cwd):
    class Remote:
        async def exec(self, command, cwd, on_data, signal, timeout, env):
            on_data(b"remote " + command.encode() + b"\n")
            return 0

    result = await run_tool(create_bash_tool("/remote", Remote()), {"command": "uname"})
    assert text_of(result) == "remote uname\n"


async def test_cancelled_task_kills_the_group(cwd):
    marker = f"pi-test-sleep-{secrets.token_hex(6)}"
    task = asyncio.ensure_future(bash(cwd, f"bash -c 'exec -a \"{marker}\" sleep 99' & wait"))
    await asyncio.sleep(0.4)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.1)
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.strip() == ""


async def test_fractional_timeout_printed_as_given(cwd):
    with pytest.raises(Exception, match=r"^Command timed out after 0\.3 seconds$"):
        await bash(cwd, "sleep 3", timeout=0.3)


async def test_invalid_utf8_output_is_replaced_but_saved_raw(cwd):
    result = await bash(cwd, "printf 'ok \\377\\n'")
    assert text_of(result) == "ok \ufffd\n"
