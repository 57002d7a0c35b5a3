"""``pi mcp add|remove|list|get|login|logout``: MCP servers from a shell, without a session (issue 22).

As pi 1.6.0: ``add``/``remove`` write ``~/.pi/agent/mcp.json`` (``-l``/``--local``: the project's
``.pi/mcp.json``) and keep the rest of the file; ``list`` connects every enabled server and prints
its state, tools and errors, exiting 1 when an entry is invalid or an enabled server did not
connect (``--json`` for a machine-readable list); ``login``/``logout`` sign in to / out of an OAuth
HTTP server. ``get <server>`` (ours) prints one server's entry and its connection state. Shell
commands do not load extensions. The project file counts only in a trusted project.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_app.ai.codec import encode_json

USAGE = """Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json]
  pi mcp get <server> [--json]
  pi mcp login <server> [-l] [--timeout <seconds>]
  pi mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  get <server>            Show one server's entry, state and tools
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials

Options for add, remove, login, and logout:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)
"""

HINT = 'Use "pi mcp --help" for usage.'
ADD_USAGE = "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])"


class UsageError(Exception):
    pass


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")


def _agent_dir() -> Path:
    from pi_app.coding import paths

    return paths.agent_dir()


def _project_trusted(cwd: str) -> bool:
    from pi_app.coding.trust import TrustStore

    return TrustStore().decision_for(cwd) is True


def run_mcp_command(argv: Sequence[str]) -> int:
    argv = list(argv)
    if not argv or argv[0] in ("--help", "-h", "help") or "--help" in argv or "-h" in argv:
        sys.stdout.write(USAGE)
        return 0
    command, rest = argv[0], argv[1:]
    handlers = {
        "add": _add,
        "remove": _remove,
        "list": _list,
        "get": _get,
        "login": _login,
        "logout": _logout,
    }
    handler = handlers.get(command)
    if handler is None:
        _err(f'Unknown mcp command "{command}".')
        _err(HINT)
        return 1
    try:
        return handler(rest)
    except UsageError as exc:
        _err(str(exc))
        _err(HINT)
        return 1
    except KeyboardInterrupt:
        return 130


def _take_local(args: list[str]) -> bool:
    local = False
    for flag in ("-l", "--local"):
        while flag in args:
            args.remove(flag)
            local = True
    return local


def _config_file(local: bool) -> tuple[Path, str]:
    from pi_app.coding.mcp.config import project_config_path, user_config_path

    if local:
        return project_config_path(os.getcwd()), "project"
    return user_config_path(_agent_dir()), "global"


def _pair(value: str, option: str) -> tuple[str, str]:
    key, sep, val = value.partition("=")
    if not sep or not key:
        raise UsageError(f"{option} expects KEY=VALUE, got {value!r}")
    return key, val


def _add(args: list[str]) -> int:
    from pi_app.coding.mcp.config import ConfigWriteError, parse_entry, set_server_entry

    command: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, command = args[:cut], args[cut + 1 :]
    local = _take_local(args)
    values: dict[str, Any] = {"env": {}, "headers": {}}
    name: str | None = None
    options_with_value = {
        "--url", "--env", "--cwd", "--header", "--bearer-token-env-var", "--oauth-client-id",
        "--oauth-client-secret", "--oauth-callback-port", "--oauth-client-name",
        "--oauth-client-registration", "--exposure", "--description",
    }  # fmt: skip
    i = 0
    while i < len(args):
        arg = args[i]
        option, has_inline, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if option in options_with_value:
            if has_inline:
                value = inline
            elif i + 1 < len(args):
                i += 1
                value = args[i]
            else:
                raise UsageError(f"{option} needs a value")
            if option == "--env":
                k, v = _pair(value, option)
                values["env"][k] = v
            elif option == "--header":
                k, v = _pair(value, option)
                values["headers"][k] = v
            else:
                values[option[2:]] = value
        elif arg.startswith("-"):
            raise UsageError(f"Unknown option {arg}")
        elif name is None:
            name = arg
        else:
            raise UsageError(ADD_USAGE)
        i += 1
    if name is None or (not command and "url" not in values) or (command and "url" in values):
        raise UsageError(ADD_USAGE)
    entry: dict[str, Any] = {}
    if command:
        entry["command"] = command[0]
        if command[1:]:
            entry["args"] = command[1:]
        if values["env"]:
            entry["env"] = values["env"]
        if "cwd" in values:
            entry["cwd"] = values["cwd"]
    else:
        entry["url"] = values["url"]
        headers = dict(values["headers"])
        if "bearer-token-env-var" in values:
            headers["Authorization"] = "Bearer ${" + values["bearer-token-env-var"] + "}"
        if headers:
            entry["headers"] = headers
        oauth: dict[str, Any] = {}
        for option, key in (
            ("oauth-client-id", "clientId"),
            ("oauth-client-secret", "clientSecret"),
            ("oauth-client-name", "clientName"),
            ("oauth-client-registration", "clientRegistration"),
        ):
            if option in values:
                oauth[key] = values[option]
        if "oauth-callback-port" in values:
            try:
                oauth["callbackPort"] = int(values["oauth-callback-port"])
            except ValueError:
                raise UsageError("--oauth-callback-port expects a port number") from None
        if oauth:
            entry["oauth"] = oauth
    if "exposure" in values:
        entry["exposure"] = values["exposure"]
    if "description" in values:
        entry["description"] = values["description"]
    path, scope = _config_file(local)
    parsed = parse_entry(name, entry, str(path), scope)
    if isinstance(parsed, str):
        _err(parsed.replace(f"{path}: ", "", 1))
        return 1
    try:
        replaced = set_server_entry(path, name, entry)
    except (ConfigWriteError, OSError) as exc:
        _err(f"Error: {exc}")
        return 1
    verb = "Replaced" if replaced else "Added"
    print(f'{verb} {scope} MCP server "{name}" in {path}.')
    if local and not _project_trusted(os.getcwd()):
        print(
            f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it."
        )
    print("Check it with: pi mcp list")
    return 0


def _remove(args: list[str]) -> int:
    from pi_app.coding.mcp.config import ConfigWriteError, remove_server_entry

    local = _take_local(args)
    if len(args) != 1 or args[0].startswith("-"):
        raise UsageError("Usage: pi mcp remove <server> [-l]")
    name = args[0]
    path, scope = _config_file(local)
    try:
        removed = remove_server_entry(path, name)
    except (ConfigWriteError, OSError) as exc:
        _err(f"Error: {exc}")
        return 1
    if not removed:
        _err(f'No {scope} MCP server named "{name}" in {path}.')
        return 1
    print(f'Removed {scope} MCP server "{name}" from {path}.')
    return 0


async def _connect_all(only: str | None = None) -> tuple[Any, list[dict[str, Any]]]:
    from pi_app.coding.mcp.config import McpConfig, load_mcp_config
    from pi_app.coding.mcp.manager import McpManager
    from pi_app.coding.mcp.oauth import auth_factory

    cwd = os.getcwd()
    agent_dir = _agent_dir()
    config = load_mcp_config(agent_dir, cwd, project_trusted=_project_trusted(cwd))
    if only is not None:
        config = McpConfig({k: v for k, v in config.servers.items() if k == only}, config.errors)
    manager = McpManager(
        config, cwd=cwd, agent_dir=agent_dir, auth_factory=auth_factory(agent_dir, interactive=False)
    )
    for connection in manager.connections.values():
        connection.start()
    try:
        from pi_app.coding.mcp.connection import MIN_CONNECT_TIMEOUT_S

        longest = max((max(s.timeout_s, MIN_CONNECT_TIMEOUT_S) for s in config.servers.values()), default=0.0)
        await manager.wait_all(timeout=longest + 2)  # every server's own connection timeout
        return config, manager.status()
    finally:
        manager.kill()
        await manager.close()


def _print_server(entry: dict[str, Any], config_entry: Any) -> None:
    state = entry["state"]
    if state == "connected":
        count = len(entry["tools"])
        shown = f"connected, {count} tool{'s' if count != 1 else ''}"
    else:
        shown = state
    print(f"{entry['name']}: {shown} ({entry['exposure']}, {entry['scope']})")
    print(f"  {entry['transport']}")
    if entry.get("error"):
        print(f"  {entry['error']}")
    if entry["tools"]:
        marked = []
        from pi_app.coding.mcp.naming import tool_exposure

        for tool in entry["tools"]:
            exposure = tool_exposure(tool, config_entry.exposure, config_entry.tool_exposure)
            marked.append(tool if exposure == config_entry.exposure else f"{tool} [{exposure}]")
        print(f"  tools: {', '.join(marked)}")
    if entry.get("resources"):
        print("  offers resources")


def _list(args: list[str]) -> int:
    as_json = "--json" in args
    extra = [a for a in args if a != "--json"]
    if extra:
        raise UsageError("Usage: pi mcp list [--json]")
    config, status = asyncio.run(_connect_all())
    failed = bool(config.errors) or any(s["enabled"] and s["state"] != "connected" for s in status)
    if as_json:
        print(encode_json({"servers": status, "errors": config.errors}, indent=2))
    else:
        if not status and not config.errors:
            print("No MCP servers configured. Add one with: pi mcp add <server> -- <command> [args...]")
        for entry in status:
            _print_server(entry, config.servers[entry["name"]])
        for error in config.errors:
            print(f"config error: {error}")
    return 1 if failed else 0


def _get(args: list[str]) -> int:
    as_json = "--json" in args
    rest = [a for a in args if a != "--json"]
    if len(rest) != 1:
        raise UsageError("Usage: pi mcp get <server> [--json]")
    name = rest[0]
    config, status = asyncio.run(_connect_all(only=name))
    if not status:
        _err(f'No MCP server named "{name}".')
        return 1
    entry = status[0]
    server = config.servers[name]
    if as_json:
        print(encode_json({**entry, "config": server.raw}, indent=2))
    else:
        _print_server(entry, server)
        print(f"  source: {server.source}")
        print("  " + encode_json(server.raw))
    return 0 if entry["state"] == "connected" or not entry["enabled"] else 1


def _login(args: list[str]) -> int:
    return login_command(args, _agent_dir(), local=_take_local(args))


def _logout(args: list[str]) -> int:
    return logout_command(args, _agent_dir(), local=_take_local(args))


def _find_server(name: str, agent_dir: Path, local: bool) -> Any:
    from pi_app.coding.mcp.config import load_mcp_config

    cwd = os.getcwd()
    config = load_mcp_config(agent_dir, cwd, project_trusted=local or _project_trusted(cwd))
    return config.servers.get(name)


def login_command(args: Sequence[str], agent_dir: Path, *, local: bool = False) -> int:
    from pi_app.coding.mcp.oauth import DEFAULT_LOGIN_TIMEOUT_S

    args = list(args)
    timeout_s = DEFAULT_LOGIN_TIMEOUT_S
    if "--timeout" in args:
        at = args.index("--timeout")
        try:
            timeout_s = float(args[at + 1])
        except (IndexError, ValueError):
            sys.stderr.write("--timeout expects a number of seconds\n")
            return 1
        del args[at : at + 2]
    if len(args) != 1:
        sys.stderr.write("Usage: pi mcp login <server> [-l] [--timeout <seconds>]\n")
        return 1
    server = _find_server(args[0], agent_dir, local)
    if server is None:
        sys.stderr.write(f'No MCP server named "{args[0]}".\n')
        return 1
    from pi_app.coding.mcp.oauth import sign_in

    def say(line: str) -> None:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def paste_from_terminal(callback: Any) -> None:
        """A browser on another machine (SSH): the user pastes the address it was sent to."""
        if not sys.stdin.isatty():
            return
        import threading

        loop = asyncio.get_running_loop()
        say("If the browser runs on another machine, paste the address it was redirected to here.")

        def read() -> None:
            for line in sys.stdin:
                if "code=" in line or "error=" in line:
                    loop.call_soon_threadsafe(callback.deliver_url, line)
                    return

        threading.Thread(target=read, daemon=True).start()

    try:
        asyncio.run(sign_in(server, agent_dir, say=say, timeout_s=timeout_s, on_callback=paste_from_terminal))
    except (RuntimeError, ValueError) as exc:
        sys.stderr.write(f"Sign-in to {server.name} failed: {exc}\n")
        return 1
    print(f'Signed in to MCP server "{server.name}".')
    return 0


def logout_command(args: Sequence[str], agent_dir: Path, *, local: bool = False) -> int:
    if len(args) != 1:
        sys.stderr.write("Usage: pi mcp logout <server> [-l]\n")
        return 1
    server = _find_server(args[0], agent_dir, local)
    if server is None:
        sys.stderr.write(f'No MCP server named "{args[0]}".\n')
        return 1
    if server.transport != "http":
        sys.stderr.write(f'MCP server "{server.name}" is not an HTTP server.\n')
        return 1
    from pi_app.coding.mcp.oauth import sign_out

    removed = sign_out(server, agent_dir)
    print(
        f'Signed out of MCP server "{server.name}".'
        if removed
        else f'No stored sign-in for MCP server "{server.name}".'
    )
    return 0
