"""Built-in slash commands and the start-up header as a pi user meets them (spec 60 §3.9, R-FOOT-07).

The real app over the real ``AgentSession``; the model is scripted. Resource tests use the real
resource loader over a temporary project and agent directory.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from textual.widgets import Input

from pi_app.ai.testing import fake_model, text
from pi_app.tui.app import PiApp
from pi_app.tui.selectors.dialogs import PanelDialog
from pi_app.tui.selectors.select_list import SelectList
from pi_app.tui.transcript.blocks import UserBlock
from tests.tui.fakes import resource_session_factory
from tests.tui.helpers import wait_for
from tests.tui.test_app_flows import make_app, notes, started


async def submit(pilot, text_: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*text_, "enter")


async def test_name_sets_the_session_name_in_footer_and_title(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/name")
        await wait_for(pilot, lambda: "Usage: /name <name>" in notes(app))
        await submit(pilot, "/name refactor totals")
        await wait_for(pilot, lambda: "Session name set: refactor totals" in notes(app))
        assert app.session.session_name == "refactor totals"
        assert "• refactor totals" in str(app.footer.render())
        assert app.title == f"π - refactor totals - {tmp_path.name}"
        await submit(pilot, "/name")
        await wait_for(pilot, lambda: "Session name: refactor totals" in notes(app))


async def test_session_reports_counts_and_tokens(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Sure.")]])
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "Sure." in notes(app) and not app.is_working)
        await submit(pilot, "/session")
        await wait_for(pilot, lambda: "Session Info" in notes(app))
        shown = [line.strip() for line in notes(app).splitlines()]
        assert "File: In-memory" in shown and f"ID: {app.session.session_id}" in shown
        assert "User: 1" in shown and "Assistant: 1" in shown and "Total: 2" in shown
        assert any(line.startswith("Input: ") for line in shown)


async def test_new_starts_an_empty_session(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("First.")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        old_id = app.session.session_id
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "First." in notes(app) and not app.is_working)
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: "✓ New session started" in notes(app))
        assert "First." not in notes(app) and not app.transcript.blocks_of(UserBlock)
        assert app.session.session_id != old_id and app.session.messages == []


async def test_copy_puts_the_last_answer_on_the_clipboard(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Copy **me**.")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/copy")
        await wait_for(pilot, lambda: "Error: No agent messages to copy yet." in notes(app))
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "Copy me." in notes(app) and not app.is_working)
        await submit(pilot, "/copy")
        await wait_for(pilot, lambda: "Copied last agent message to clipboard" in notes(app))
        assert app.clipboard == "Copy **me**."


async def test_export_writes_an_html_page(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, [[text("Exported answer.")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "Exported answer." in notes(app) and not app.is_working)
        await submit(pilot, "/export out/page.html")
        target = tmp_path / "out" / "page.html"
        await wait_for(pilot, lambda: f"Session exported to: {target}" in notes(app))
        page = target.read_text()
        assert page.startswith("<!DOCTYPE html>") or "<html" in page
        assert "Exported answer." in page


async def test_changelog_and_hotkeys_show_in_the_transcript(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 60)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/changelog")
        await wait_for(pilot, lambda: "0.1.0" in notes(app).split("Press ctrl+o")[-1])
        await submit(pilot, "/hotkeys")
        await wait_for(pilot, lambda: "Navigation" in notes(app))
        shown = notes(app)
        assert "Editing" in shown and "Other" in shown
        assert "Shift+Tab" in shown and "Ctrl+L" in shown and "!!cmd" in shown


async def test_reload_picks_up_new_keybindings(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    app, _ = make_app(tmp_path, agent_dir=agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        (agent_dir / "keybindings.json").write_text(json.dumps({"app.tools.expand": "ctrl+x"}))
        await submit(pilot, "/reload")
        await wait_for(pilot, lambda: "Reloaded" in notes(app))
        assert app.keybindings.keys("app.tools.expand") == ("ctrl+x",)
        assert "Press ctrl+x to show full startup help" in notes(app)


async def test_logout_without_stored_credentials_says_how_to_log_in(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/logout")
        await wait_for(pilot, lambda: "No stored credentials. Use /login first." in notes(app))


async def test_scoped_models_limit_ctrl_p_cycling(tmp_path: Path) -> None:
    models = [fake_model("alpha-1"), fake_model("beta-2"), fake_model("gamma-3")]
    app, _ = make_app(tmp_path, models=models)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await submit(pilot, "/scoped-models")
        await wait_for(pilot, lambda: bool(app.screen.query(SelectList)) or "scoped" in notes(app).lower())
        # enable alpha and gamma only
        await pilot.press("enter", "down", "down", "enter", "ctrl+s")
        await pilot.pause(0.2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.editor.has_focus)
        assert app.settings.get_enabled_models() == ["fake/alpha-1", "fake/gamma-3"]
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.session.model.id == "gamma-3")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.session.model.id == "alpha-1")


def _project_with_resources(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Always answer in haiku.\n")
    agent_dir = tmp_path / "agent"
    skill = agent_dir / "skills" / "pdf-tools"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Work with PDF files\n---\nUse pdftotext.\n"
    )
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text(
        "---\ndescription: Review code\n---\nPlease review $1 carefully.\n"
    )
    return project, agent_dir


async def test_header_lists_context_files_skills_and_templates(tmp_path: Path) -> None:
    project, agent_dir = _project_with_resources(tmp_path)
    factory, _ = resource_session_factory(str(project), str(agent_dir))
    app = PiApp(session_factory=factory, cwd=str(project), animate=False, agent_dir=agent_dir)
    async with app.run_test(size=(100, 60)) as pilot:
        await started(pilot, app)
        assert "Press ctrl+o to show full startup help and loaded resources." in notes(app)
        assert "pi knows its own docs: ask it how a feature works or how to extend it." in notes(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        shown = [line.strip() for line in notes(app).splitlines()]
        assert not any("pi knows its own docs" in line for line in shown)  # the tip is the short form's
        for expected in ("[Context]", "AGENTS.md", "[Skills]", "pdf-tools", "[Prompts]", "/review"):
            assert expected in shown, expected
        assert "shift+tab to cycle thinking level" in shown and "alt+up to edit all queued messages" in shown


async def test_quiet_startup_keeps_only_the_version_line(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, settings={"quietStartup": True})
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        shown = notes(app)
        assert "pi v" in shown and "Press ctrl+o" not in shown and "escape interrupt" not in shown
        assert "its own docs" not in shown


async def test_quiet_startup_header_keeps_the_header_but_not_the_resource_listing(tmp_path: Path) -> None:
    # pi 1.6.0's quietStartup: "header" — version and key hints stay, the loaded resources go
    project, agent_dir = _project_with_resources(tmp_path)
    factory, _ = resource_session_factory(str(project), str(agent_dir), settings={"quietStartup": "header"})
    app = PiApp(session_factory=factory, cwd=str(project), animate=False, agent_dir=agent_dir)
    async with app.run_test(size=(100, 60)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        shown = [line.strip() for line in notes(app).splitlines()]
        assert any(line.startswith("pi v") for line in shown)
        assert "shift+tab to cycle thinking level" in shown
        for hidden in ("[Context]", "[Skills]", "pdf-tools", "[Prompts]"):
            assert hidden not in shown, hidden


async def test_templates_and_skills_complete_and_expand_before_reaching_the_model(tmp_path: Path) -> None:
    project, agent_dir = _project_with_resources(tmp_path)
    factory, provider = resource_session_factory(
        str(project), str(agent_dir), [[text("Reviewed.")], [text("Skilled.")]]
    )
    app = PiApp(session_factory=factory, cwd=str(project), animate=False, agent_dir=agent_dir)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await pilot.press(*"/rev")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        suggestions = app.editor.suggestions
        assert suggestions is not None
        assert [i.value for i in suggestions.items][:1] == ["review"]
        await pilot.press("tab", *"src/app.py", "enter")
        await wait_for(pilot, lambda: "Reviewed." in notes(app) and not app.is_working)
        await pilot.press(*"/skill:pd")
        await wait_for(pilot, lambda: app.editor.autocomplete_open)
        await pilot.press("tab", *"extract page 2", "enter")
        await wait_for(pilot, lambda: "Skilled." in notes(app) and not app.is_working)
        sent = [str(call.context.messages[-1].content) for call in provider.calls]
        assert "Please review src/app.py carefully." in sent[0]
        assert "Use pdftotext." in sent[1] and "extract page 2" in sent[1]
        system = provider.calls[0].context.system_prompt or ""
        assert "Always answer in haiku." in system and "pdf-tools" in system


async def test_settings_rows_apply_and_save_at_once(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        assert app.settings.get_hide_thinking_block() is False and app.editor.padding_x == 0
        await submit(pilot, "/settings")
        await wait_for(pilot, lambda: bool(app.screen.query("#settings-selector")))
        await pilot.press(*"hide", "enter")
        await wait_for(pilot, lambda: app.settings.get_hide_thinking_block() is True)
        assert app.transcript.hide_thinking
        await pilot.press(*["backspace"] * len("hide"), *"padding", "space")  # typed into the search (1.6.0)
        await pilot.pause()
        assert app.settings.get_editor_padding_x() == 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.settings.get_editor_padding_x() == 1)
        assert app.editor.padding_x == 1
        await pilot.press(*["backspace"] * len("padding "), "space")  # with no search, Space cycles
        await wait_for(pilot, lambda: app.settings.get_editor_padding_x() == 2)
        await pilot.press(*"x", "escape")  # the first Escape clears the search, the second closes
        assert app.screen.query("#settings-selector")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.editor.has_focus)


class _FakeOAuth:
    """An OAuth login that shows a URL, asks for the code the browser showed, and returns a token."""

    name = "fake-oauth"
    login_label = "Fake Cloud"

    def __init__(self) -> None:
        self.codes: list[str] = []

    async def login(self, interaction):  # type: ignore[no-untyped-def]
        interaction.notify({"type": "auth_url", "url": "https://login.example/authorize?x=1"})
        code = await interaction.prompt({"message": "Paste the code"})
        self.codes.append(code)
        return {"type": "oauth", "access": f"token-{code}", "refresh": "r", "expires": 4102444800000}

    async def refresh(self, credential, signal=None):  # type: ignore[no-untyped-def]
        return credential

    async def to_auth(self, credential):  # type: ignore[no-untyped-def]
        return None


def _app_with_oauth(tmp_path: Path, oauth: _FakeOAuth) -> PiApp:
    """The app whose fake provider offers ``oauth`` as its account sign-in."""
    import dataclasses

    from pi_app.ai.auth.types import ProviderAuth

    app, provider = make_app(tmp_path)
    try:
        provider.auth = ProviderAuth(api_key=provider.auth.api_key, oauth=oauth)
    except dataclasses.FrozenInstanceError:
        object.__setattr__(provider, "auth", ProviderAuth(api_key=provider.auth.api_key, oauth=oauth))
    return app


async def _sign_in_with_account(pilot, app: PiApp, provider: str) -> None:  # type: ignore[no-untyped-def]
    """/login → "Sign in with an account" → the provider typed into the list's filter."""
    await submit(pilot, "/login")
    await wait_for(pilot, lambda: bool(app.screen.query("#login-method")))
    await pilot.press("enter")  # Sign in with an account
    await wait_for(pilot, lambda: bool(app.screen.query("#login-selector")))
    await pilot.press(*provider, "enter")


