"""``mcp.json``: the MCP servers of the user and of the project, as pi 1.6.0 reads them (issue 22).

Two files, one format (the ``mcpServers`` object other MCP clients use): ``~/.pi/agent/mcp.json``
and, once the project is trusted, ``<cwd>/.pi/mcp.json``. A project entry replaces the user entry of
the same name; a project entry without ``command``, ``url`` or ``type`` only overrides ``enabled``,
``exposure`` and ``toolExposure`` of the user entry and keeps the rest. Server names that differ only
in ``-`` and ``_`` are the same server (the second one is rejected).

Loading never raises: a bad entry becomes one line naming the file, the server and the field, and
the other servers still load. ``${VAR}`` (and a whole-value ``!command``) in ``env``, ``headers``
and ``args`` are resolved when a server connects (``resolve_*``), so a missing variable fails that
server alone with a line naming the variable. Writing (``pi mcp add/remove``, ``/mcp``) changes
only the entry it is about and keeps the rest of the file as it was (other keys, order).

This module imports nothing of the ``mcp`` SDK: reading the files costs a JSON parse.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXPOSURES = ("codemode", "deferred", "direct", "hidden")
EXPOSURE_ALIASES = {"codemode-deferred": "codemode"}
DEFAULT_TIMEOUT_S = 60.0
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")
OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")


@dataclass
class McpServerConfig:
    """One validated server entry. ``raw`` is the entry as written (for ``pi mcp get``, writes)."""

    name: str
    transport: str  # "stdio" | "http"
    source: str  # the file that defines it (or "extension:<path>")
    scope: str  # "global" | "project" | "extension"
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    oauth: dict[str, Any] | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    enabled: bool = True
    exposure: str = "codemode"
    tool_exposure: dict[str, str] = field(default_factory=dict)
    description: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    override_source: str | None = None  # the project file whose override applies

    @property
    def key(self) -> str:
        """Names that differ only in ``-``/``_`` are the same server."""
        return self.name.replace("-", "_")

    def transport_text(self) -> str:
        if self.transport == "http":
            return self.url or ""
        return " ".join([self.command or "", *self.args]).strip()


@dataclass
class McpConfig:
    """The merged servers of both files and the problems met reading them."""

    servers: dict[str, McpServerConfig] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    auto_enable_codemode: bool | None = None

    def enabled(self) -> list[McpServerConfig]:
        return [s for s in self.servers.values() if s.enabled]


def user_config_path(agent_dir: str | Path) -> Path:
    return Path(agent_dir) / "mcp.json"


def project_config_path(cwd: str | Path) -> Path:
    return Path(cwd) / ".pi" / "mcp.json"


def read_config_file(path: Path, errors: list[str]) -> dict[str, Any] | None:
    """The file's JSON object, None when it does not exist; a broken file is one error line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        errors.append(f"{path}: cannot read ({exc.strerror or exc})")
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        errors.append(f"{path}: invalid JSON ({exc})")
        return None
    if not isinstance(data, dict):
        errors.append(f"{path}: expected a JSON object")
        return None
    return data


def _servers_object(data: Mapping[str, Any], path: Path, errors: list[str]) -> dict[str, Any]:
    servers = data.get("mcpServers")
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        errors.append(f'{path}: "mcpServers" must be an object')
        return {}
    return servers


def _str_map(value: Any) -> dict[str, str] | None:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return None
    return {str(k): v for k, v in value.items()}


