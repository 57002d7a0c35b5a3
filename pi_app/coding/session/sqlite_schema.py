"""The SQLite session store's schema: numbered migrations, each a script run once, in order.

``PRAGMA user_version`` holds the number of migrations applied. Version 1 keeps the bytes: one row
per session (its path, folder and modification time) and one row per record of its text. Version 2
adds the per-session summaries the session picker lists from, kept by triggers on every insert.
Version 3 adds the FTS5 index of user and assistant message text.

A record is a stretch of a session's text: normally one line (``nl`` = 1 when a newline ended it),
and a session's text is its records joined in ``seq`` order. Text that is valid UTF-8 without NUL
is stored as TEXT; anything else (a torn multi-byte character, surrogate-escaped bytes) as the raw
BLOB, which the triggers skip. The summaries follow the JSONL listing's rules exactly
(``listing.build_session_info``): the first non-blank line must be a header, every ``message``
entry counts, user/assistant text gives the first message, the newest message time and the search
text; the last ``session_info`` names the session.

Summaries are kept for the store's own operations only: append records, rewrite a whole session
(its records deleted, then inserted again) and delete a session. Deleting the last record of a
session resets its summary.
"""

from __future__ import annotations

WHITESPACE = "' '||char(9,10,11,12,13)"


def message_text(body: str) -> str:
    """SQL for the text of the message entry in column ``body``, as ``listing._text`` reads it."""
    return (
        f"(CASE json_type({body},'$.message.content') "
        f"WHEN 'text' THEN json_extract({body},'$.message.content') "
        f"WHEN 'array' THEN coalesce((SELECT group_concat(coalesce(json_extract(value,'$.text'),''),' ') "
        f"FROM json_each({body},'$.message.content') "
        f"WHERE json_type(value)='object' AND json_extract(value,'$.type')='text'),'') "
        f"ELSE '' END)"
    )


def is_chat_message(body: str) -> str:
    """SQL: ``body`` is a JSON ``message`` entry of a user or an assistant."""
    return (
        f"(typeof({body})='text' AND json_valid({body}) AND json_type({body})='object' "
        f"AND json_extract({body},'$.type')='message' AND json_type({body},'$.message')='object' "
        f"AND json_extract({body},'$.message.role') IN ('user','assistant'))"
    )


def iso_ms(expr: str) -> str:
    """SQL: unix milliseconds of an ISO timestamp; 0 when it cannot be read."""
    return f"coalesce(CAST(round((julianday({expr}) - 2440587.5) * 86400000) AS INTEGER), 0)"


def _message_time(body: str) -> str:
    return (
        f"(CASE WHEN json_type({body},'$.message.timestamp') IN ('integer','real') "
        f"THEN CAST(json_extract({body},'$.message.timestamp') AS INTEGER) "
        f"ELSE {iso_ms(f'json_extract({body},{chr(39)}$.timestamp{chr(39)})')} END)"
    )


_V1 = """
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    dir TEXT NOT NULL,
    mtime REAL NOT NULL
);
CREATE INDEX sessions_by_dir ON sessions(dir);
CREATE TABLE records (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body NOT NULL,
    nl INTEGER NOT NULL,
    UNIQUE (session, seq)
);
"""

_TEXT = message_text("new.body")
_CHAT = is_chat_message("new.body")

