"""ACP mode: ``pi --mode acp``, the Agent Client Protocol over stdio for editors (Zed, JetBrains)."""
