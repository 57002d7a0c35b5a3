"""The one fuzzy matcher (issue 21): slash commands, select lists, ``/resume`` search and
``pi --list-models <search>`` rank and filter alike, as pi 1.6.0's one ``fuzzyMatch`` does."""

from __future__ import annotations

from pi_app.ai.testing import fake_model
from pi_app.coding.fuzzy import fuzzy_filter, fuzzy_match, fuzzy_score
from pi_app.modes.list_models import model_rows


def names(items: list[str], query: str) -> list[str]:
    return fuzzy_filter(items, query, lambda s: s)


def test_the_text_typed_exactly_comes_first_even_after_a_longer_one() -> None:
    assert names(["sessions", "session"], "session") == ["session", "sessions"]


def test_a_match_at_the_start_beats_one_after_a_word_break() -> None:
    assert names(["scoped-models", "model"], "mod") == ["model", "scoped-models"]
    assert fuzzy_match("mo", "model")[1] < fuzzy_match("mo", "x-model")[1]


def test_a_new_line_is_a_word_break_as_in_session_texts() -> None:
    assert fuzzy_match("fix", "notes\nfix")[1] == fuzzy_match("fix", "notes fix")[1]
    assert fuzzy_match("fix", "notes\nfix")[1] < fuzzy_match("fix", "notesxfix")[1]


def test_tokens_split_at_white_space_and_letters_and_digits_may_swap() -> None:
    assert names(["gpt-4o openai", "claude anthropic"], "openai/gpt") == []  # /model fake/x: no completion
    assert names(["gpt-4o openai", "claude anthropic"], "anth claude") == ["claude anthropic"]
    assert names(["gpt4", "claude"], "4gpt") == ["gpt4"]
    assert fuzzy_score("  ", "anything") == 0.0
    assert fuzzy_score("xyz", "settings") is None


def test_list_models_search_matches_provider_and_id_in_any_order() -> None:
    models = [fake_model("gpt-4o", "openai"), fake_model("claude-x", "anthropic")]
    for search in ("openai/gpt", "gpt openai", "4ogpt", "oaigpt"):
        assert [row[:2] for row in model_rows(models, search)] == [("openai", "gpt-4o")], search
    assert model_rows(models, "zzz") == []