async def test_login_shows_the_url_takes_the_code_and_logout_removes_it(tmp_path: Path) -> None:
    oauth = _FakeOAuth()
    app = _app_with_oauth(tmp_path, oauth)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await _sign_in_with_account(pilot, app, "fake")
        await wait_for(pilot, lambda: bool(app.screen.query("#login-dialog Input")))
        dialog_text = "\n".join(app.screen.query_one("#login-dialog").lines)
        assert "https://login.example/authorize?x=1" in dialog_text
        await pilot.press(*"abc123", "enter")
        await wait_for(pilot, lambda: "Logged in to Fake Cloud" in notes(app))
        assert oauth.codes == ["abc123"] and app.editor.has_focus
        await submit(pilot, "/logout")
        await wait_for(pilot, lambda: bool(app.screen.query("#logout-selector")))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Removed stored credentials for" in notes(app))
        await submit(pilot, "/logout")
        await wait_for(pilot, lambda: "No stored credentials. Use /login first." in notes(app))


class _RegionOAuth(_FakeOAuth):
    """An OAuth login that first asks for a region (a select prompt: numbered lines, answered by
    number), then for the code."""

    async def login(self, interaction):  # type: ignore[no-untyped-def]
        regions = [{"id": "eu", "label": "Europe"}, {"id": "us", "label": "United States"}]
        self.codes.append(
            await interaction.prompt({"type": "select", "message": "Region?", "options": regions})
        )
        return await super().login(interaction)


