"""User shell commands typed as ``!cmd`` (output goes into the context) or ``!!cmd`` (it does not).

R-INT-03: the command runs on the agent loop (``execute_bash`` of the session when it has one,
else the coding layer's ``execute_user_bash``), its output streams into a ``UserBashBlock``, and
the result is recorded as a ``bashExecution`` message for the next prompt. While the agent is
streaming the block waits in the pending area's place at the end of the transcript, which is
where pi shows it too. Only one user command runs at a time; Escape cancels it.
"""

from __future__ import annotations

from typing import Any

from pi_app.tui.blocks.user_bash import UserBashBlock


class UserBashRun:
    def __init__(self, app: Any, command: str, exclude: bool) -> None:
        self.app = app
        self.command = command
        self.exclude = exclude
        self.running = True
        self.block = UserBashBlock(
            command,
            exclude_from_context=exclude,
            expand_hint=app.hint("app.tools.expand"),
            cancel_hint=app.hint("app.interrupt"),
        )
        self._controller: Any = None

    def abort(self) -> None:
        controller = self._controller
        if controller is not None:
            self.app.bridge.call_soon(lambda _s: controller.abort())

    def _chunk(self, text: str) -> None:
        """Called on the agent loop: hop to the UI thread."""
        self.app.call_from_thread(self._append, text)

    def _append(self, text: str) -> None:
        self.block.append(text)
        self.app.transcript.refresh_block(self.block)

    async def run(self) -> None:
        app = self.app
        app.transcript.append_block(self.block)
        try:
            result = await app.bridge.request(self._execute)
        except Exception as exc:
            self.block.finish(exit_code=None, cancelled=False)
            app.transcript.refresh_block(self.block, immediate=True)
            app.show_error(str(exc) or type(exc).__name__)
        else:
            self.block.finish(
                output=result.output,
                exit_code=result.exit_code,
                cancelled=result.cancelled,
                truncated=result.truncated,
                full_output_path=result.full_output_path,
            )
            app.transcript.refresh_block(self.block, immediate=True)
        finally:
            self.running = False

    async def _execute(self, session: Any) -> Any:
        from pi_app.ai.event_stream import AbortController

        self._controller = controller = AbortController()
        if hasattr(session, "execute_bash"):
            return await session.execute_bash(
                self.command,
                on_chunk=self._chunk,
                signal=controller.signal,
                exclude_from_context=self.exclude,
            )
        from pi_app.ai.types import now_ms
        from pi_app.coding.messages import BashExecutionMessage
        from pi_app.coding.tools.bash import execute_user_bash

        settings = session.settings_manager
        result = await execute_user_bash(
            self.command,
            session.cwd,
            self._chunk,
            controller.signal,
            shell_path=settings.get_shell_path(),
            command_prefix=settings.get_shell_command_prefix(),
        )
        message = BashExecutionMessage(
            command=result.command,
            output=result.output,
            exit_code=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            full_output_path=result.full_output_path,
            exclude_from_context=self.exclude or None,
            timestamp=now_ms(),
        )
        session.agent.state.messages.append(message)
        session.session_manager.append_message(message)
        return result


def run_user_bash(app: Any, text: str) -> None:
    """Start ``!cmd`` / ``!!cmd`` unless one is already running (then the text stays put)."""
    current = app.user_bash
    if current is not None and current.running:
        app.editor.set_text(text)
        app.show_warning(
            f"A bash command is already running. Press {app.hint('app.interrupt')} to cancel it first."
        )
        return
    exclude = text.startswith("!!")
    command = text[2:] if exclude else text[1:]
    run = app.user_bash = UserBashRun(app, command.strip(), exclude)
    app.run_worker(run.run(), group="user-bash", exit_on_error=False)
