"""The ``pi`` command: argument parsing and dispatch to a mode.

``pi --version`` and ``pi --help`` import nothing heavy (no Textual, no httpx) and create no file
or folder. Everything else builds one ``AgentSession`` through ``pi_app.coding.sdk`` and hands it to
a shell: the Textual app (default on a terminal), print mode (``-p`` or piped stdin), JSON mode
(``--mode json``) or RPC (``--mode rpc``).

Flags follow pi 0.73.1's ``--help`` with the additions the spec names (decision D-30). Unknown
options are an error (one line on stderr, exit status 2) rather than silently ignored.

Decision (start-up cost, issue 8): print and JSON mode run their start-up (imports, settings,
models, resources, the session) with the cyclic garbage collector off, then ``gc.freeze()`` what it
built and turn the collector back on. Nearly everything start-up allocates (modules, classes, the
session) lives until the process ends, so collecting during start-up, and scanning it again in
every later full collection and at exit, is work without result; the few cycles of start-up
garbage stay in memory until exit instead (well under a MiB). Objects made during the run are
collected as usual.

In print, JSON and RPC mode an unexpected internal exception (a bug) is one stderr line
``Error: <message>`` and exit status 1; ``--verbose`` adds the traceback. Whatever the session had
appended stays in its file (entries are appended line by line, never rewritten).

As pi 0.73.1: ``-r`` with ``-p`` or ``--mode json`` shows the session picker on the terminal before
the run (no terminal, or nothing picked: ``No session selected`` and exit status 0). SIGHUP and
SIGTERM kill the bash tool's process groups before pi ends (spec 50 R-BASH-09).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from pi_app import __version__

if TYPE_CHECKING:  # the fast paths (--version, --help) import nothing else
    import argparse
    from collections.abc import Coroutine
    from types import FrameType

    from pi_app.coding.launch import LaunchOptions

PACKAGE_COMMANDS = ("install", "remove", "uninstall", "update", "list", "config")
SHELL_COMMANDS = ("pods", "mom", "serve", "web")  # pi_app.shells: separate shells with their own extras
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

HELP = f"""pi {__version__} - AI coding assistant with read, bash, edit, write tools

Usage:
  pi [options] [@files...] [messages...]

Commands:
  pi install <source> [-l]     Install a package (extensions, skills, prompts, themes) and add it to settings
  pi remove <source> [-l]      Remove a package from settings (alias: uninstall)
  pi update [source]           Update installed packages
  pi list                      List installed packages
  pi config                    Enable or disable package resources
  pi mcp add|remove|list|get|login|logout
                               Configure MCP servers and sign in (pi mcp --help)
  pi auth login|logout|check|print-api-key|print-bearer-token
                               Sign in to providers, check credentials (pi auth --help)
  pi sessions import|export    Copy sessions between JSONL files and the SQLite store (search: FTS)
  pi pods <command>            Run open models with vLLM on GPU machines over SSH (extra: pods)
  pi mom <workspace>           The coding agent as a Slack bot (extra: mom)
  pi serve [--port N]          Serve sessions over HTTP + SSE (extra: serve; pi serve --help)
  pi web [--port N]            The app in a browser tab (extra: serve; pi web --help)

