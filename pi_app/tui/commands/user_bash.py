"""User shell commands typed as ``!cmd`` (output goes into the context) or ``!!cmd`` (it does not).

R-INT-03: the command runs on the agent loop through ``AgentSession.execute_bash``, which records
the result as a ``bashExecution`` message for the next prompt (held back while the agent streams);
the output streams into a ``UserBashBlock`` at the end of the transcript, or, when the agent is
streaming, in the pending area until the next submit moves it into the transcript (as pi). Only
one user command runs at a time; Escape cancels it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_app.tui.transcript.blocks.user_bash import UserBashBlock

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession
    from pi_app.coding.messages import BashExecutionMessage
    from pi_app.tui.host import CommandHost


class UserBashRun:
    def __init__(self, app: CommandHost, command: str, exclude: bool) -> None:
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

    def abort(self) -> None:
        self.app.bridge.call_soon(lambda s: s.abort_bash())

    def _chunk(self, text: str) -> None:
        """Called on the agent loop: hop to the UI thread."""
        self.app.call_from_thread(self._append, text)

    def _refresh(self, *, immediate: bool = False) -> None:
        if self.block in self.app.pending.bash_blocks:
            self.app.pending.repaint()
        else:
            self.app.transcript.refresh_block(self.block, immediate=immediate)

    def _append(self, text: str) -> None:
        self.block.append(text)
        self._refresh()

    async def run(self) -> None:
        app = self.app
        if app.is_working:
            app.pending.add_bash_block(self.block)
        else:
            app.transcript.append_block(self.block)
        try:
            result: BashExecutionMessage = await app.bridge.request(self._execute)
        except Exception as exc:
            self.block.finish(exit_code=None, cancelled=False)
            self._refresh(immediate=True)
            app.show_error(str(exc) or type(exc).__name__)
        else:
            self.block.finish(
                output=result.output,
                exit_code=result.exit_code,
                cancelled=result.cancelled,
                truncated=result.truncated,
                full_output_path=result.full_output_path,
            )
            self._refresh(immediate=True)
        finally:
            self.running = False

    async def _execute(self, session: AgentSession) -> BashExecutionMessage:
        return await session.execute_bash(
            self.command, exclude_from_context=self.exclude, on_chunk=self._chunk
        )


def flush_pending_bash(app: CommandHost) -> None:
    """Move the ``!`` blocks started while the agent streamed into the transcript (next submit)."""
    for block in app.pending.take_bash_blocks():
        app.transcript.append_block(block)


def run_user_bash(app: CommandHost, text: str) -> None:
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
