"""``pi mom [--sandbox=host|docker:<name>] [--model provider/id] <workspace>``: the Slack bot.

Tokens: ``MOM_SLACK_APP_TOKEN`` (``xapp-…``, Socket Mode) and ``MOM_SLACK_BOT_TOKEN``
(``xoxb-…``), else the entries ``slack-app-token`` / ``slack-bot-token`` of mom's own auth file.
That file, ``~/.pi/mom/auth.json`` (``$PI_MOM_DIR`` moves the folder), is in pi's ``auth.json``
format and also holds the model credentials mom uses (``{"anthropic": {"type": "api_key", "key":
"..."}}``); environment variables such as ``ANTHROPIC_API_KEY`` work too. It lives outside the
workspace — mom refuses a workspace that contains it or is inside its folder — its ``MOM_*``
variables are taken out of every command's environment, and ``attach`` never uploads it. Models
come from pi's ``models.json`` (so ``pi pods`` endpoints work); ``--model`` picks one, else the
first model with credentials.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from pathlib import Path

from pi_app.ext import AuthStorage, ModelRegistry, models_path
from pi_app.shells.mom.sandbox import Sandbox, SandboxError, validate_docker

log = logging.getLogger("pi.mom")


class MomError(Exception):
    pass


def mom_dir() -> Path:
    override = os.environ.get("PI_MOM_DIR")
    return Path(os.path.expanduser(override)) if override else Path.home() / ".pi" / "mom"


def slack_tokens(auth_file: Path) -> tuple[str, str]:
    app, bot = os.environ.get("MOM_SLACK_APP_TOKEN"), os.environ.get("MOM_SLACK_BOT_TOKEN")
    if not (app and bot) and auth_file.exists():
        try:
            data = json.loads(auth_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MomError(f"cannot read {auth_file}: {exc}") from None
        app = app or (data.get("slack-app-token") or {}).get("key")
        bot = bot or (data.get("slack-bot-token") or {}).get("key")
    if not app or not bot:
        raise MomError(
            "Slack tokens missing: set MOM_SLACK_APP_TOKEN (xapp-...) and MOM_SLACK_BOT_TOKEN (xoxb-...), "
            f'or put {{"slack-app-token": {{"type": "api_key", "key": "xapp-..."}}, ...}} in {auth_file}'
        )
    return app, bot


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pi mom", description="pi as a Slack bot (Socket Mode).")
    parser.add_argument("workspace", help="the data folder: one sub-folder per channel")
    parser.add_argument("--sandbox", default="host", help="host (default) or docker:<container>")
    parser.add_argument("--model", help="provider/id (default: the first model with credentials)")
    parser.add_argument("-v", "--verbose", action="store_true")
    return parser


async def serve(args: argparse.Namespace) -> int:
    from pi_app.shells.mom.bot import Mom
    from pi_app.shells.mom.events import EventsWatcher
    from pi_app.shells.mom.runner import MomSettings
    from pi_app.shells.mom.slack import ChatMessage, SlackBot

    try:
        sandbox = Sandbox.parse(args.sandbox)
    except SandboxError as exc:
        raise MomError(str(exc)) from None
    workspace = Path(args.workspace).expanduser().resolve()
    private = mom_dir().resolve()
    if workspace == private or private in workspace.parents or workspace in private.parents:
        raise MomError(f"the workspace {workspace} must not contain or sit inside mom's own folder {private}")
    workspace.mkdir(parents=True, exist_ok=True)
    auth_file = private / "auth.json"
    app_token, bot_token = slack_tokens(auth_file)
    if sandbox.kind == "docker" and sandbox.container:
        try:
            await validate_docker(sandbox.container)
        except SandboxError as exc:
            raise MomError(str(exc)) from None

    registry = ModelRegistry(AuthStorage(auth_file), models_path())
    model = None
    if args.model:
        provider, _, model_id = args.model.partition("/")
        model = registry.find(provider, model_id)
        if model is None:
            raise MomError(f"unknown model {args.model} (see pi --list-models)")
    settings = MomSettings(workspace, sandbox, registry, model, forbidden=[private])

    loop = asyncio.get_running_loop()
    mom: Mom | None = None

    def deliver(message: ChatMessage) -> None:  # called on a Socket Mode worker thread
        loop.call_soon_threadsafe(lambda: mom.receive(message) if mom is not None else None)

    bot = SlackBot(app_token, bot_token, deliver, api_url=os.environ.get("MOM_SLACK_API_URL"))
    mom = Mom(settings, bot)
    watcher = EventsWatcher(workspace / "events", mom.scheduled)  # its start time: files older are late
    try:
        await asyncio.to_thread(bot.connect)
    except Exception as exc:
        raise MomError(f"cannot connect to Slack: {exc}") from None
    events_task = loop.create_task(watcher.run())
    stopped = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopped.set)
    sys.stderr.write(f"mom is listening (workspace {workspace}, commands on {sandbox.describe()})\n")
    sys.stderr.flush()
    await stopped.wait()
    events_task.cancel()
    await mom.close()
    await asyncio.to_thread(bot.close)
    return 0


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="mom %(levelname)s %(message)s"
    )
    try:
        return asyncio.run(serve(args))
    except MomError as exc:
        sys.stderr.write(f"pi mom: {exc}\n")
        return 1