async def test_login_asks_again_in_its_dialog_and_escape_ends_it_quietly(tmp_path: Path) -> None:
    """Each question of a login flow is the next one in the same dialog: a choice answered by
    number (asked again until the number is one of them), then the code; Escape on the code closes
    the dialog and ends the login without an error line."""
    oauth = _RegionOAuth()
    app = _app_with_oauth(tmp_path, oauth)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await _sign_in_with_account(pilot, app, "fake")
        await wait_for(pilot, lambda: bool(app.screen.query("#login-dialog Input")))
        dialog = app.screen.query_one("#login-dialog")
        assert "  1. Europe\n  2. United States" in "\n".join(dialog.lines)
        assert dialog._question == "Choose 1-2"
        await pilot.press(*"7", "enter")  # not one of them: asked again, in an empty input
        field = dialog.focus_target
        await wait_for(
            pilot, lambda: dialog._question == "Choose 1-2" and field.value == "" and field.has_focus
        )
        await pilot.press(*"2", "enter")
        await wait_for(pilot, lambda: dialog._question == "Paste the code")
        assert oauth.codes == ["us"]
        await wait_for(pilot, lambda: app.focused is dialog.focus_target)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.screen.query("#login-dialog") and app.editor.has_focus)
        await pilot.pause(0.2)
        assert oauth.codes == ["us"] and "Error" not in notes(app) and not app.editor_slot.is_replaced
        await submit(pilot, "/logout")
        await wait_for(pilot, lambda: "No stored credentials. Use /login first." in notes(app))