def normalise_exposure(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = EXPOSURE_ALIASES.get(value, value)
    return value if value in EXPOSURES else None


def _apply_overrides(server: McpServerConfig, entry: Mapping[str, Any], where: str) -> str | None:
    """``enabled``/``exposure``/``toolExposure`` of ``entry`` onto ``server``; an error or None."""
    if "enabled" in entry:
        if not isinstance(entry["enabled"], bool):
            return f'{where}: "enabled" must be true or false'
        server.enabled = entry["enabled"]
    if "exposure" in entry:
        exposure = normalise_exposure(entry["exposure"])
        if exposure is None:
            return f'{where}: "exposure" must be one of {", ".join(EXPOSURES)}'
        server.exposure = exposure
    if "toolExposure" in entry:
        mapping = entry["toolExposure"]
        if not isinstance(mapping, dict):
            return f'{where}: "toolExposure" must be an object of tool name -> exposure'
        out: dict[str, str] = {}
        for tool, value in mapping.items():
            exposure = normalise_exposure(value)
            if exposure is None:
                return f'{where}: "toolExposure.{tool}" must be one of {", ".join(EXPOSURES)}'
            out[str(tool)] = exposure
        server.tool_exposure = out
    return None


def parse_entry(name: str, entry: Any, source: str, scope: str) -> McpServerConfig | str:
    """A validated server, or the one-line error naming the server and the field."""
    where = f'{source}: server "{name}"'
    if not NAME_PATTERN.match(name):
        return f'{source}: invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not isinstance(entry, dict):
        return f"{where} must be an object"
    kind = entry.get("type")
    if kind is not None and kind not in ("stdio", "http", "streamable-http", "sse"):
        return f'{where}: "type" must be "stdio", "http" or "streamable-http"'
    if kind == "sse":
        return f"{where}: legacy SSE transport is not supported; use the streamable HTTP URL (often /mcp instead of /sse)"
    command, url = entry.get("command"), entry.get("url")
    if kind == "stdio" or (kind is None and command is not None):
        if not isinstance(command, str) or not command.strip():
            return f'{where}: "command" must be a non-empty string (one executable; arguments go in "args")'
        transport = "stdio"
    elif kind in ("http", "streamable-http") or (kind is None and url is not None):
        if not isinstance(url, str) or not re.match(r"^https?://", url):
            return f'{where}: "url" must be an http:// or https:// URL'
        if re.search(r"/sse/?$", url) and kind is None:
            pass  # many servers serve streamable HTTP beside SSE; the connection says what it finds
        transport = "http"
    else:
        return f'{where} needs either "command" (stdio) or "url" (streamable HTTP)'
    server = McpServerConfig(name=name, transport=transport, source=source, scope=scope, raw=dict(entry))
    if transport == "stdio":
        server.command = command
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return f'{where}: "args" must be a list of strings'
        server.args = list(args)
        env = _str_map(entry.get("env", {}))
        if env is None:
            return f'{where}: "env" must be an object of strings'
        server.env = env
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            return f'{where}: "cwd" must be a string'
        server.cwd = cwd
    else:
        server.url = url
        headers = _str_map(entry.get("headers", {}))
        if headers is None:
            return f'{where}: "headers" must be an object of strings'
        server.headers = headers
        oauth = entry.get("oauth")
        if oauth is not None and oauth is not False and not isinstance(oauth, dict):
            return f'{where}: "oauth" must be an object'
        server.oauth = oauth if isinstance(oauth, dict) else None
    timeout = entry.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            return f'{where}: "timeout" must be a positive number of seconds'
        server.timeout_s = float(timeout)
    description = entry.get("description")
    if description is not None and not isinstance(description, str):
        return f'{where}: "description" must be a string'
    server.description = description.strip() or None if isinstance(description, str) else None
    problem = _apply_overrides(server, entry, where)
    if problem:
        return problem
    return server


def _is_override_only(entry: Any) -> bool:
    return isinstance(entry, dict) and not ({"command", "url", "type"} & set(entry))


def load_mcp_config(agent_dir: str | Path, cwd: str | Path | None, *, project_trusted: bool) -> McpConfig:
    """Both files merged (project over user). Never raises; problems are in ``errors``."""
    config = McpConfig()
    files: list[tuple[Path, str]] = [(user_config_path(agent_dir), "global")]
    if cwd is not None and project_trusted:
        files.append((project_config_path(cwd), "project"))
    for path, scope in files:
        data = read_config_file(path, config.errors)
        if data is None:
            continue
        auto = data.get("autoEnableCodemode")
        if isinstance(auto, bool):
            config.auto_enable_codemode = auto
        seen: dict[str, str] = {}
        for name, entry in _servers_object(data, path, config.errors).items():
            name = str(name)
            key = name.replace("-", "_")
            if key in seen:
                config.errors.append(
                    f'{path}: server "{name}" is the same server as "{seen[key]}" ("-" and "_" count alike)'
                )
                continue
            seen[key] = name
            existing = next((s for s in config.servers.values() if s.key == key), None)
            if scope == "project" and existing is not None and _is_override_only(entry):
                problem = _apply_overrides(existing, entry, f'{path}: server "{name}"')
                if problem:
                    config.errors.append(problem)
                else:
                    existing.override_source = str(path)
                continue
            parsed = parse_entry(name, entry, str(path), scope)
            if isinstance(parsed, str):
                config.errors.append(parsed)
                continue
            if existing is not None:
                del config.servers[existing.name]
            config.servers[name] = parsed
    return config


def has_configured_servers(agent_dir: str | Path, cwd: str | Path | None, *, project_trusted: bool) -> bool:
    """Cheap check: does any of the files name a server at all (valid or not)?"""
    paths = [user_config_path(agent_dir)]
    if cwd is not None and project_trusted:
        paths.append(project_config_path(cwd))
    return any(p.is_file() and p.stat().st_size > 0 for p in paths)


# -- value resolution (at connect time) ---------------------------------------------------------------

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ResolveError(ValueError):
    pass


def resolve_value(server: str, kind: str, key: str, value: str) -> str:
    """``${VAR}`` from the environment (a missing one fails the server), or a whole-value
    ``!command``'s trimmed output."""
    if value.startswith("!"):
        from pi_app.coding.resolve_value import resolve_value as run_config_value

        result = run_config_value(value)
        if result is None:
            raise ResolveError(
                f'Failed to resolve MCP server "{server}" {kind} "{key}" from command: {value[1:]}'
            )
        return result

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if found is None:
            raise ResolveError(
                f'Failed to resolve MCP server "{server}" {kind} "{key}" from environment variable: {name}'
            )
        return found

    return _VAR.sub(substitute, value)


def expand_home(value: str) -> str:
    return os.path.expanduser(value) if value.startswith("~/") or value == "~" else value


def resolve_env(server: McpServerConfig) -> dict[str, str]:
    return {k: resolve_value(server.name, "env", k, v) for k, v in server.env.items()}


def resolve_headers(server: McpServerConfig) -> dict[str, str]:
    return {k: resolve_value(server.name, "header", k, v) for k, v in server.headers.items()}


def resolve_args(server: McpServerConfig) -> list[str]:
    return [expand_home(resolve_value(server.name, "arg", str(i), a)) for i, a in enumerate(server.args)]


def resolve_cwd(server: McpServerConfig, session_cwd: str) -> str:
    if not server.cwd:
        return session_cwd
    return os.path.join(session_cwd, expand_home(server.cwd))


# -- writing -----------------------------------------------------------------------------------------


class ConfigWriteError(Exception):
    pass


def _load_for_write(path: Path) -> dict[str, Any]:
    errors: list[str] = []
    data = read_config_file(path, errors)
    if errors:  # never overwrite a file we could not read
        raise ConfigWriteError(f"{errors[0]}; not changed")
    return data or {}


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def set_server_entry(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """Add or replace ``name``; returns True when it replaced an entry."""
    data = _load_for_write(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    replaced = name in servers
    servers[name] = entry
    data["mcpServers"] = servers
    _write(path, data)
    return replaced


def remove_server_entry(path: Path, name: str) -> bool:
    data = _load_for_write(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    _write(path, data)
    return True


def update_server_fields(path: Path, name: str, fields: Mapping[str, Any]) -> None:
    """Set ``fields`` (``enabled``, ``exposure``) on ``name`` in ``path``, creating an override entry."""
    data = _load_for_write(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    entry = servers.get(name)
    if not isinstance(entry, dict):
        entry = {}
    entry.update(fields)
    servers[name] = entry
    data["mcpServers"] = servers
    _write(path, data)
