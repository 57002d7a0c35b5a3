"""The OpenAPI 3.1 description of the ``pi serve`` API, served at ``/api/openapi.json`` (issue 24).

Written out by hand rather than generated: the routes are few, and the bodies are the RPC
protocol's own objects, which this document names instead of repeating (``tests/shells/server``
checks that every route of the application is described here and nothing else).
"""

from __future__ import annotations

from typing import Any

JsonSchema = dict[str, Any]

_SESSION: JsonSchema = {
    "type": "object",
    "description": "A hosted session: its key in the API, the pi session it has, and its child.",
    "properties": {
        "id": {"type": "string", "description": "The key in /api/sessions/{id} (the session id at opening)"},
        "sessionId": {"type": ["string", "null"]},
        "sessionFile": {"type": ["string", "null"]},
        "cwd": {"type": "string"},
        "status": {"enum": ["starting", "running", "stopped", "exited"]},
        "busy": {"type": "boolean", "description": "An agent run is going"},
        "pid": {"type": ["integer", "null"]},
        "starts": {"type": "integer", "description": "Children started for this session so far"},
        "lastExitCode": {"type": ["integer", "null"]},
        "lastEventId": {"type": "integer"},
    },
}
_RPC_RESPONSE: JsonSchema = {
    "type": "object",
    "description": "The child's RPC `response` line unchanged (see pi's RPC documentation).",
    "properties": {
        "type": {"const": "response"},
        "command": {"type": "string"},
        "success": {"type": "boolean"},
        "data": {},
        "error": {"type": "string"},
    },
    "required": ["type", "command", "success"],
}
_ERROR: JsonSchema = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
_IMAGES: JsonSchema = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"const": "image"},
            "data": {"type": "string"},
            "mimeType": {"type": "string"},
        },
    },
}


def _json(schema: JsonSchema, description: str = "OK") -> JsonSchema:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _ref(name: str) -> JsonSchema:
    return {"$ref": f"#/components/schemas/{name}"}


_ERRORS: JsonSchema = {
    "401": _json(_ref("Error"), "Missing or wrong bearer token"),
    "403": _json(_ref("Error"), "Cross-origin without the token, or a Host that is not this machine"),
    "404": _json(_ref("Error"), "No such session"),
    "413": _json(_ref("Error"), "Request body too large"),
}
_RPC_ANSWERS: JsonSchema = {
    "200": _json(_ref("RpcResponse"), "The child accepted the command"),
    "400": _json(_ref("RpcResponse"), "The child refused the command"),
    "502": _json(_ref("Error"), "The child could not start or died before answering"),
    **_ERRORS,
}
_ID = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]


def _message_body(streaming: bool) -> JsonSchema:
    properties: JsonSchema = {"message": {"type": "string"}, "images": _IMAGES}
    if streaming:
        properties["streamingBehavior"] = {
            "enum": ["steer", "followUp"],
            "description": "Needed while a run is going, as in RPC mode; without it a busy session refuses",
        }
    return {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": properties, "required": ["message"]}
            }
        },
    }


def _command(summary: str, body: JsonSchema | None = None) -> JsonSchema:
    operation: JsonSchema = {"summary": summary, "parameters": _ID, "responses": _RPC_ANSWERS}
    if body is not None:
        operation["requestBody"] = body
    return operation