class _RedirectOAuth(_FakeOAuth):
    """A login whose browser redirect brings the code before anything is pasted: the paste prompt
    loses the race and is cancelled, then the token exchange still takes a moment."""

    def __init__(self) -> None:
        super().__init__()
        self.exchanging = threading.Event()  # set and read across the agent and test threads
        self.finish = threading.Event()

    async def login(self, interaction):  # type: ignore[no-untyped-def]
        from pi_app.ai.auth.oauth.common import first_code

        interaction.notify({"type": "auth_url", "url": "https://login.example/authorize?x=1"})

        async def redirect() -> str:
            await asyncio.sleep(0.3)
            return "from-browser"

        code = await first_code([lambda: interaction.prompt({"message": "Paste the code"}), redirect])
        interaction.notify({"type": "progress", "message": "Exchanging the code…"})
        self.exchanging.set()
        while not self.finish.is_set():
            await asyncio.sleep(0.02)
        self.codes.append(code)
        return {"type": "oauth", "access": f"token-{code}", "refresh": "r", "expires": 4102444800000}


async def test_a_code_from_the_browser_keeps_the_login_dialog_until_the_login_ends(tmp_path: Path) -> None:
    """The paste prompt losing to the browser's redirect hides the dialog's input but keeps the
    dialog, with the login's progress, until the login is done."""
    oauth = _RedirectOAuth()
    app = _app_with_oauth(tmp_path, oauth)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await _sign_in_with_account(pilot, app, "fake")
        await wait_for(pilot, lambda: bool(app.screen.query("#login-dialog Input")))
        await wait_for(pilot, lambda: oauth.exchanging.is_set())
        await pilot.pause(0.3)
        assert app.screen.query("#login-dialog") and not app.editor.display  # still there
        dialog = app.screen.query_one("#login-dialog", PanelDialog)
        await wait_for(pilot, lambda: "Exchanging the code…" in "\n".join(dialog.lines))
        assert not dialog.query_one(Input).display  # the paste question is gone
        oauth.finish.set()
        await wait_for(pilot, lambda: oauth.codes == ["from-browser"])
        await wait_for(pilot, lambda: not app.screen.query("#login-dialog") and app.editor.has_focus)