_V2 = f"""
CREATE TABLE summaries (
    session INTEGER PRIMARY KEY,
    started INTEGER NOT NULL DEFAULT 0,
    header_id TEXT,
    cwd TEXT,
    parent_session TEXT,
    created_ms INTEGER NOT NULL DEFAULT 0,
    name TEXT,
    first_message TEXT,
    last_message TEXT,
    message_count INTEGER NOT NULL DEFAULT 0,
    total_tokens INTEGER NOT NULL DEFAULT 0,
    total_cost REAL NOT NULL DEFAULT 0,
    modified_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TRIGGER session_added AFTER INSERT ON sessions BEGIN
    INSERT INTO summaries(session) VALUES (new.id);
END;
CREATE TRIGGER session_removed AFTER DELETE ON sessions BEGIN
    DELETE FROM records WHERE session = old.id;
    DELETE FROM summaries WHERE session = old.id;
END;
CREATE TRIGGER record_first AFTER INSERT ON records
WHEN (SELECT started FROM summaries WHERE session = new.session) = 0
     AND NOT (typeof(new.body) = 'text' AND trim(new.body, {WHITESPACE}) = '')
BEGIN
    UPDATE summaries SET
        started = 1,
        header_id = CASE WHEN typeof(new.body) = 'text' AND json_valid(new.body)
            AND json_type(new.body) = 'object' AND json_extract(new.body, '$.type') = 'session'
            AND json_type(new.body, '$.id') = 'text' THEN json_extract(new.body, '$.id') END,
        cwd = CASE WHEN json_valid(new.body) AND json_type(new.body, '$.cwd') = 'text'
            THEN json_extract(new.body, '$.cwd') ELSE '' END,
        parent_session = CASE WHEN json_valid(new.body) AND json_type(new.body, '$.parentSession') = 'text'
            THEN nullif(json_extract(new.body, '$.parentSession'), '') END,
        created_ms = CASE WHEN json_valid(new.body)
            THEN {iso_ms("json_extract(new.body, '$.timestamp')")} ELSE 0 END
    WHERE session = new.session;
END;
CREATE TRIGGER record_message AFTER INSERT ON records
WHEN typeof(new.body) = 'text' AND json_valid(new.body) AND json_type(new.body) = 'object'
     AND json_extract(new.body, '$.type') = 'message'
BEGIN
    UPDATE summaries SET message_count = message_count + 1 WHERE session = new.session;
    UPDATE summaries SET
        first_message = CASE WHEN first_message IS NULL AND m.role = 'user' THEN nullif(m.text, '')
            ELSE first_message END,
        last_message = coalesce(nullif(m.text, ''), last_message),
        modified_ms = max(modified_ms, m.ms),
        total_tokens = total_tokens + m.tokens,
        total_cost = total_cost + m.cost
    FROM (SELECT json_extract(new.body, '$.message.role') AS role, {_TEXT} AS text,
            {_message_time("new.body")} AS ms,
            CASE WHEN json_extract(new.body, '$.message.role') = 'assistant'
                AND json_type(new.body, '$.message.usage.totalTokens') IN ('integer', 'real')
                THEN CAST(json_extract(new.body, '$.message.usage.totalTokens') AS INTEGER) ELSE 0 END AS tokens,
            CASE WHEN json_extract(new.body, '$.message.role') = 'assistant'
                AND json_type(new.body, '$.message.usage.cost.total') IN ('integer', 'real')
                THEN json_extract(new.body, '$.message.usage.cost.total') ELSE 0 END AS cost) AS m
    WHERE session = new.session AND {_CHAT};
END;
CREATE TRIGGER record_name AFTER INSERT ON records
WHEN typeof(new.body) = 'text' AND json_valid(new.body) AND json_type(new.body) = 'object'
     AND json_extract(new.body, '$.type') = 'session_info'
BEGIN
    UPDATE summaries SET name = CASE WHEN json_type(new.body, '$.name') = 'text'
        THEN nullif(trim(json_extract(new.body, '$.name'), {WHITESPACE}), '') END
    WHERE session = new.session;
END;
CREATE TRIGGER record_removed AFTER DELETE ON records
WHEN NOT EXISTS (SELECT 1 FROM records WHERE session = old.session)
BEGIN
    UPDATE summaries SET started = 0, header_id = NULL, cwd = NULL, parent_session = NULL,
        created_ms = 0, name = NULL, first_message = NULL, last_message = NULL, message_count = 0,
        total_tokens = 0, total_cost = 0, modified_ms = 0
    WHERE session = old.session;
END;
-- the summaries of sessions written before this version: insert their records again
INSERT INTO summaries(session) SELECT id FROM sessions;
CREATE TEMP TABLE records_before_v2 AS SELECT * FROM records;
DELETE FROM records;
INSERT INTO records SELECT * FROM records_before_v2 ORDER BY session, seq;
DROP TABLE records_before_v2;
"""

_V3 = f"""
CREATE VIRTUAL TABLE message_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER record_indexed AFTER INSERT ON records WHEN {_CHAT} BEGIN
    INSERT INTO message_fts(rowid, body) SELECT new.id, t FROM (SELECT {_TEXT} AS t) WHERE t != '';
END;
CREATE TRIGGER record_unindexed AFTER DELETE ON records BEGIN
    DELETE FROM message_fts WHERE rowid = old.id;
END;
INSERT INTO message_fts(rowid, body)
    SELECT id, t FROM (SELECT id, {message_text("body")} AS t FROM records WHERE {is_chat_message("body")})
    WHERE t != '';
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3)
"""Migration ``n`` (1-based) brings a database from version ``n - 1`` to ``n``. Append only."""

SCHEMA_VERSION = len(MIGRATIONS)
