"""L4 headless shells over one ``AgentSession``: print, JSON event stream and RPC (no Textual)."""