def openapi_document(version: str) -> JsonSchema:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "pi serve",
            "version": version,
            "description": (
                "One `pi --mode rpc` child per session behind HTTP and Server-Sent Events. Send "
                "`Authorization: Bearer <token>` (the token is in `<agent dir>/serve-token`). Events are "
                "the RPC event lines unchanged, plus the server's `child_started`, `child_exited`, "
                "`child_stopped` and `stream_gap`."
            ),
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Session": _SESSION, "RpcResponse": _RPC_RESPONSE, "Error": _ERROR},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/api/health": {
                "get": {"summary": "Liveness and version", "security": [], "responses": {"200": _json({})}}
            },
            "/api/openapi.json": {
                "get": {"summary": "This document", "security": [], "responses": {"200": _json({})}}
            },
            "/api/sessions": {
                "get": {
                    "summary": "The hosted sessions",
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "properties": {"sessions": {"type": "array", "items": _ref("Session")}},
                            }
                        ),
                        **_ERRORS,
                    },
                },
                "post": {
                    "summary": "Open a session: new in a folder, the folder's most recent, by id, or by file",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "cwd": {"type": "string", "description": "The project folder"},
                                        "sessionId": {
                                            "type": "string",
                                            "description": "A saved session's id or unique prefix",
                                        },
                                        "sessionFile": {"type": "string"},
                                        "continue": {
                                            "type": "boolean",
                                            "description": "The folder's most recent session",
                                        },
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": _json(_ref("Session"), "Opened now"),
                        "200": _json(_ref("Session"), "Was already open"),
                        "400": _json(_ref("Error"), "No usable folder"),
                        "502": _json(_ref("Error"), "The child could not start"),
                        **_ERRORS,
                    },
                },
            },
            "/api/sessions/saved": {
                "get": {
                    "summary": "Saved sessions of a folder (all folders without cwd), newest first",
                    "parameters": [{"name": "cwd", "in": "query", "schema": {"type": "string"}}],
                    "responses": {"200": _json({"type": "object"}), **_ERRORS},
                }
            },
            "/api/sessions/{id}": {
                "get": {
                    "summary": "One hosted session",
                    "parameters": _ID,
                    "responses": {"200": _json(_ref("Session")), **_ERRORS},
                },
                "delete": {
                    "summary": "Close: stop its child and forget it (the file stays)",
                    "parameters": _ID,
                    "responses": {"200": _json({"type": "object"}), **_ERRORS},
                },
            },
            "/api/sessions/{id}/prompt": {
                "post": _command("Send a prompt (RPC `prompt`)", _message_body(True))
            },
            "/api/sessions/{id}/steer": {
                "post": _command("Steer the running agent (RPC `steer`)", _message_body(False))
            },
            "/api/sessions/{id}/follow_up": {
                "post": _command("Queue a follow-up (RPC `follow_up`)", _message_body(False))
            },
            "/api/sessions/{id}/abort": {"post": _command("Abort the run (RPC `abort`)")},
            "/api/sessions/{id}/messages": {"get": _command("The messages (RPC `get_messages`)")},
            "/api/sessions/{id}/tree": {"get": _command("The session tree (RPC `get_tree`)")},
            "/api/sessions/{id}/state": {"get": _command("The state (RPC `get_state`)")},
            "/api/sessions/{id}/rpc": {
                "post": _command(
                    'Any other RPC command, e.g. {"type": "compact"}',
                    {
                        "required": True,
                        "content": {"application/json": {"schema": {"type": "object", "required": ["type"]}}},
                    },
                )
            },
            "/api/sessions/{id}/ui-response": {
                "post": {
                    "summary": "Answer an extension dialog (an `extension_ui_response` without its type)",
                    "parameters": _ID,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "id": {"type": "string"},
                                        "value": {"type": "string"},
                                        "confirmed": {"type": "boolean"},
                                        "cancelled": {"type": "boolean"},
                                    },
                                    "required": ["id"],
                                }
                            }
                        },
                    },
                    "responses": {"200": _json({"type": "object"}), "502": _json(_ref("Error")), **_ERRORS},
                }
            },
            "/api/sessions/{id}/events": {
                "get": {
                    "summary": "The session's events as Server-Sent Events, resumable with Last-Event-ID",
                    "parameters": [
                        *_ID,
                        {"name": "Last-Event-ID", "in": "header", "schema": {"type": "integer"}},
                        {
                            "name": "after",
                            "in": "query",
                            "schema": {"type": "integer"},
                            "description": "Same as Last-Event-ID",
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "An endless event stream",
                            "content": {"text/event-stream": {"schema": {"type": "string"}}},
                        },
                        **_ERRORS,
                    },
                }
            },
        },
    }