async def test_login_with_an_api_key_saves_it_and_logout_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/login → Sign in with an API key → any provider (typed filter) → masked key → stored."""
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        registry = app.session.model_registry
        await submit(pilot, "/login")
        await wait_for(pilot, lambda: bool(app.screen.query("#login-method")))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#login-api-key-selector")))
        selector = app.screen.query_one("#login-api-key-selector", SelectList)
        labels = [item.label for item in selector.model.items]
        assert len(labels) > 40 and {"Groq", "Together", "Amazon Bedrock", "Cloudflare AI Gateway"} <= set(
            labels
        )
        await pilot.press(*"groq")
        await wait_for(pilot, lambda: [i.label for i in selector.model.filtered][:1] == ["Groq"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.screen.query("#login-dialog Input")))
        field = app.screen.query_one("#login-dialog Input")
        assert field.password  # the key is not shown
        assert app.screen.query_one("#login-dialog")._question == "Enter Groq API key"
        await pilot.press(*"gsk-secret-1", "enter")
        await wait_for(pilot, lambda: "Saved API key for Groq." in notes(app))
        assert (await registry.credentials.read("groq")) == {"type": "api_key", "key": "gsk-secret-1"}
        assert await registry.get_api_key_for_provider("groq") == "gsk-secret-1"
        await submit(pilot, "/logout")
        await wait_for(pilot, lambda: bool(app.screen.query("#logout-selector")))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Removed stored API key for Groq." in notes(app))
        assert await registry.credentials.read("groq") is None


async def test_export_to_a_jsonl_file_writes_the_session_not_html(tmp_path: Path) -> None:
    """Issue 17, defect 9: ``/export out.jsonl`` writes a session file pi can open (as pi 1.6.0)."""
    app, _ = make_app(tmp_path, [[text("First answer.")], [text("Second answer.")]])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        for prompt, answer in (("one", "First answer."), ("two", "Second answer.")):
            await submit(pilot, prompt)
            await wait_for(pilot, lambda answer=answer: answer in notes(app) and not app.is_working)
        await submit(pilot, "/export out/session.jsonl")
        target = tmp_path / "out" / "session.jsonl"
        await wait_for(pilot, lambda: "Session exported to:" in notes(app))  # the long path wraps
        session_id = app.session.session_id
    entries = [json.loads(line) for line in target.read_text().splitlines()]
    assert entries[0]["type"] == "session" and entries[0]["id"] == session_id
    parents = [entry["parentId"] for entry in entries[1:]]
    assert parents == [None, *(entry["id"] for entry in entries[1:-1])]  # one linear chain
    contents = [entry["message"]["content"] for entry in entries[1:] if entry["type"] == "message"]
    texts = [c if isinstance(c, str) else "".join(p.get("text", "") for p in c) for c in contents]
    assert texts == ["one", "First answer.", "two", "Second answer."]


async def test_device_code_sign_in_shows_the_code_and_completes(tmp_path: Path) -> None:
    """/login → account → xAI: the dialog shows the verification URL and the code while pi polls a
    loopback authorization server; when the user approves, the credential is stored."""
    import asyncio

    from tests.fakes.oauth_server import XAI_USER_CODE, FakeOAuthServer

    server = FakeOAuthServer(pending_polls=10_000)

    async def quick(_seconds: float) -> None:
        await asyncio.sleep(0.02)

    app, _ = make_app(tmp_path)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await started(pilot, app)
            registry = app.session.model_registry
            registry.models.get_provider("xai").auth.oauth = server.xai(sleep=quick)
            await submit(pilot, "/login")
            await wait_for(pilot, lambda: bool(app.screen.query("#login-method")))
            await pilot.press("enter")
            await wait_for(pilot, lambda: bool(app.screen.query("#login-selector")))
            await pilot.press(*"xai", "enter")
            await wait_for(pilot, lambda: bool(app.screen.query("#login-dialog")))

            def dialog_text() -> str:
                found = app.screen.query("#login-dialog")
                return "\n".join(found.first().lines) if found else ""

            await wait_for(pilot, lambda: XAI_USER_CODE in dialog_text())
            assert f"https://accounts.x.ai/device?user_code={XAI_USER_CODE}" in dialog_text()
            server.pending_polls = 0  # the user approves in the browser
            await wait_for(pilot, lambda: "Logged in to Sign in with SuperGrok or X Premium" in notes(app))
            stored = await registry.credentials.read("xai")
            assert stored is not None and stored["type"] == "oauth" and stored["access"] == "xai-access-1"
    finally:
        server.close()
