"""``pi mom``: the coding agent as a Slack bot (issue 26, design book chapter 28).

A separate shell over the public SDK (``pi_app.ext``); it needs the ``mom`` extra (``slack_bolt``,
``slack_sdk``). ``commands`` is the command line, ``slack`` the Socket Mode connection and Web API
transport, ``bot`` the dispatcher (conversations, busy, stop, event queue), ``runner`` one
conversation's session and its output mapping, ``outbound`` the ordered queue and message
splitting, ``workspace`` the data folder, ``events`` the scheduled events, ``sandbox`` where bash
runs (host or a Docker container).
"""
