"""The ``bash`` tool and user-initiated ``!cmd`` execution (spec 50 §3.8, R-BASH-01..25).

``LocalBashOperations.exec`` only moves bytes: it spawns ``<shell> -c <command>`` in a new process
group (stdin /dev/null, stderr merged into stdout), streams chunks to ``on_data``, kills the whole
group on abort/timeout and returns the exit code ([DEV] death by signal N is ``128+N``). Any other
``BashOperations`` (SSH, container) implements the same ``exec`` contract; the tool layer does the
accumulation, truncation, streaming updates (at most one per 100 ms) and messages.

``execute_user_bash`` runs the user's ``!cmd`` with the same machinery, sanitising the text, and
returns what a ``bashExecution`` message needs instead of raising on a non-zero exit.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pi_app.agent.types import AgentToolResult, ToolUpdateCallback
from pi_app.ai.event_stream import AbortSignal
from pi_app.ai.types import TextContent
from pi_app.coding.tools.definition import BuiltinParams, ToolDefinition, define_tool
from pi_app.coding.tools.support import format_number, maybe_await
from pi_app.coding.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

if TYPE_CHECKING:  # the shell and output handling load with the first command (start-up cost)
    from pi_app.coding.tools.output_accumulator import OutputAccumulator
    from pi_app.coding.tools.shell import BashSpawnContext

UPDATE_INTERVAL_S = 0.1
DRAIN_IDLE_S = 0.1
KILL_DRAIN_S = 1.0
_READ_SIZE = 64 * 1024
_EXIT_POLL_S = 0.05


class BashParams(BuiltinParams):
    wire_schema: ClassVar[dict[str, Any]] = {
        "properties": {
            "command": {"description": "Bash command to execute", "type": "string"},
            "timeout": {"description": "Timeout in seconds (optional, no default timeout)", "type": "number"},
        },
        "required": ["command"],
        "type": "object",
    }
    command: str
    timeout: float | None = None


class BashAborted(Exception):
    def __init__(self) -> None:
        super().__init__("Command aborted")


class BashTimeout(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"Command timed out after {format_number(seconds)} seconds")
        self.seconds = seconds


class BashOperations(Protocol):
    async def exec(
        self,
        command: str,
        cwd: str,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str] | None,
    ) -> int | None: ...


async def _pump_output(
    proc: asyncio.subprocess.Process, on_data: Callable[[bytes], None], killed_at: list[float]
) -> None:
    """Read until EOF. After the shell exits, stop once the pipe is idle for 100 ms (a daemon may
    hold it open); after a kill, stop at most ~1 s later whatever happens (R-BASH-12).

    ``proc.wait()`` cannot tell us the shell exited: asyncio resolves it only once every pipe is
    closed, which an escaped daemon prevents. ``proc.returncode`` is set at exit, so it is polled.
    """
    assert proc.stdout is not None
    while True:
        read_task = asyncio.ensure_future(proc.stdout.read(_READ_SIZE))
        while not read_task.done():
            if proc.returncode is None and not killed_at:
                await asyncio.wait({read_task}, timeout=_EXIT_POLL_S)
                continue
            if killed_at:
                budget = max(0.0, killed_at[0] + KILL_DRAIN_S - time.monotonic())
            else:
                budget = DRAIN_IDLE_S
            done, _ = await asyncio.wait({read_task}, timeout=budget)
            if not done:
                read_task.cancel()
                return
        chunk = read_task.result()
        if not chunk:
            return
        on_data(chunk)


def _close_stdout(proc: asyncio.subprocess.Process) -> None:
    """Close our end of the pipe so ``proc.wait()`` can resolve even if a daemon still holds it."""
    transport = getattr(proc, "_transport", None)
    pipe = transport.get_pipe_transport(1) if transport is not None else None
    if pipe is not None:
        pipe.close()


class LocalBashOperations:
    def __init__(self, shell_path: str | None = None) -> None:
        self.shell_path = shell_path

    async def exec(
        self,
        command: str,
        cwd: str,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str] | None,
    ) -> int | None:
        if signal is not None and signal.aborted:
            raise BashAborted()
        if not os.path.isdir(cwd):
            raise OSError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
        from pi_app.coding.tools.shell import (
            kill_process_group,
            resolve_shell,
            starting_shell,
            track_process_group,
            untrack_process_group,
        )

        shell = resolve_shell(self.shell_path)
        with starting_shell():  # an exit signal meanwhile waits until the group is tracked
            proc = await asyncio.create_subprocess_exec(
                shell,
                "-c",
                command,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
            track_process_group(proc.pid)
        reason: list[str] = []
        killed_at: list[float] = []

        def kill(why: str) -> None:
            if not reason:
                reason.append(why)
                killed_at.append(time.monotonic())
                kill_process_group(proc.pid)

        remove_listener = signal.add_listener(lambda: kill("aborted")) if signal is not None else None
        timer = asyncio.get_running_loop().call_later(timeout, kill, "timeout") if timeout else None
        try:
            await _pump_output(proc, on_data, killed_at)
            _close_stdout(proc)
            await proc.wait()  # a shell that closed stdout early may still run; abort/timeout still apply
        except BaseException:
            kill("cancelled")
            _close_stdout(proc)
            raise
        finally:
            untrack_process_group(proc.pid)
            if timer is not None:
                timer.cancel()
            if remove_listener is not None:
                remove_listener()
        if reason and reason[0] == "aborted":
            raise BashAborted()
        if reason and reason[0] == "timeout":
            raise BashTimeout(timeout or 0)
        code = proc.returncode
        if code is not None and code < 0:
            return 128 - code
        return code


def create_local_bash_operations(shell_path: str | None = None) -> LocalBashOperations:
    return LocalBashOperations(shell_path)


@dataclass
class BashToolOptions:
    """How the bash tool runs commands: back end, prefix, spawn hook, shell."""

    operations: BashOperations | None = None
    command_prefix: str | None = None
    spawn_hook: Callable[[BashSpawnContext], BashSpawnContext] | None = None
    shell_path: str | None = None
    expose_session_environment: bool = True
    bin_dir: str | None = None


def _join(text: str, message: str) -> str:
    return f"{text}\n\n{message}" if text else message


def _partial_text(accumulator: OutputAccumulator) -> str:
    return "" if accumulator.empty else _render(accumulator)[0]


def _render(accumulator: OutputAccumulator) -> tuple[str, dict | None]:
    snap = accumulator.snapshot()
    text = snap.text or "(no output)"
    notice = snap.notice()
    if notice:
        text = f"{text}\n\n{notice}"
    return text, snap.details()


class _Throttle:
    """Calls ``emit`` at most once per interval while output arrives, plus a final flush."""

    def __init__(self, emit: Callable[[], None], interval: float = UPDATE_INTERVAL_S) -> None:
        self._emit = emit
        self._interval = interval
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._dirty = False

    def _fire(self) -> None:
        self._timer = None
        self._dirty = False
        self._last = time.monotonic()
        self._emit()

    def poke(self) -> None:
        self._dirty = True
        if self._timer is not None:
            return
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self._fire()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._dirty:
            self._fire()


def create_bash_tool_definition(cwd: str, options: BashToolOptions | None = None) -> ToolDefinition:
    options = options or BashToolOptions()
    ops = options.operations or LocalBashOperations(options.shell_path)

    async def run(
        args: BashParams, signal: AbortSignal | None, on_update: ToolUpdateCallback | None, ctx: Any
    ) -> AgentToolResult:
        from pi_app.coding.tools.output_accumulator import OutputAccumulator
        from pi_app.coding.tools.shell import BashSpawnContext, build_shell_env

        timeout = args.timeout
        if timeout is not None and (not math.isfinite(timeout) or timeout <= 0):
            raise ValueError("Invalid timeout: must be a finite number of seconds")
        command = f"{options.command_prefix}\n{args.command}" if options.command_prefix else args.command
        env = build_shell_env(ctx, options.expose_session_environment, options.bin_dir)
        spawn = BashSpawnContext(command, cwd, env)
        if options.spawn_hook is not None:
            spawn = await maybe_await(options.spawn_hook(spawn))

        accumulator = OutputAccumulator()

        def emit_update() -> None:
            if on_update is None:
                return
            snap = accumulator.snapshot()
            details: dict[str, Any] = {}
            if snap.truncated:
                details["truncation"] = snap.truncation.to_dict()
            if snap.full_output_path:
                details["fullOutputPath"] = snap.full_output_path
            on_update(AgentToolResult(content=[TextContent(text=snap.text)], details=details))

        throttle = _Throttle(emit_update)

        def on_data(chunk: bytes) -> None:
            accumulator.append(chunk)
            if on_update is not None:
                throttle.poke()

        if on_update is not None:
            on_update(AgentToolResult(content=[], details=None))
        started = time.monotonic()
        structured: dict[str, Any] = {}
        try:
            try:
                exit_code = await ops.exec(spawn.command, spawn.cwd, on_data, signal, timeout, spawn.env)
            finally:
                accumulator.finish()
                throttle.flush()
        except BashAborted:
            raise RuntimeError(_join(_partial_text(accumulator), "Command aborted")) from None
        except BashTimeout as exc:
            seconds = format_number(timeout if timeout is not None else exc.seconds)
            message = f"Command timed out after {seconds} seconds"
            raise RuntimeError(_join(_partial_text(accumulator), message)) from None
        finally:
            text, details = _render(accumulator)
            snap = accumulator.snapshot()
            # pi 1.6.0's structuredContent (what programmatic callers such as codemode read)
            structured = {"output": snap.text, "truncated": bool(snap.truncated)}
            if snap.truncated and snap.full_output_path:
                structured["full_output_path"] = snap.full_output_path
            accumulator.close()
        structured["exit_code"] = exit_code if exit_code is not None else 0
        structured["wall_time_seconds"] = round(time.monotonic() - started, 1)
        failed = exit_code not in (0, None)
        if failed:  # pi 1.6.0: returned as an error result, so details and structuredContent survive
            text = f"{text}\n\nCommand exited with code {exit_code}"
        return AgentToolResult(
            content=[TextContent(text=text)], details=details, structured_content=structured, is_error=failed
        )

    guidelines = (
        ["PI_* environment variables in bash describe the current model and session, if you need them."]
        if options.expose_session_environment
        else None
    )
    return define_tool(
        "bash",
        (
            "Run a bash command in the working directory and return its stdout and stderr. Output is cut "
            f"to the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, whichever is hit "
            "first; when cut, the full output is saved to a temp file. Optionally pass a timeout in seconds."
        ),
        BashParams,
        run,
        prompt_snippet="Execute bash commands (ls, grep, find, etc.)",
        prompt_guidelines=guidelines,
    )


@dataclass
class BashResult:
    """What a ``bashExecution`` message records for a user ``!cmd`` (R-BASH-25).

    ``output`` is the kept tail without a notice; ``full_output_path`` names the complete log.
    """

    command: str
    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None


async def execute_user_bash(
    command: str,
    cwd: str,
    on_chunk: Callable[[str], None] | None = None,
    signal: AbortSignal | None = None,
    operations: BashOperations | None = None,
    *,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    ctx: Any = None,
    expose_session_environment: bool = True,
) -> BashResult:
    """Run the user's ``!cmd``: sanitised streaming text, cancellation, tail truncation; never raises
    for a non-zero exit (the caller turns the result into a ``bashExecution`` message)."""
    from pi_app.coding.tools.output_accumulator import OutputAccumulator, sanitize_output
    from pi_app.coding.tools.shell import build_shell_env

    ops = operations or LocalBashOperations(shell_path)
    full_command = f"{command_prefix}\n{command}" if command_prefix else command
    env = build_shell_env(ctx, expose_session_environment)
    accumulator = OutputAccumulator(sanitize=sanitize_output)

    def on_data(chunk: bytes) -> None:
        text = accumulator.append(chunk)
        if text and on_chunk is not None:
            on_chunk(text)

    cancelled = False
    exit_code: int | None = None
    try:
        try:
            exit_code = await ops.exec(full_command, cwd, on_data, signal, None, env)
        except BashAborted:
            cancelled = True
        finally:
            tail = accumulator.finish()
            if tail and on_chunk is not None:
                on_chunk(tail)
        snap = accumulator.snapshot()
        return BashResult(
            command=command,
            output=snap.text,
            exit_code=None if cancelled else (exit_code if exit_code is not None else 0),
            cancelled=cancelled,
            truncated=snap.truncated,
            full_output_path=snap.full_output_path,
        )
    finally:
        accumulator.close()
