"""MCP tools and the ``mcp_servers`` prompt section in a session's runs (issue 22).

``prepare_run`` runs before every agent run. In print and JSON mode the servers are not connected
at start-up but here: at once when some have ``direct`` tools (the request must declare them),
else as soon as the model's answer starts (the first request is out). It then waits (up to 10 s) for servers with ``direct``
tools that are still on their first connection attempt, then replaces the MCP tools in the
agent's tool list (the others keep their order) and puts the current ``<mcp_servers>`` section at
the end of the system prompt. ``next_turn`` is the agent's ``prepare_next_turn_with_context`` hook:
between two model calls of one run it declares what changed (a server connected, ``tool_search``
loaded tools), so a loaded tool can be called in the very next step.

Decision: the section sits at the end of the system prompt and is rebuilt per run (1.6.0 appends a
changed section to the conversation instead); its text depends only on the configuration and the
servers' instructions, so it rarely changes and the provider's prompt cache stays warm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_app.ai.event_stream import AbortSignal
from pi_app.coding.mcp.tools import loaded_tool_names

if TYPE_CHECKING:
    from pi_app.coding.agent_session import AgentSession

SECTION_START = "\n\n<mcp_servers>"


def _merged(session: AgentSession, tools: list[Any], messages: list[Any]) -> list[Any]:
    base = [t for t in tools if not getattr(t, "mcp", False)]
    names = {getattr(t, "name", None) for t in base}
    extra = [t for t in session.mcp.agent_tools(loaded_tool_names(messages)) if t.name not in names]
    return base + extra


def _with_section(session: AgentSession, prompt: str) -> str:
    base = prompt.split(SECTION_START, 1)[0]
    section = session.mcp.prompt_section()
    return f"{base}\n\n{section}" if section else base


def _connect_after_first_request(session: AgentSession) -> None:
    """Connect once the model's answer starts (the request is out) or the run ends. No timer: on a
    busy machine a wall-clock deadline would fire before the request; a tool that needs a server
    connects it on the spot."""
    mcp = session.mcp
    unsubscribe: Any = None

    def listener(event: Any) -> None:
        if getattr(event, "type", None) not in ("message_start", "agent_end"):
            return
        if event.type == "message_start" and getattr(event.message, "role", None) != "assistant":
            return
        if unsubscribe is not None:
            unsubscribe()
        if not mcp.connecting:
            mcp.connect_all()

    unsubscribe = session.subscribe(listener)


async def prepare_run(session: AgentSession) -> None:
    mcp = session.mcp
    if not mcp.connecting and not mcp.has_direct_servers():
        # print/JSON mode defer connecting: the SDK import and the servers' start-up must not
        # compete with sending the first request, which needs none of them
        _connect_after_first_request(session)
    await mcp.wait_direct()
    state = session.agent.state
    state.tools = _merged(session, list(state.tools), list(state.messages))
    state.system_prompt = _with_section(session, state.system_prompt)
    _install_hook(session)


def _install_hook(session: AgentSession) -> None:
    agent = session.agent
    if getattr(agent, "_pi_mcp_hook", False):
        return
    previous = agent.prepare_next_turn_with_context
    from pi_app.agent.types import AgentContext, AgentLoopTurnUpdate

    async def next_turn(turn: Any, signal: AbortSignal | None) -> Any:
        update = None
        if previous is not None:
            from pi_app.agent.tools import maybe_await

            update = await maybe_await(previous(turn, signal))
        if session.mcp is None:
            return update
        context = update.context if update is not None and update.context is not None else turn.context
        current = list(context.tools or [])
        tools = _merged(session, current, list(context.messages))
        if [t.name for t in tools] == [t.name for t in current]:
            return update
        fresh = AgentContext(system_prompt=context.system_prompt, messages=context.messages, tools=tools)
        if update is None:
            return AgentLoopTurnUpdate(context=fresh)
        update.context = fresh
        return update

    agent.prepare_next_turn_with_context = next_turn
    agent._pi_mcp_hook = True
