"""The session picker's headless model: threading, sorting, search and the named filter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pi_app.coding.fuzzy import fuzzy_match
from pi_app.coding.session.listing import SessionInfo
from pi_app.tui.selectors.session_model import SessionPickerModel, format_age, parse_query

BASE = datetime(2026, 11, 1, tzinfo=UTC)


def info(
    name: str, minutes: int, *, parent: str | None = None, title: str | None = None, text: str = ""
) -> SessionInfo:
    return SessionInfo(
        path=f"/s/{name}.jsonl",
        id=f"id-{name}",
        cwd="/home/user/project",
        name=title,
        parent_session_path=f"/s/{parent}.jsonl" if parent else None,
        created=BASE,
        modified=BASE + timedelta(minutes=minutes),
        message_count=2,
        first_message=f"first {name}",
        all_messages_text=f"first {name} {text}".strip(),
    )


SESSIONS = [
    info("old", 1),
    info("fork-of-old", 50, parent="old"),
    info("middle", 10, title="Release notes"),
    info("clone-of-old", 5, parent="old"),
    info("newest", 30, text="deploy the docker image"),
]


def shown(model: SessionPickerModel) -> list[str]:
    return [row.tree_prefix() + row.info.id.removeprefix("id-") for row in model.rows]


def test_threaded_puts_forks_below_their_parent_newest_subtree_first() -> None:
    model = SessionPickerModel(SESSIONS)
    # "old" itself is the oldest, but its fork has the newest activity of all (decision D-48)
    assert shown(model) == ["old", "   ├─ fork-of-old", "   └─ clone-of-old", "newest", "middle"]


def test_recent_is_flat_and_newest_first() -> None:
    model = SessionPickerModel(SESSIONS)
    model.cycle_sort()
    assert model.sort_mode == "recent"
    assert shown(model) == ["fork-of-old", "newest", "middle", "clone-of-old", "old"]
    model.cycle_sort()
    assert model.sort_mode == "relevance"
    model.cycle_sort()
    assert model.sort_mode == "threaded"


def test_search_fuzzy_phrase_and_regex() -> None:
    model = SessionPickerModel(SESSIONS)
    model.set_query("dkr img")  # fuzzy: letters in order
    assert shown(model) == ["newest"]
    model.set_query('"docker image"')
    assert shown(model) == ["newest"]
    model.set_query('"image docker"')
    assert shown(model) == []
    model.set_query("re:release\\s+NOTES")
    assert shown(model) == ["middle"]
    model.set_query("re:(")
    assert shown(model) == [] and model.error and model.error.startswith("Invalid regex")
    model.set_query("")
    assert len(model.rows) == 5 and model.error is None


def test_named_filter_and_selection_survives_refresh() -> None:
    model = SessionPickerModel(SESSIONS)
    model.cursor.select(4)
    assert model.selected.id == "id-middle"
    model.toggle_named()
    assert shown(model) == ["middle"] and model.selected.id == "id-middle"
    model.toggle_named()
    assert model.selected.id == "id-middle"
    model.remove("/s/middle.jsonl")
    assert "middle" not in shown(model)


def test_query_parsing() -> None:
    parsed = parse_query('foo "node cve" bar')
    assert parsed.tokens == [("fuzzy", "foo"), ("phrase", "node cve"), ("fuzzy", "bar")]
    assert parse_query('foo "unclosed').tokens == [("fuzzy", "foo"), ("fuzzy", '"unclosed')]
    assert parse_query("re:").error == "Empty regex"


def test_fuzzy_prefers_word_starts_and_swaps_letters_and_digits() -> None:
    assert fuzzy_match("gpt", "openai/gpt-4")[0]
    assert not fuzzy_match("xyz", "openai/gpt-4")[0]
    assert fuzzy_match("fm", "fake-model")[1] < fuzzy_match("fm", "xfxxxm")[1]
    assert fuzzy_match("4gpt", "gpt4")[0]


def test_ages() -> None:
    now = BASE + timedelta(days=400)
    assert [
        format_age(now - d, now) for d in (timedelta(seconds=5), timedelta(minutes=5), timedelta(hours=3))
    ] == [
        "now",
        "5m",
        "3h",
    ]
    assert format_age(BASE, now) == "1y"
    assert format_age(now - timedelta(days=10), now) == "1w"


def test_sessions_arriving_while_read_leave_the_default_choice_on_the_top_row() -> None:
    # /resume shows rows as files are read (issue 20): the first row to arrive must not stay
    # selected once newer activity sorts above it; a row the user moved to stays chosen.
    model = SessionPickerModel([])
    arrived: list[SessionInfo] = []
    for session in sorted(SESSIONS, key=lambda s: s.modified, reverse=True):  # newest file first
        arrived.append(session)
        model.set_sessions(arrived)
        assert model.cursor.selected == 0 and model.selected is model.rows[0].info
    model.cursor.move(3)
    chosen = model.selected
    model.set_sessions([*SESSIONS, info("later", 60)])
    assert model.selected is chosen
