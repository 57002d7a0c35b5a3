"""``pi serve``: a resident supervisor with one ``pi --mode rpc`` child per session (issue 24).

Pieces, innermost first:

- ``event_log``   numbered, bounded history of one session's events, replayed after ``Last-Event-ID``
- ``host``        one session: its RPC child (started, restarted after a crash, stopped when idle)
- ``supervisor``  the set of hosted sessions, keyed by the session id they were opened with
- ``security``    the bearer token file, loopback and origin rules (no web framework needed)
- ``http_app``    the Starlette application: routes, size limit, authentication, OpenAPI
- ``openapi``     the OpenAPI description the server serves
- ``command``     the ``pi serve`` command line (uvicorn)

Nothing here reaches into a session: the children speak the RPC protocol of ``pi_app.modes.rpc``
through ``pi_app.modes.rpc_client``, and events pass through unchanged.
"""
