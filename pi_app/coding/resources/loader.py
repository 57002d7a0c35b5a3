"""The resource loader: one discovery, precedence and diagnostics pipeline (spec 40 §2.12, R-RES).

Every kind (extensions, skills, prompt templates, themes) is gathered into one candidate list in the
order of ``SOURCE_RANKS`` ([D-1], 00-index.md D-21), deduplicated by absolute path (the first
occurrence keeps its metadata and enabled state), loaded in that order, and name collisions are
resolved "first wins" with a ``collision`` diagnostic for every loser:

1. CLI (``-e``, ``--skill``, ``--prompt-template``, ``--theme``; scope ``temporary``)
2. packages: project, then global
3. explicit paths in settings arrays: project (relative to ``<cwd>/.pi``), then global (agent dir)
4. project auto-discovery (``.pi/<kind>``; ``.agents/skills`` in cwd and ancestors up to the git root)
5. global auto-discovery (``<agentDir>/<kind>``; ``~/.agents/skills``)
6. paths from extensions' ``resources_discover`` handlers (``extend_resources``)

Project trust (D-22): ranks 2-4 that are project-scoped load only when the project is trusted; the
decision runs between phase A (CLI + global extensions, imported first so their ``project_trust``
handlers can vote) and phase B (project extensions). Context files are never gated.

Nothing here raises for content problems (R-RES-04): every problem is a diagnostic of its kind.

Packages listed in settings that are missing are installed by ``reload()`` (R-PKG-03), the one
start-up download D-32 allows; ``--offline``/``PI_OFFLINE`` skips them with a warning, and
``install_missing_packages=False`` (headless runs) turns the install into a warning naming
``pi install``.

``packages`` is imported only when some scope lists a package: most start-ups have none.
"""

from __future__ import annotations

import inspect
import os
import unicodedata
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_app.coding import paths
from pi_app.coding.extensions.discovery import (
    ExtensionLoadError,
    ExtensionSource,
    LoadExtensionsResult,
    discover_extensions_in_dir,
    next_generation,
    purge_generation,
    resolve_explicit_extension,
)
from pi_app.coding.resources.diagnostics import (
    PathMetadata,
    ResourceDiagnostic,
    ResourceKind,
    ResourceSet,
    Scope,
    collision,
    error,
    warning,
)
from pi_app.coding.resources.patterns import is_enabled, plain_entries, toggles_only
from pi_app.coding.resources.prompt_templates import (
    PromptTemplate,
    discover_template_files,
    load_prompt_template,
)
from pi_app.coding.resources.skills import Skill, discover_skill_files, load_skill_file

if TYPE_CHECKING:
    from pi_app.coding.models.registry import ModelRegistry
    from pi_app.coding.resources.packages import ResolvedPackage
    from pi_app.coding.resources.themes import ThemeSpec  # themes load once a theme file is found
    from pi_app.coding.trust import TrustAnswer

KINDS = ("extensions", "skills", "prompts", "themes")
RESOURCE_TYPE: dict[str, ResourceKind] = {
    "extensions": "extension",
    "skills": "skill",
    "prompts": "prompt",
    "themes": "theme",
}
MISSING_TEXT = {
    "extensions": "Extension path does not exist",
    "skills": "Skill path does not exist",
    "prompts": "Prompt template path does not exist",
    "themes": "Theme path does not exist",
}

# The single precedence rule ([D-1]): lower rank wins a name collision.
SOURCE_RANKS: dict[str, int] = {
    "cli": 0,
    "project_package": 1,
    "global_package": 2,
    "project_settings": 3,
    "global_settings": 4,
    "project_auto": 5,
    "global_auto": 6,
    "extension": 7,
}


@dataclass
class Candidate:
    """One resource unit (an extension entry or one skill/template/theme file) before loading."""

    path: Path
    rank: int
    metadata: PathMetadata
    enabled: bool = True


@dataclass
class ResourceEntry:
    """A discovered resource with its enabled state (what ``pi config`` lists)."""

    kind: str
    path: str
    enabled: bool
    metadata: PathMetadata


@dataclass
class ResourceExtensionPaths:
    """Resource paths an extension adds, by kind."""

    skill_paths: list[str] = field(default_factory=list)
    prompt_paths: list[str] = field(default_factory=list)
    theme_paths: list[str] = field(default_factory=list)


