"""L2 ``pi_app.agent``: the stateless agent loop, the tool pipeline and the stateful ``Agent``.

Imports only the standard library and ``pi_app.ai``; knows nothing of sessions, UI, settings or
providers (spec 20 §1.2).
"""

from pi_app.agent.agent import (
    Agent,
    AgentBusyError,
    AgentError,
    AgentOptions,
    AgentState,
    PendingMessageQueue,
)
from pi_app.agent.events import AGENT_EVENT_TYPES, AgentEvent, agent_event_to_dict
from pi_app.agent.loop import agent_loop, agent_loop_continue, run_agent_loop, run_agent_loop_continue
from pi_app.agent.stream_fn import get_default_stream_fn, set_default_stream_fn
from pi_app.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentCustomMessage,
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    AgentMessage,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    TurnContext,
    register_message_role,
)
from pi_app.ai.event_stream import AbortController, AbortError, AbortSignal

__all__ = [
    "AGENT_EVENT_TYPES",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "AfterToolCallContext",
    "AfterToolCallResult",
    "Agent",
    "AgentBusyError",
    "AgentContext",
    "AgentCustomMessage",
    "AgentError",
    "AgentEvent",
    "AgentLoopConfig",
    "AgentLoopTurnUpdate",
    "AgentMessage",
    "AgentOptions",
    "AgentState",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "PendingMessageQueue",
    "TurnContext",
    "agent_event_to_dict",
    "agent_loop",
    "agent_loop_continue",
    "get_default_stream_fn",
    "register_message_role",
    "run_agent_loop",
    "run_agent_loop_continue",
    "set_default_stream_fn",
]
