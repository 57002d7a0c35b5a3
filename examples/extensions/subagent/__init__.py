"""Sub-agents as child processes (70 §2.2, R-NOGO-06).

The ``subagent`` tool runs ``pi --mode json -p --no-session`` for each task and returns the child's
final answer and token usage. Three modes:

- single: ``{"agent": "scout", "task": "…"}``
- parallel: ``{"tasks": [{"agent": …, "task": …}, …]}`` (at most 8 tasks, 4 at a time)
- chain: ``{"chain": [{"agent": …, "task": "… {previous} …"}, …]}`` (each step sees the last output)

Agent definitions are Markdown files with frontmatter (``name``, ``description``, optional ``model``
and ``tools``); the body becomes the child's appended system prompt. They are read from
``<agentDir>/agents/`` (see ``agents/`` here for samples). Project definitions in ``.pi/agents/``
are used only with ``"agent_scope": "both"`` or ``"project"`` and, interactively, after a
confirmation. Aborting the tool kills the children.

``PI_SUBAGENT_COMMAND`` overrides the command that starts a child (default: this Python running
``-m pi_app``, which is the ``pi`` command).
"""

from pi_app.ext import ExtensionAPI

from .tool import setup as _setup


def setup(pi: ExtensionAPI) -> None:
    _setup(pi)
