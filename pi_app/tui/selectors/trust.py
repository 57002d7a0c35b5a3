""" "Trust this project folder?" — asked once at start-up, and again by ``/trust`` (D-22, R-TRUST-03/06).

At start-up the session is built on the agent thread; when the project has gated resources
(``.pi/settings.json``, extensions, skills, …), no saved decision and ``defaultProjectTrust`` is
``ask``, the resource loader awaits the app's question (``ask_project_trust`` run through the
bridge's ``ask_user``): it shows the question in the editor slot on the UI thread and hands the
answer back through a future (the app keeps painting and taking keys meanwhile). Escape, or the app closing, means "not trusted, this run only": nothing is
saved and a notice says how to decide again. ``/trust`` asks the same question, saves the answer
and reloads the project's resources.

The answers (``pi_app.coding.trust.trust_choices``): trust the folder or its parent (saved), trust
for this session, don't trust (saved), don't trust for this session. pi 1.6.0 asks the same five.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_app.coding.trust import NOT_TRUSTED_THIS_RUN, TrustAnswer, trust_choices
from pi_app.tui.selectors.choice import ChoiceSelector
from pi_app.tui.selectors.slot import ask

if TYPE_CHECKING:
    from pi_app.tui.host import CommandHost, SelectorHost
    from pi_app.tui.selectors.bindings import KeyMap

TRUST_TITLE = "Trust this project folder?"
TRUST_EXPLANATION = (
    "Trusting it lets pi load its .pi settings, extensions, skills, prompts, themes and\n"
    "system-prompt files, and install the packages its settings list."
)


def trust_selector(cwd: str | Path, keys: KeyMap | None = None) -> tuple[ChoiceSelector, list[TrustAnswer]]:
    choices = trust_choices(cwd)
    message = f"{Path(cwd).resolve()}\n{TRUST_EXPLANATION}"
    selector = ChoiceSelector(TRUST_TITLE, [label for label, _ in choices], keys=keys, message=message)
    return selector, [answer for _, answer in choices]


async def ask_project_trust(app: SelectorHost, cwd: str | Path) -> TrustAnswer:
    """Show the question in the editor slot and wait for the answer (UI thread, in a worker)."""
    selector, answers = trust_selector(cwd, app.keybindings)
    answer = await ask(app, selector, close=True)
    index = answer.index if isinstance(answer, ChoiceSelector.Chosen) else None
    return NOT_TRUSTED_THIS_RUN if index is None else answers[index]


async def trust_command(app: CommandHost, args: str) -> None:
    """``/trust``: ask again, save the answer, reload the project's resources."""
    from pi_app.tui.commands.builtin import reload_resources

    if app.session is None:
        app.show_warning("The session is still starting.")
        return
    answer = await ask_project_trust(app, app.cwd)
    saved = await app.bridge.request(lambda session: session.set_project_trust(answer))
    if not saved:
        app.show_error("Could not save the decision: trust.json is unreadable (left as it is).")
    await reload_resources(app)
    where = "" if answer.save_for is None else f" (saved for {answer.save_for})"
    verdict = "trusted" if answer.trusted else "not trusted"
    app.show_status(f"Project {verdict}{where}; resources reloaded")
