"""``pi web``: the full-screen app in a browser tab, served by textual-serve (issue 24).

Each browser tab gets its own ``pi`` process, the same app as in a terminal, drawn by Textual's web
driver; textual-serve (the Textual ecosystem's own server, on aiohttp) carries its screen and keys
over a WebSocket. ``server`` adds the rules of ``pi serve``: loopback by default, the agent dir's
token (from the URL once, then an HttpOnly same-site cookie), and no cross-origin requests without
the token. ``command`` is the ``pi web`` command line.
"""