@dataclass
class ContextFileItem:
    """A context file (``AGENTS.md`` …) as the loader hands it to the system prompt."""

    path: str
    content: str


def normalise_path(raw: str, base_dir: str | Path) -> Path:
    """``~`` expanded, Unicode spaces made ASCII, absolute against ``base_dir`` (R-RES-02)."""
    text = "".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in raw.strip())
    expanded = paths.expand_user(text)
    target = Path(expanded) if os.path.isabs(expanded) else Path(base_dir) / expanded
    return Path(os.path.normpath(str(target)))


def find_git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def agents_skill_dirs(cwd: Path) -> list[Path]:
    """``.agents/skills`` in cwd and each ancestor up to the git root (nearest first)."""
    stop = find_git_root(cwd)
    out: list[Path] = []
    for directory in (cwd, *cwd.parents):
        out.append(directory / ".agents" / "skills")
        if stop is not None and directory == stop:
            break
    return out


class TrustPolicy:
    """The trust inputs this layer consumes (D-22); ``pi_app.coding.trust`` supplies the real one.

    ``needs_decision(cwd)``: gated project resources exist and nothing decided yet;
    ``is_trusted(cwd)``: the current decision; ``decide(cwd, trusted, remember)`` records a decision
    taken by a ``project_trust`` handler.
    """

    def __init__(self, trusted: bool = True, needs: bool = False) -> None:
        self._trusted = trusted
        self._needs = needs

    def needs_decision(self, cwd: str) -> bool:
        return self._needs

    def is_trusted(self, cwd: str) -> bool:
        return self._trusted

    def decide(self, cwd: str, trusted: bool, remember: bool) -> None:
        self._trusted = trusted
        self._needs = False


class ProjectTrustPolicy:
    """The real policy over ``pi_app.coding.trust`` (``trust.json``, ``defaultProjectTrust``).

    ``ask`` is an async callback the TUI supplies (``ask(cwd) -> TrustAnswer``, or a bool, which is
    saved for ``cwd``); ``apply`` records an answer given later (``/trust``). In non-interactive
    modes an undecided project stays untrusted and ``notice`` holds the one line naming
    ``--approve``.
    """

    def __init__(
        self,
        store: Any = None,
        *,
        default_trust: str = "ask",
        approve: bool = False,
        ask: Callable[[str], Awaitable[bool | TrustAnswer]] | None = None,
    ) -> None:
        from pi_app.coding.trust import TrustStore

        self.store = store if store is not None else TrustStore()
        self.default_trust = default_trust if default_trust in ("ask", "always", "never") else "ask"
        self.approve = approve
        self.ask = ask
        self.notice: str | None = None
        self._decided: bool | None = None

    def needs_decision(self, cwd: str) -> bool:
        from pi_app.coding.trust import has_trust_requiring_resources

        if self.approve or self._decided is not None or not has_trust_requiring_resources(cwd):
            return False
        return self.store.decision_for(cwd) is None

    def decide(self, cwd: str, trusted: bool, remember: bool) -> None:
        self._decided = trusted
        if remember:
            self.store.save(cwd, trusted)

    def apply(self, answer: TrustAnswer) -> bool:
        """Take the user's answer for this run and save it where it says; False when
        ``trust.json`` could not be written (unreadable, so left untouched)."""
        self._decided = answer.trusted
        self.approve = False
        return answer.save_for is None or self.store.save(answer.save_for, answer.trusted)

    async def is_trusted(self, cwd: str) -> bool:
        from pi_app.coding.trust import decide_project_trust

        if self._decided is not None and not self.approve:
            return self._decided
        decision = decide_project_trust(
            cwd,
            self.store,
            self.default_trust,  # type: ignore[arg-type]  # one of the three: checked in __init__
            self.approve,
            interactive=self.ask is not None,
        )
        if decision.needs_prompt and self.ask is not None:
            from pi_app.coding.trust import TrustAnswer, untrusted_notice

            answer = await self.ask(cwd)
            if not isinstance(answer, TrustAnswer):
                answer = TrustAnswer(bool(answer), Path(os.path.abspath(cwd)))
            self.apply(answer)
            self.notice = None if answer.trusted else untrusted_notice(cwd)
            return answer.trusted
        self.notice = decision.notice
        return decision.trusted


