"""RPC mode: framing, protocol envelopes, the server and its extension-UI bridge (spec 60 §3.16)."""
