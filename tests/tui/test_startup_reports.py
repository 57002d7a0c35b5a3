"""Start-up reports in the full-screen app: what ``build_session`` tells its host (a ``--models``
pattern that matches nothing, for one) shows as a warning line in the transcript, not on a stderr
hidden behind the app's screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_app.coding.launch import LaunchOptions
from pi_app.tui.app import PiApp
from tests.tui.helpers import wait_for, write_local_model
from tests.tui.test_app_flows import notes


async def test_a_models_pattern_matching_nothing_is_a_warning_in_the_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    write_local_model(agent_dir)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")
    options = LaunchOptions(models="local-model,no-such-model-xyz", no_session=True, cwd=str(tmp_path))
    app = PiApp(options, cwd=str(tmp_path), animate=False, agent_dir=agent_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "no-such-model-xyz" in notes(app), 20)
        await wait_for(pilot, lambda: app.session is not None, 20)
        assert 'Warning: No models match pattern "no-such-model-xyz"' in notes(app)
        assert app.session.model.id == "local-model"