Options:
  --provider <name>              Provider name
  --model <pattern>              Model pattern or id ("provider/id", optional ":<thinking>")
  --api-key <key>                API key for the chosen provider (defaults to env vars / auth.json;
                                 the environment is safer: pi hides the key from ps, but it can
                                 still show in shell history and to a fast enough ps)
  --system-prompt <text|file>    Replace the default system prompt
  --append-system-prompt <text|file>
                                 Append text or a file's contents to the system prompt (repeatable)
  --mode <mode>                  Output mode: text (default), json, rpc, or acp (editors)
  --print, -p                    Non-interactive: process the prompt(s) and exit
  --continue, -c                 Continue the most recent session of this directory
  --resume, -r                   Pick a session to resume
  --session <path|id>            Use a specific session file or session id prefix
  --fork <path|id>               Fork a session file or id prefix into a new session
  --session-dir <dir>            Directory for session storage and lookup
  --session-id <id>              Id for a new session
  --name, -n <name>              Name the session
  --no-session                   Do not save the session (ephemeral)
  --models <patterns>            Comma-separated model patterns for model cycling (globs allowed)
  --no-tools, -nt                Disable all tools
  --no-builtin-tools, -nbt       Disable built-in tools, keep extension tools
  --tools, -t <tools>            Comma-separated allow-list of tool names or * patterns; only
                                 +name/-name entries add to or remove from the defaults
  --exclude-tools, -xt <tools>   Comma-separated tool names or * patterns to disable
  --thinking <level>             Thinking level: off, minimal, low, medium, high, xhigh, max
  --extension, -e <path>         Load an extension file (repeatable)
  --no-extensions, -ne           Disable extension discovery (explicit -e paths still load)
  --skill <path>                 Load a skill file or directory (repeatable)
  --no-skills, -ns               Disable skill discovery and loading
  --prompt-template <path>       Load a prompt template file or directory (repeatable)
  --no-prompt-templates, -np     Disable prompt template discovery and loading
  --theme <path>                 Load a theme file or directory (repeatable)
  --use-theme <name[/name]>      The app's theme for this run (light/dark: by the terminal background)
  --no-themes                    Disable theme discovery and loading
  --no-context-files, -nc        Do not load AGENTS.md / CLAUDE.md
  --approve, -a                  Trust this project's .pi resources for this run
  --no-approve, -na              Ignore this project's .pi resources for this run
  --tui-mode <mode>              fullscreen (the only mode of this pi's app; "regular" is accepted)
  --export <file> [output]       Export a session file to HTML and exit
  --list-models [search]         List available models (optional fuzzy search)
  --verbose                      Verbose start-up (overrides the quietStartup setting); tracebacks
                                 of internal errors in print, JSON and RPC mode
  --offline                      Disable start-up network operations (same as PI_OFFLINE=1)
  --no-mcp                       Do not connect the MCP servers of mcp.json for this run
  --help, -h                     Show this help
  --version, -v                  Show the version

Extensions can register additional flags.

Examples:
  pi                                        Interactive mode
  pi "List all .py files in src/"           Interactive mode with an initial prompt
  pi @prompt.md @image.png "What is this?"  Include files in the first message
  pi -p "Summarise README.md"               Print the answer and exit
  pi -c "What did we discuss?"              Continue the previous session
  pi --model openai/gpt-4o-mini "Refactor"  Use a specific model
  pi --model sonnet:high "Hard problem"     Model with a thinking level
  pi --tools read,grep,find,ls -p "Review src/"   Read-only tools

Environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, GROQ_API_KEY, XAI_API_KEY,
  CEREBRAS_API_KEY, ZAI_API_KEY, MISTRAL_API_KEY, DEEPSEEK_API_KEY, FIREWORKS_API_KEY,
  TOGETHER_API_KEY, NVIDIA_API_KEY, MOONSHOT_API_KEY, ... provider API keys (/login lists all)
  AZURE_OPENAI_API_KEY, AZURE_OPENAI_BASE_URL | AZURE_OPENAI_RESOURCE_NAME   Azure OpenAI / Foundry
  CLOUDFLARE_API_KEY, CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_GATEWAY_ID          Cloudflare
  AWS_PROFILE | AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY | AWS_BEARER_TOKEN_BEDROCK, AWS_REGION
                                 Amazon Bedrock (needs pip install 'pi-app[bedrock]')
  GOOGLE_CLOUD_API_KEY | GOOGLE_CLOUD_PROJECT + GOOGLE_CLOUD_LOCATION (ADC)
                                 Google Vertex AI (needs pip install 'pi-app[vertex]')
  HTTP_PROXY, HTTPS_PROXY, NO_PROXY  Proxy for every request (or httpProxy in ~/.pi/agent/settings.json)
  PI_CODING_AGENT_DIR            Config directory (default: ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR    Session directory (overridden by --session-dir)
  PI_OFFLINE                     Disable start-up network operations when 1/true/yes
  PI_SHARE_VIEWER_URL            Where /share links point (default: https://pi.dev/session/)

Custom and local models (Ollama, vLLM, LM Studio): ~/.pi/agent/models.json

Built-in tools:
  read, bash, edit, write (on by default); grep, find, ls (read-only, off by default)
"""


class CliError(Exception):
    """A bad command line; the message is printed as one line and pi exits with status 2."""


def build_parser(extension_flags: Sequence[tuple[str, bool]] = ()) -> argparse.ArgumentParser:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise CliError(message)

    p = Parser(prog="pi", add_help=False, allow_abbrev=False)
    p.add_argument("--provider")
    p.add_argument("--model")
    p.add_argument("--api-key", dest="api_key")
    p.add_argument("--system-prompt", dest="system_prompt")
    p.add_argument("--append-system-prompt", dest="append_system_prompt", action="append", default=[])
    p.add_argument("--mode", choices=("text", "json", "rpc", "acp"), default="text")
    p.add_argument("--print", "-p", dest="print", action="store_true")
    p.add_argument("--continue", "-c", dest="continue_", action="store_true")
    p.add_argument("--resume", "-r", dest="resume", action="store_true")
    p.add_argument("--session")
    p.add_argument("--fork")
    p.add_argument("--session-dir", dest="session_dir")
    p.add_argument("--session-id", dest="session_id")
    p.add_argument("--name", "-n", dest="name")
    p.add_argument("--no-session", dest="no_session", action="store_true")
    p.add_argument("--models")
    p.add_argument("--no-tools", "-nt", dest="no_tools", action="store_true")
    p.add_argument("--no-builtin-tools", "-nbt", dest="no_builtin_tools", action="store_true")
    p.add_argument("--tools", "-t", dest="tools")
    p.add_argument("--exclude-tools", "-xt", dest="exclude_tools")
    p.add_argument("--thinking", choices=THINKING_LEVELS)
    p.add_argument("--extension", "-e", dest="extensions", action="append", default=[])
    p.add_argument("--no-extensions", "-ne", dest="no_extensions", action="store_true")
    p.add_argument("--skill", dest="skills", action="append", default=[])
    p.add_argument("--no-skills", "-ns", dest="no_skills", action="store_true")
    p.add_argument("--prompt-template", dest="prompt_templates", action="append", default=[])
    p.add_argument("--no-prompt-templates", "-np", dest="no_prompt_templates", action="store_true")
    p.add_argument("--theme", dest="themes", action="append", default=[])
    p.add_argument("--no-themes", dest="no_themes", action="store_true")
    p.add_argument("--no-context-files", "-nc", dest="no_context_files", action="store_true")
    p.add_argument("--approve", "-a", dest="approve", action="store_true")
    p.add_argument("--no-approve", "-na", dest="no_approve", action="store_true")
    p.add_argument("--use-theme", dest="use_theme")
    p.add_argument("--tui-mode", dest="tui_mode", choices=("fullscreen", "regular"))
    p.add_argument("--export", nargs="+")
    p.add_argument("--list-models", dest="list_models", nargs="?", const="", default=None)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--offline", action="store_true")
    p.add_argument("--no-mcp", dest="no_mcp", action="store_true")
    for flag, takes_value in extension_flags:
        if takes_value:
            p.add_argument(f"--{flag}", dest=f"ext__{flag}")
        else:
            p.add_argument(f"--{flag}", dest=f"ext__{flag}", action="store_true")
    p.add_argument("rest", nargs="*")
    return p


def parse_args(
    argv: Sequence[str], extension_flags: Sequence[tuple[str, bool]] = (), *, allow_unknown: bool = False
) -> LaunchOptions:
    """The command line as ``LaunchOptions``; an unknown option raises ``CliError`` naming it.

    With ``allow_unknown`` (the first of the two passes that extension flags need, spec 40 §2.8)
    unknown options are kept in ``unknown_options`` instead.
    """
    from pi_app.coding.launch import LaunchOptions

    if not argv and not extension_flags:  # plain ``pi``: the defaults, without building the parser
        return LaunchOptions()
    return _parse_with_argparse(argv, extension_flags, allow_unknown=allow_unknown)


def _parse_with_argparse(
    argv: Sequence[str], extension_flags: Sequence[tuple[str, bool]] = (), *, allow_unknown: bool = False
) -> LaunchOptions:
    from pi_app.coding.launch import LaunchOptions

    parser = build_parser(extension_flags)
    # "--" ends options: everything after it is a message, even if it starts with "-".
    argv = list(argv)
    tail: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, tail = argv[:cut], argv[cut + 1 :]
    namespace, unknown = parser.parse_known_intermixed_args(argv)
    unknown_options = [u for u in unknown if u.startswith("-") and u != "-"]
    if unknown_options and not allow_unknown:
        raise CliError(f"unknown option {unknown_options[0]} (see pi --help)")
    values = vars(namespace)
    rest = list(values.pop("rest")) + [u for u in unknown if u not in unknown_options] + tail
    ext_values = {k[5:]: v for k, v in list(values.items()) if k.startswith("ext__")}
    for key in list(values):
        if key.startswith("ext__"):
            values.pop(key)
    list_models = values.pop("list_models")
    args = LaunchOptions(**values)
    args.list_models_requested = list_models is not None
    args.list_models = list_models or None
    args.extension_flags = ext_values
    args.unknown_options = unknown_options
    args.argv = list(argv) + (["--", *tail] if tail else [])
    for item in rest:
        if item.startswith("@") and len(item) > 1:
            args.file_args.append(item[1:])
        elif item.isascii():
            args.messages.append(item)
        else:  # argv is decoded with surrogateescape: bytes that are not UTF-8 become U+FFFD
            from pi_app.ai.util.sanitize import replace_lone_surrogates

            args.messages.append(replace_lone_surrogates(item))
    return args


def _print_version() -> int:
    sys.stdout.write(f"{__version__}\n")
    return 0


def _print_help() -> int:
    sys.stdout.write(HELP)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        hide_secret_arguments(sys.argv[1:])
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SHELL_COMMANDS:  # pi pods / pi mom: their own programs and flags
        from pi_app.shells import run_shell_command

        return run_shell_command(argv)
    if any(a in ("--version", "-v") for a in argv):
        return _print_version()
    if any(a in ("--help", "-h") for a in argv) and not (
        argv and argv[0] in (*PACKAGE_COMMANDS, "sessions", "checkpoints", "mcp", "auth")
    ):
        return _print_help()
    if argv[:1] == ["auth"]:
        from pi_app.modes.auth_commands import run_auth_command

        return run_auth_command(argv[1:])
    if argv[:1] == ["mcp"]:
        from pi_app.modes.mcp_commands import run_mcp_command

        return run_mcp_command(argv[1:])
    if argv[:1] == ["checkpoints"]:
        from pi_app.modes.checkpoint_command import run_checkpoint_command

        return run_checkpoint_command(argv[1:])
    if argv and argv[0] in PACKAGE_COMMANDS:
        from pi_app.modes.package_commands import run_package_command

        return run_package_command(argv)
    if argv and argv[0] == "sessions":
        from pi_app.modes.session_commands import run_session_command

        return run_session_command(argv)
    try:
        # First pass (spec 40 §2.8): options only extensions know are kept for the second check
        # in ``attach_extensions``, once the extensions that register them have loaded.
        args = parse_args(argv, allow_unknown=True)
    except CliError as exc:
        sys.stderr.write(f"pi: {exc}\n")
        return 2
    if args.offline:
        os.environ["PI_OFFLINE"] = "1"
    if args.tui_mode == "regular":  # 1.6.0's inline mode: accepted, said once, full screen instead
        sys.stderr.write("pi: --tui-mode regular is not supported by this pi; the app runs full screen\n")
    _skip_pydantic_plugin_loader()
    install_exit_signal_handlers()
    return run(args)


SECRET_OPTIONS = ("--api-key",)


def hide_secret_arguments(argv: Sequence[str]) -> None:
    """Take the ``--api-key`` value out of the process title and arguments that every local user
    sees in ``ps`` and ``/proc/<pid>/cmdline`` (issue 19 item 8; pi 1.6.0 renames itself "pi"):
    the arguments are shown with the key as ``***``. Needs ``setproctitle``; without it nothing
    changes."""
    if not any(a in SECRET_OPTIONS or a.startswith(tuple(o + "=" for o in SECRET_OPTIONS)) for a in argv):
        return
    try:
        import setproctitle
    except ImportError:  # pragma: no cover - a dependency; a broken install keeps going
        return
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            shown.append("***")
            hide_next = False
        elif arg in SECRET_OPTIONS:
            shown.append(arg)
            hide_next = True
        elif arg.startswith(tuple(o + "=" for o in SECRET_OPTIONS)):
            shown.append(arg.split("=", 1)[0] + "=***")
        else:
            shown.append(arg)
    setproctitle.setproctitle(" ".join(["pi", *shown]))


PYDANTIC_PLUGINS_OFF = ("__all__", "1", "true")  # the values with which pydantic loads no plugin


def _skip_pydantic_plugin_loader() -> None:
    """pi runs no pydantic plugins (decision): on the first model it builds, pydantic's plugin loader
    would import ``importlib.metadata`` (with ``email``, ``zipfile`` …) and scan every installed
    distribution's entry points, a noticeable share of ``pi -p``. A small module takes its place and
    answers "no plugins"; any other name is looked up in pydantic's own loader, loaded then, so a
    pydantic that asks the loader for more still gets it. The environment is left alone (setting
    ``PYDANTIC_DISABLE_PLUGINS`` would reach every command the bash tool runs); a user who sets it
    to name plugins gets pydantic's own loader."""
    import types

    name = "pydantic.plugin._loader"
    if (
        os.environ.get("PYDANTIC_DISABLE_PLUGINS", "__all__") not in PYDANTIC_PLUGINS_OFF
        or name in sys.modules
    ):
        return

    def get_plugins() -> tuple[()]:
        return ()

    def real_loader_attribute(attribute: str) -> object:
        from importlib import import_module

        if attribute.startswith("__"):  # the import system's own questions (``__path__`` …)
            raise AttributeError(attribute)
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
        return getattr(import_module(name), attribute)

    stand_in = types.ModuleType(name, "pydantic's plugin loader while every plugin is off (pi_app.cli)")
    stand_in.get_plugins = get_plugins  # type: ignore[attr-defined]  # a module made at run time
    stand_in.__getattr__ = real_loader_attribute  # type: ignore[method-assign]  # PEP 562 module __getattr__
    sys.modules[name] = stand_in


def install_exit_signal_handlers() -> None:
    """On SIGHUP or SIGTERM, kill the bash tool's process groups, then die of that signal as before.

    The groups are killed at interpreter exit too (``atexit``), but a signal's default action ends
    the process without running it, which would leave ``sleep 100 &`` and friends behind.
    """
    import signal

    def on_signal(signum: int, _frame: object) -> None:
        shell = sys.modules.get("pi_app.coding.tools.shell")  # not loaded: no bash ever ran
        if shell is not None:
            if shell.defer_exit_signal(signum):  # a shell is starting: raised again once tracked
                return
            shell.kill_tracked_process_groups()
        _die_of_signal(signum)

    for name in ("SIGHUP", "SIGTERM"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), on_signal)


# ---------------------------------------------------------------------------------------------
# Dispatch (heavy imports happen only below this line, inside functions)
# ---------------------------------------------------------------------------------------------


def _read_piped_stdin(args: LaunchOptions) -> None:
    """Piped stdin (not a TTY) forces print mode and becomes the first message (R-PRINT-02)."""
    if args.mode in ("rpc", "acp") or sys.stdin is None or sys.stdin.isatty():
        return
    try:
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read().decode("utf-8", "replace") if stream is not None else sys.stdin.read()
    except (OSError, ValueError):
        return
    if data.strip():
        args.messages.insert(0, data)
    args.print = True


def run(args: LaunchOptions) -> int:
    import asyncio

    if args.export:
        return _export(args)
    if args.list_models_requested:
        from pi_app.modes.list_models import list_models

        return asyncio.run(list_models(args.list_models, args))
    # ``pi web`` (issue 24) runs the app behind textual-serve: stdin and stdout are its pipes, not a
    # terminal, and carry the web driver's packets. The marker is removed so that nothing the app
    # starts (a ``pi -p`` in the bash tool) takes it for itself.
    from pi_app.shells import WEB_APP_ENV

    served_to_browser = os.environ.pop(WEB_APP_ENV, "") == "1"
    if not served_to_browser:
        _read_piped_stdin(args)
    on_terminal = served_to_browser or (sys.stdin.isatty() and sys.stdout.isatty())
    headless = args.mode == "json" or args.print or not on_terminal
    if args.resume and args.mode not in ("rpc", "acp") and headless and not _pick_session_to_resume(args):
        sys.stderr.write("No session selected\n")
        return 0
    if args.mode in ("rpc", "acp") or headless:
        try:
            if args.mode == "acp":
                from pi_app.modes.acp.agent import run_acp_mode

                return asyncio.run(_with_interrupt_deadline(run_acp_mode(args)))
            if args.mode == "rpc":
                from pi_app.modes.rpc.server import run_rpc_mode

                return asyncio.run(_with_interrupt_deadline(run_rpc_mode(args)))
            return asyncio.run(_with_interrupt_deadline(_run_headless(args)))
        except Exception as exc:  # a bug, not bad input: one line instead of a traceback
            from pi_app.modes.console import report_unexpected_error

            return report_unexpected_error(exc, verbose=args.verbose)
        except KeyboardInterrupt:  # Ctrl+C: end by the signal as pi 0.73.1 does, without a traceback
            import signal

            return _die_of_signal(signal.SIGINT, 130)
    if args.session and not (args.fork or args.no_session):
        settled = _settle_session_argument(args)
        if settled is not None:
            return settled
    import gc

    gc.disable()  # as headless, until the app's first frame is out (``pi_app.coding.launch.keep_startup_objects``)
    from pi_app.tui.app import run_interactive

    return run_interactive(args)


INTERRUPT_DEADLINE_S = 3.0
"""How long a headless run may take to wind down after Ctrl+C (SIGINT) before it is ended."""


async def _with_interrupt_deadline(run: Coroutine[object, object, int]) -> int:
    """Run a headless mode with a deadline on Ctrl+C.

    SIGINT goes on doing what ``asyncio.run`` makes of it (the run is cancelled, the session keeps
    what it has, pi ends by the signal); the handler asyncio installed is chained, not replaced, and
    the first SIGINT also starts a timer: a process still alive ``INTERRUPT_DEADLINE_S`` later kills
    the bash tool's groups and exits 130 (an extension tool that swallows the cancellation would
    otherwise keep pi alive for ever). A SIGINT that was ignored when pi started (``pi -p … &``
    from a script, ``nohup``) stays ignored.
    """
    import signal
    import threading

    asyncio_handler = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is threading.main_thread() and callable(asyncio_handler):
        armed: list[threading.Timer] = []

        def give_up() -> None:
            shell = sys.modules.get("pi_app.coding.tools.shell")
            if shell is not None:
                shell.kill_tracked_process_groups()
            os._exit(130)

        def on_interrupt(signum: int, frame: FrameType | None) -> None:
            if not armed:
                armed.append(threading.Timer(INTERRUPT_DEADLINE_S, give_up))
                armed[0].daemon = True
                armed[0].start()
            asyncio_handler(signum, frame)

        signal.signal(signal.SIGINT, on_interrupt)
    return await run


def _die_of_signal(signum: int, fallback_status: int = 1) -> int:
    """End the process by ``signum``'s default action (as if no handler had been installed)."""
    import signal

    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    return fallback_status  # reached only where the signal does not end the process


def _settle_session_argument(args: LaunchOptions) -> int | None:
    """``pi --session <id prefix>`` before the app takes the screen, as pi 0.73.1: a session of
    another project is offered for forking on the terminal (the app then opens the fork), a prefix
    that matches nothing ends pi with its one-line error. Returns an exit status to stop with."""
    from pi_app.coding.launch import LaunchError, session_argument_file, session_dir_for
    from pi_app.coding.session.listing import looks_like_path
    from pi_app.modes.console import ask_on_terminal, write_stderr_line

    if looks_like_path(args.session or ""):
        from pi_app.coding.paths import expand_user
        from pi_app.coding.session.manager import NotASessionFileError, check_session_file

        try:  # a file that is not a session is refused before the app takes the screen
            check_session_file(os.path.abspath(expand_user(args.session or "")))
        except NotASessionFileError as exc:
            write_stderr_line(f"Error: {exc}")
            return 1
        return None  # the app opens (or creates) the file and reports what it finds there
    cwd = os.path.abspath(args.cwd or os.getcwd())
    session_dir = session_dir_for(args, cwd)
    try:
        args.session = session_argument_file(
            args.session or "", cwd, session_dir, ask_on_terminal, write_stderr_line
        )
    except LaunchError as exc:
        write_stderr_line(str(exc))
        return exc.exit_code
    return None


def _pick_session_to_resume(args: LaunchOptions) -> bool:
    """``pi -r -p``: as pi 0.73.1, the session picker runs on the terminal first (drawn on stderr, so
    stdout keeps only the answer) and the prompt goes to the chosen session. Without a terminal to
    ask on, nothing is chosen."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    from pi_app.tui.selectors.resume_start import choose_session_to_resume

    if sys.stdout.isatty():
        return choose_session_to_resume(args)
    # Textual sizes itself from stdout, here a file or a pipe (``pi -r -p … > answer.txt``); the
    # terminal is on stderr, so its size is passed on through COLUMNS/LINES while the picker runs.
    size = os.get_terminal_size(sys.stderr.fileno())
    saved = {name: os.environ.get(name) for name in ("COLUMNS", "LINES")}
    os.environ.update(COLUMNS=str(size.columns), LINES=str(size.lines))
    try:
        return choose_session_to_resume(args)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _export(args: LaunchOptions) -> int:
    """``pi --export <session.jsonl> [output.html]``: write the HTML page and print its path."""
    from pi_app.coding.export_html import ExportError, export_file_to_html

    if len(args.export or []) > 2:
        sys.stderr.write("pi: --export takes a session file and an optional output path\n")
        return 2
    source, *rest = args.export or []
    try:
        path = export_file_to_html(source, rest[0] if rest else None, cwd=args.cwd)
    except (ExportError, OSError) as exc:
        sys.stderr.write(f"Error: {exc}\n")
        return 1
    sys.stdout.write(f"Exported to: {path}\n")
    return 0


async def _run_headless(args: LaunchOptions) -> int:
    import gc

    from pi_app.coding.launch import (  # loaded already, for LaunchOptions
        LaunchError,
        build_session,
        finish_extensions,
        first_message_parts,
        keep_startup_objects,
    )

    gc.disable()  # until keep_startup_objects: start-up allocates mostly what it keeps
    try:
        from pi_app.modes.console import terminal_host
        from pi_app.modes.output import LineWriter, guard_stdout

        out = LineWriter(guard_stdout())  # from here on only the answer / the JSON lines reach stdout
        try:
            created = await build_session(args, host=terminal_host())
            text, images = first_message_parts(args)
        except LaunchError as exc:
            for warning in exc.warnings:  # e.g. a broken models.json behind "No models available"
                sys.stderr.write(f"Warning: {warning}\n")
            sys.stderr.write(f"{exc}\n")
            return exc.exit_code
    finally:
        keep_startup_objects()
    session = created.session
    for warning in created.warnings:
        sys.stderr.write(f"Warning: {warning}\n")
    more = args.messages[1:] if text is not None else []
    try:
        if args.mode == "json":
            from pi_app.modes.json_mode import run_json_mode

            status = await run_json_mode(session, out, text, images, more)
        else:
            from pi_app.modes.print_mode import run_print_mode

            status = await run_print_mode(session, out, text, images, more)
        if session.save_error:  # the run went on without its session file: say so once, fail
            sys.stderr.write(f"Error: {session.save_error}\n")
            return status or 1
        return status
    finally:
        await finish_extensions(session)
        session.dispose()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