TrustDecider = Callable[[LoadExtensionsResult], Awaitable[bool]]


class _LazyRuntime:
    """The ``ExtensionRuntime`` of one reload, made only when an extension is actually imported."""

    def __init__(self, model_registry: Any, generation: int) -> None:
        self.model_registry = model_registry
        self.generation = generation
        self.made: Any = None

    def get(self) -> Any:
        if self.made is None:
            from pi_app.coding.extensions.runtime import ExtensionRuntime

            self.made = ExtensionRuntime(
                model_registry=self.model_registry, import_generation=self.generation
            )
        return self.made


class ResourceLoader:
    def __init__(
        self,
        cwd: str | Path,
        *,
        agent_dir: str | Path | None = None,
        settings: Any = None,
        trust: Any = None,
        trust_decider: TrustDecider | None = None,
        model_registry: ModelRegistry | None = None,
        mode: str = "print",
        ui: Any = None,
        additional_extension_paths: Sequence[str] = (),
        additional_skill_paths: Sequence[str] = (),
        additional_prompt_template_paths: Sequence[str] = (),
        additional_theme_paths: Sequence[str] = (),
        extension_factories: Sequence[Callable[..., Any]] = (),
        no_extensions: bool = False,
        no_skills: bool = False,
        no_prompt_templates: bool = False,
        no_themes: bool = False,
        no_context_files: bool = False,
        system_prompt: str | None = None,
        append_system_prompt: str | Sequence[str] | None = None,
        offline: bool = False,
        install_missing_packages: bool = True,
        on_missing_package: Callable[[str], str] | None = None,
        package_progress: Callable[[dict[str, Any]], None] | None = None,
        extensions_override: Callable[[LoadExtensionsResult], LoadExtensionsResult] | None = None,
        skills_override: Callable[[ResourceSet[Skill]], ResourceSet[Skill]] | None = None,
        prompts_override: Callable[[ResourceSet[PromptTemplate]], ResourceSet[PromptTemplate]] | None = None,
        themes_override: Callable[[ResourceSet[ThemeSpec]], ResourceSet[ThemeSpec]] | None = None,
        agents_files_override: Callable[[list[Any]], list[Any]] | None = None,
        system_prompt_override: Callable[[str | None], str | None] | None = None,
        append_system_prompt_override: Callable[[list[str]], list[str]] | None = None,
    ) -> None:
        """``settings``: a ``SettingsManager`` (or None); ``trust``: a ``TrustPolicy``-like object."""
        self.cwd = Path(os.path.abspath(cwd))
        self.agent_dir = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
        self.settings = settings
        if trust is None:
            from pi_app.coding.trust import TrustStore

            trust = ProjectTrustPolicy(
                TrustStore(self.agent_dir / "trust.json"),
                default_trust=str(self._scope_settings("global").get("defaultProjectTrust", "ask")),
            )
        self.trust = trust
        self.trust_decider = trust_decider
        self.mode = mode
        self.ui = ui
        self.model_registry = model_registry
        self.cli_paths = {
            "extensions": list(additional_extension_paths),
            "skills": list(additional_skill_paths),
            "prompts": list(additional_prompt_template_paths),
            "themes": list(additional_theme_paths),
        }
        self.extension_factories = list(extension_factories)
        self.disabled = {
            "extensions": no_extensions,
            "skills": no_skills,
            "prompts": no_prompt_templates,
            "themes": no_themes,
        }
        self.no_context_files = no_context_files
        self.cli_system_prompt = system_prompt
        # several ``--append-system-prompt`` values are kept in order; any of them replaces
        # APPEND_SYSTEM.md (spec 40 §2.12.7)
        self.cli_append_system_prompt: list[str] | None = (
            None
            if append_system_prompt is None
            else [append_system_prompt]
            if isinstance(append_system_prompt, str)
            else list(append_system_prompt) or None
        )
        self.offline = offline
        self.install_missing_packages = install_missing_packages
        self.on_missing_package = on_missing_package
        self.package_progress = package_progress
        self.extensions_override = extensions_override
        self.overrides: dict[str, Callable[[ResourceSet[Any]], ResourceSet[Any]] | None] = {
            "skills": skills_override,
            "prompts": prompts_override,
            "themes": themes_override,
        }
        self.agents_files_override = agents_files_override
        self.system_prompt_override = system_prompt_override
        self.append_system_prompt_override = append_system_prompt_override

        self.project_trusted = False
        self._generation: int | None = None
        self._extensions = LoadExtensionsResult()
        self._sets: dict[str, ResourceSet[Any]] = {k: ResourceSet() for k in ("skills", "prompts", "themes")}
        self._entries: dict[str, list[ResourceEntry]] = {k: [] for k in KINDS}
        self._candidates: dict[str, list[Candidate]] = {k: [] for k in KINDS}
        self._extension_paths: dict[str, list[Candidate]] = {k: [] for k in ("skills", "prompts", "themes")}
        self._metadata: dict[str, PathMetadata] = {}
        self._agents_files: list[Any] = []
        self._context_warnings: list[ResourceDiagnostic] = []
        self._system_prompt: str | None = None
        self._append_system_prompt: list[str] = []
        self._packages: list[ResolvedPackage] = []
        self._package_diagnostics: list[ResourceDiagnostic] = []

    # -- getters (results of the last reload) -----------------------------------------------------

    def get_extensions(self) -> LoadExtensionsResult:
        return self._extensions

    def get_skills(self) -> ResourceSet[Skill]:
        return self._sets["skills"]

    def get_prompts(self) -> ResourceSet[PromptTemplate]:
        return self._sets["prompts"]

    def get_themes(self) -> ResourceSet[ThemeSpec]:
        return self._sets["themes"]

    def get_agents_files(self) -> list[Any]:
        return self._agents_files

    def get_context_file_warnings(self) -> list[ResourceDiagnostic]:
        return self._context_warnings

    def get_system_prompt(self) -> str | None:
        return self._system_prompt

    def get_append_system_prompt(self) -> list[str]:
        return self._append_system_prompt

    def get_path_metadata(self) -> Mapping[str, PathMetadata]:
        return self._metadata

    def get_resource_entries(self, kind: str) -> list[ResourceEntry]:
        """Every discovered resource of a kind, enabled or not (for ``pi config``)."""
        return self._entries[kind]

    def get_packages(self) -> list[ResolvedPackage]:
        return self._packages

    def get_package_diagnostics(self) -> list[ResourceDiagnostic]:
        return self._package_diagnostics

    # -- settings access ----------------------------------------------------------------------------

    def _scope_settings(self, scope: str) -> dict[str, Any]:
        settings = self.settings
        if settings is None:
            return {}
        if isinstance(settings, Mapping):
            value = settings.get(scope, {})
            return dict(value) if isinstance(value, Mapping) else {}
        getter = getattr(
            settings, "get_project_settings" if scope == "project" else "get_global_settings", None
        )
        data = getter() if getter is not None else {}
        return dict(data) if isinstance(data, Mapping) else {}

    def _array(self, scope: str, key: str) -> list[Any]:
        value = self._scope_settings(scope).get(key)
        return list(value) if isinstance(value, list) else []

    # -- reload ----------------------------------------------------------------------------------------

    async def reload(self) -> None:
        """Rediscover everything; extensions are imported again under a new module generation."""
        previous = self._generation
        self._generation = next_generation()
        if previous is not None:
            purge_generation(previous)
        self._metadata = {}
        self._package_diagnostics = []

        # packages: global ones now (phase A), project ones after the trust decision
        self._packages = self._resolve_packages(include_project=False)

        runtime = _LazyRuntime(self.model_registry, self._generation)
        phase_a, diagnostics = self._gather("extensions", include_project=False)
        result = await self._load_extension_candidates(phase_a, runtime)
        self.project_trusted = await self._decide_trust(result)
        ordered_candidates = phase_a
        if self.project_trusted:
            self._packages = self._resolve_packages(include_project=True)
            ordered_candidates, diagnostics = self._gather("extensions", include_project=True)
            known = {str(c.path) for c in phase_a}
            more = await self._load_extension_candidates(
                [c for c in ordered_candidates if str(c.path) not in known], runtime
            )
            result.extensions.extend(more.extensions)
            result.errors.extend(more.errors)
        self._entries["extensions"] = [
            ResourceEntry("extensions", str(c.path), c.enabled, c.metadata) for c in ordered_candidates
        ]
        order = {str(c.path): i for i, c in enumerate(ordered_candidates)}
        result.extensions.sort(key=lambda e: order.get(e.path, len(order)))
        if self.extension_factories:
            from pi_app.coding.extensions.loader import load_extensions

            inline = await load_extensions(
                [],
                str(self.cwd),
                runtime=runtime.get(),
                generation=self._generation,
                factories=self.extension_factories,
            )
            result.extensions.extend(inline.extensions)
            result.errors.extend(inline.errors)
        result.diagnostics = [*self._package_diagnostics, *diagnostics]
        result.runtime = runtime.made
        override = self.extensions_override
        self._extensions = override(result) if override is not None else result

        for kind in ("skills", "prompts", "themes"):
            self._load_kind(kind)
        self._load_text_resources()

    async def _load_extension_candidates(
        self, candidates: list[Candidate], runtime: _LazyRuntime
    ) -> LoadExtensionsResult:
        sources = []
        for candidate in candidates:
            if not candidate.enabled:
                continue
            text = str(candidate.path)
            self._metadata[text] = candidate.metadata
            sources.append(ExtensionSource(text, text, candidate.metadata))
        if not sources:  # nothing to import: the extension machinery stays unloaded (start-up cost)
            return LoadExtensionsResult()
        from pi_app.coding.extensions.loader import load_extensions

        return await load_extensions(
            sources, str(self.cwd), runtime=runtime.get(), generation=self._generation
        )

    async def _decide_trust(self, phase_a: LoadExtensionsResult) -> bool:
        """R-RES-30 after ``--approve`` and saved decisions (the policy's job): ``project_trust``
        to the phase-A extensions, then the policy's default (``defaultProjectTrust``)."""
        cwd = str(self.cwd)
        try:
            if self.trust_decider is not None:
                return bool(await self.trust_decider(phase_a))
            if self.trust.needs_decision(cwd) and phase_a.extensions:
                from pi_app.coding.extensions.runner import ask_project_trust

                decision, remember = await ask_project_trust(
                    phase_a.extensions, cwd, mode=self.mode, ui=self.ui, on_error=self._trust_handler_error
                )
                if decision is not None:
                    decide = getattr(self.trust, "decide", None)
                    if decide is not None:
                        outcome = decide(cwd, decision, remember)
                        if inspect.isawaitable(outcome):
                            await outcome
                    return decision
            trusted = self.trust.is_trusted(cwd)
            if inspect.isawaitable(trusted):
                trusted = await trusted
            return bool(trusted)
        except Exception as exc:  # a broken trust source must not break startup: stay untrusted
            self._package_diagnostics.append(error(f"Project trust decision failed: {exc}"))
            return False

    def _trust_handler_error(self, path: str, exc: BaseException | str) -> None:
        self._package_diagnostics.append(error(f"project_trust handler failed: {exc}", path))

    def _resolve_packages(self, include_project: bool) -> list[ResolvedPackage]:
        cli_packages = [p for p in self.cli_paths["extensions"] if _looks_like_package_source(p)]
        project_packages = self._array("project", "packages") if include_project else []
        global_packages = self._array("global", "packages")
        if not (cli_packages or project_packages or global_packages):
            self._package_diagnostics = []
            return []
        from pi_app.coding.resources.packages import resolve_packages

        try:
            resolved = resolve_packages(
                project_packages,
                global_packages,
                cwd=self.cwd,
                agent_dir=self.agent_dir,
                install_missing=self.install_missing_packages,
                offline=self.offline,
                on_missing=self.on_missing_package,
                progress=self.package_progress,
                cli_entries=cli_packages,
            )
        except Exception as exc:
            self._package_diagnostics.append(error(str(exc)))
            return []
        self._package_diagnostics = [d for p in resolved for d in p.diagnostics]
        return resolved

    # -- gathering candidates --------------------------------------------------------------------

    def _gather(self, kind: str, include_project: bool) -> tuple[list[Candidate], list[ResourceDiagnostic]]:
        """The ordered, deduplicated candidate list of one kind (R-RES-01/02)."""
        out: list[Candidate] = []
        diagnostics: list[ResourceDiagnostic] = []
        disabled = self.disabled[kind]

        # 1. CLI
        for raw in self.cli_paths[kind]:
            if kind == "extensions" and _looks_like_package_source(raw):
                continue  # resolved as a temporary package below
            path = normalise_path(raw, self.cwd)
            meta = PathMetadata("cli", "temporary", "top-level", str(path.parent))
            out.extend(self._explicit(kind, path, SOURCE_RANKS["cli"], meta, diagnostics))
        for package in self._packages:
            if package.entry.scope == "temporary":
                out.extend(self._package_candidates(kind, package, SOURCE_RANKS["cli"], diagnostics))
        if not disabled:
            # 2. packages
            for package in self._packages:
                if package.entry.scope == "project" and include_project:
                    out.extend(
                        self._package_candidates(kind, package, SOURCE_RANKS["project_package"], diagnostics)
                    )
            for package in self._packages:
                if package.entry.scope == "user":
                    out.extend(
                        self._package_candidates(kind, package, SOURCE_RANKS["global_package"], diagnostics)
                    )
            # 3. settings arrays
            scopes = (("project", paths.project_config_dir(self.cwd)),) if include_project else ()
            for scope, base in (*scopes, ("global", self.agent_dir)):
                rank = SOURCE_RANKS[f"{scope}_settings"]
                meta_scope: Scope = "project" if scope == "project" else "user"
                for raw in plain_entries(self._array(scope, kind)):
                    path = normalise_path(str(raw), base)
                    meta = PathMetadata("local", meta_scope, "top-level", str(base))
                    out.extend(self._explicit(kind, path, rank, meta, diagnostics))
            # 4. project auto, 5. global auto
            if include_project:
                out.extend(self._auto(kind, "project", diagnostics))
            out.extend(self._auto(kind, "global", diagnostics))
        # 6. extension-provided
        if kind in self._extension_paths:
            out.extend(self._extension_paths[kind])

        seen: set[str] = set()
        unique: list[Candidate] = []
        for candidate in sorted(out, key=lambda c: c.rank):
            key = os.path.normpath(str(candidate.path))
            if key in seen:
                continue
            seen.add(key)
            unique.append(candidate)
        self._candidates[kind] = unique
        return unique, diagnostics

    def _units(
        self, kind: str, path: Path, *, explicit: bool, diagnostics: list[ResourceDiagnostic]
    ) -> list[Path]:
        if kind == "extensions":
            if explicit:
                units, problems = resolve_explicit_extension(path)
            else:
                units, problems = discover_extensions_in_dir(path)
            diagnostics.extend(problems)
            return units
        if path.is_file():
            suffix = ".json" if kind == "themes" else ".md"
            if path.suffix != suffix:
                text = (
                    "theme path is not a json file"
                    if kind == "themes"
                    else "skill path is not a markdown file"
                )
                if kind == "prompts":
                    return []
                diagnostics.append(warning(text, str(path)))
                return []
            return [path]
        if kind == "skills":
            return discover_skill_files(path)
        if kind == "prompts":
            return discover_template_files(path, recursive=explicit)
        from pi_app.coding.resources.themes import discover_theme_files

        return discover_theme_files(path, recursive=explicit)

    def _explicit(
        self, kind: str, path: Path, rank: int, meta: PathMetadata, diagnostics: list[ResourceDiagnostic]
    ) -> list[Candidate]:
        if not path.exists():
            diagnostics.append(error(MISSING_TEXT[kind], str(path)))
            return []
        return [
            Candidate(u, rank, meta) for u in self._units(kind, path, explicit=True, diagnostics=diagnostics)
        ]

    def _auto_dirs(self, kind: str, scope: str) -> list[Path]:
        if scope == "project":
            dirs = [paths.project_config_dir(self.cwd) / kind]
            if kind == "skills":
                dirs.extend(agents_skill_dirs(self.cwd))
            return dirs
        dirs = [self.agent_dir / kind]
        if kind == "skills":
            home_agents = Path.home() / ".agents" / "skills"
            if home_agents not in agents_skill_dirs(self.cwd):
                dirs.append(home_agents)
        return dirs

    def _auto(self, kind: str, scope: str, diagnostics: list[ResourceDiagnostic]) -> list[Candidate]:
        settings_scope = "project" if scope == "project" else "global"
        toggles = toggles_only(self._array(settings_scope, kind)) or None
        base = paths.project_config_dir(self.cwd) if scope == "project" else self.agent_dir
        rank = SOURCE_RANKS[f"{scope}_auto"]
        meta = PathMetadata("local", "project" if scope == "project" else "user", "top-level")
        out: list[Candidate] = []
        for directory in self._auto_dirs(kind, scope):
            if not directory.is_dir():
                continue
            for unit in self._units(kind, directory, explicit=False, diagnostics=diagnostics):
                enabled = is_enabled(unit, base, toggles) and is_enabled(unit, directory, toggles)
                out.append(Candidate(unit, rank, replace(meta, base_dir=str(directory)), enabled))
        return out

    def _package_candidates(
        self, kind: str, package: ResolvedPackage, rank: int, diagnostics: list[ResourceDiagnostic]
    ) -> list[Candidate]:
        if package.root is None:
            return []
        from pi_app.coding.resources.packages import package_resources

        resources, problems = package_resources(package.root, kind, package.entry.filters)
        diagnostics.extend(problems)
        meta = PathMetadata(package.entry.source.raw, package.entry.scope, "package", str(package.root))
        return [Candidate(r.path, rank, meta, r.enabled) for r in resources]

    # -- loading Markdown/JSON kinds -----------------------------------------------------------------

    def _load_kind(self, kind: str) -> None:
        candidates, diagnostics = self._gather(kind, include_project=self.project_trusted)
        self._entries[kind] = [ResourceEntry(kind, str(c.path), c.enabled, c.metadata) for c in candidates]
        items: list[Any] = []
        winners: dict[str, Any] = {}
        real_seen: set[str] = set()
        if kind == "themes" and candidates:  # the built-in names only matter against theme files
            from pi_app.coding.resources.themes import BUILTIN_THEME_NAMES

            for name in BUILTIN_THEME_NAMES:
                winners[name] = f"builtin:{name}"
        for candidate in candidates:
            if not candidate.enabled:
                continue
            real = os.path.realpath(candidate.path)
            if real in real_seen:
                continue  # the same file reached twice (e.g. symlinked): silently once (R-SKL-07)
            real_seen.add(real)
            item, problems = self._load_item(kind, candidate)
            diagnostics.extend(problems)
            if item is None:
                continue
            path = str(candidate.path)
            if item.name in winners:
                winner = winners[item.name]
                winner_path = winner if isinstance(winner, str) else getattr(winner, "file_path", "")
                label = (
                    f'name "/{item.name}" collision' if kind == "prompts" else f'name "{item.name}" collision'
                )
                diagnostics.append(
                    collision(
                        RESOURCE_TYPE[kind],
                        item.name,
                        label,
                        str(winner_path),
                        path,
                        None if isinstance(winner, str) else winner.source_info.source,
                        candidate.metadata.source,
                    )
                )
                continue
            winners[item.name] = item
            self._metadata[path] = candidate.metadata
            items.append(item)
        result: ResourceSet[Any] = ResourceSet(items, diagnostics)
        override = self.overrides[kind]
        self._sets[kind] = override(result) if override is not None else result

    def _load_item(self, kind: str, candidate: Candidate) -> tuple[Any, list[ResourceDiagnostic]]:
        if kind == "skills":
            return load_skill_file(candidate.path, candidate.metadata)
        if kind == "prompts":
            return load_prompt_template(candidate.path, candidate.metadata)
        from pi_app.coding.resources.themes import ThemeError, load_theme_file

        try:
            return load_theme_file(candidate.path, candidate.metadata), []
        except ThemeError as exc:
            return None, [warning(str(exc), str(candidate.path))]

    def extend_resources(
        self, paths_by_kind: ResourceExtensionPaths | Mapping[str, Sequence[str]], extension_path: str = ""
    ) -> None:
        """Add paths from ``resources_discover`` at the lowest precedence and reload those kinds."""
        if isinstance(paths_by_kind, ResourceExtensionPaths):
            mapping = {
                "skill_paths": paths_by_kind.skill_paths,
                "prompt_paths": paths_by_kind.prompt_paths,
                "theme_paths": paths_by_kind.theme_paths,
            }
        else:
            mapping = {kind: list(paths) for kind, paths in paths_by_kind.items()}
        stem = _extension_stem(extension_path)
        base = (
            str(Path(extension_path).parent)
            if extension_path and not extension_path.startswith("<")
            else str(self.cwd)
        )
        meta = PathMetadata(f"extension:{stem}", "temporary", "top-level", base)
        for key, kind in (("skill_paths", "skills"), ("prompt_paths", "prompts"), ("theme_paths", "themes")):
            entries = mapping.get(key) or []
            if not entries:
                continue
            known = {os.path.normpath(str(c.path)) for c in self._extension_paths[kind]}
            diagnostics: list[ResourceDiagnostic] = []
            for raw in entries:
                path = normalise_path(str(raw), base)
                for candidate in self._explicit(kind, path, SOURCE_RANKS["extension"], meta, diagnostics):
                    if os.path.normpath(str(candidate.path)) not in known:
                        self._extension_paths[kind].append(candidate)
            self._load_kind(kind)
            self._sets[kind].diagnostics.extend(diagnostics)

    # -- context files and system prompt files ------------------------------------------------------

    def _load_text_resources(self) -> None:
        warnings: list[ResourceDiagnostic] = []

        def warn(message: str) -> None:
            warnings.append(warning(message))

        from pi_app.coding.resources import context_files

        files: list[Any] = []
        if not self.no_context_files:
            files = list(context_files.load_context_files(self.cwd, self.agent_dir, warn))
        system, append = context_files.load_prompt_files(self.cwd, self.agent_dir, self.project_trusted, warn)
        appended = [append] if append else []
        if self.cli_system_prompt is not None:
            system = context_files.resolve_cli_text(self.cli_system_prompt, self.cwd, warn)
        if self.cli_append_system_prompt is not None:
            appended = [
                context_files.resolve_cli_text(a, self.cwd, warn) for a in self.cli_append_system_prompt
            ]
        appended = [a for a in appended if a]
        self._agents_files = self.agents_files_override(files) if self.agents_files_override else files
        self._context_warnings = warnings
        self._system_prompt = self.system_prompt_override(system) if self.system_prompt_override else system
        self._append_system_prompt = (
            self.append_system_prompt_override(appended) if self.append_system_prompt_override else appended
        )

    def discover_entries(self) -> dict[str, list[ResourceEntry]]:
        """Every resource of every kind with its enabled state, without importing or installing
        anything (what ``pi config`` shows). Project resources are listed whatever the trust state."""
        saved = self.install_missing_packages
        self.install_missing_packages = False
        try:
            self._packages = self._resolve_packages(include_project=True)
        finally:
            self.install_missing_packages = saved
        out: dict[str, list[ResourceEntry]] = {}
        for kind in KINDS:
            candidates, _ = self._gather(kind, include_project=True)
            out[kind] = [ResourceEntry(kind, str(c.path), c.enabled, c.metadata) for c in candidates]
        return out

    # -- summary for the startup listing (R-RES-13) ---------------------------------------------------

    def extension_issues(self, conflicts: Sequence[ExtensionLoadError] = ()) -> list[str]:
        """One line per load error, extension diagnostic and conflict ("Extension issues")."""
        lines = [f"{e.path}: {e.error}" for e in self._extensions.errors]
        lines.extend(d.one_line() for d in self._extensions.diagnostics)
        lines.extend(f"{c.path}: {c.error}" for c in conflicts)
        return lines


def _looks_like_package_source(raw: str) -> bool:
    text = raw.strip()
    return text.startswith(("npm:", "git:", "https://", "http://", "ssh://", "git://"))


def _extension_stem(extension_path: str) -> str:
    if extension_path.startswith("<inline:"):
        return extension_path.strip("<>")
    if not extension_path:
        return "unknown"
    path = Path(extension_path)
    return path.parent.name if path.name == "__init__.py" else path.stem
