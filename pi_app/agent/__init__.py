"""L2 ``pi_app.agent``: the stateless agent loop, the tool pipeline and the stateful ``Agent``.

Imports only the standard library and ``pi_app.ai``; knows nothing of sessions, UI, settings or
providers (spec 20 §1.2). Two entry levels: ``run_agent_loop``/``agent_loop`` (stateless, for
scripts, sub-agents and tests) and ``Agent`` (transcript, queues, listeners; what the coding layer
uses). ``pi_app.agent.testing`` holds fake tools, an event recorder and the grammar checker.
"""

from pi_app.agent.agent import (
    Agent,
    AgentBusyError,
    AgentError,
    AgentOptions,
    AgentState,
    Listener,
    PendingMessageQueue,
    default_convert_to_llm,
)
from pi_app.agent.events import AGENT_EVENT_TYPES, AgentEvent, agent_event_to_dict
from pi_app.agent.loop import (
    AgentEventStream,
    agent_loop,
    agent_loop_continue,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_app.agent.stream_fn import StreamFn, get_default_stream_fn, set_default_stream_fn
from pi_app.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentCustomMessage,
    AgentLoopConfig,
    AgentLoopTurnUpdate,
    AgentMessage,
    AgentThinkingLevel,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    QueueMode,
    ToolExecutionMode,
    ToolUpdateCallback,
    TurnContext,
    message_class_for_role,
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
    "AgentEventStream",
    "AgentLoopConfig",
    "AgentLoopTurnUpdate",
    "AgentMessage",
    "AgentOptions",
    "AgentState",
    "AgentThinkingLevel",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "Listener",
    "PendingMessageQueue",
    "QueueMode",
    "StreamFn",
    "ToolExecutionMode",
    "ToolUpdateCallback",
    "TurnContext",
    "agent_event_to_dict",
    "agent_loop",
    "agent_loop_continue",
    "default_convert_to_llm",
    "get_default_stream_fn",
    "message_class_for_role",
    "register_message_role",
    "run_agent_loop",
    "run_agent_loop_continue",
    "set_default_stream_fn",
]
