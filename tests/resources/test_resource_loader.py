"""The resource loader: precedence, collisions, trust, packages, TS coexistence (spec 40 §2.12, §6)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_app.coding.extensions.types import ProjectTrustResult
from pi_app.coding.resources.loader import ResourceLoader, TrustPolicy

from .conftest import Dirs


def loader(dirs: Dirs, settings: dict | None = None, **kw) -> ResourceLoader:
    kw.setdefault("trust", TrustPolicy(trusted=True))  # as with --approve
    return ResourceLoader(dirs.project, agent_dir=dirs.agent, settings=settings or {}, **kw)


async def test_project_skill_beats_global_and_cli_beats_both(dirs: Dirs) -> None:
    """Scenario 12."""
    project_file = dirs.skill(dirs.project / ".pi" / "skills", "deploy", "project")
    global_file = dirs.skill(dirs.agent / "skills", "deploy", "global")
    res = loader(dirs)
    await res.reload()
    skills = res.get_skills()
    assert [(s.name, s.description) for s in skills.items] == [("deploy", "project")]
    [diag] = [d for d in skills.diagnostics if d.type == "collision"]
    assert diag.message == 'name "deploy" collision'
    assert diag.collision is not None
    assert (diag.collision.winner_path, diag.collision.loser_path) == (str(project_file), str(global_file))

    cli_file = dirs.skill(dirs.root / "elsewhere", "deploy", "cli")
    res = loader(dirs, additional_skill_paths=[str(cli_file.parent)])
    await res.reload()
    assert [s.description for s in res.get_skills().items] == ["cli"]
    assert res.get_path_metadata()[str(cli_file)].scope == "temporary"
    assert len([d for d in res.get_skills().diagnostics if d.type == "collision"]) == 2


async def test_symlinked_skill_loads_once_silently(dirs: Dirs) -> None:
    """Scenario 13."""
    real = dirs.skill(dirs.root / "shared", "tdd").parent
    for base in (dirs.project / ".pi" / "skills", dirs.agent / "skills"):
        base.mkdir(parents=True, exist_ok=True)
        os.symlink(real, base / "tdd")
    res = loader(dirs)
    await res.reload()
    assert [s.name for s in res.get_skills().items] == ["tdd"]
    assert res.get_skills().diagnostics == []


async def test_precedence_order_is_one_rule_for_every_rank(dirs: Dirs) -> None:
    """CLI > project package > global package > project settings > global settings > project auto > global auto."""
    places = {
        "cli": dirs.root / "cli",
        "project_package": dirs.root / "ppkg" / "skills",
        "global_package": dirs.root / "gpkg" / "skills",
        "project_settings": dirs.root / "psettings",
        "global_settings": dirs.root / "gsettings",
        "project_auto": dirs.project / ".pi" / "skills",
        "global_auto": dirs.agent / "skills",
    }
    for label, base in places.items():
        dirs.skill(base, "same", label)
    settings = {
        "project": {"packages": [str(dirs.root / "ppkg")], "skills": [str(places["project_settings"])]},
        "global": {"packages": [str(dirs.root / "gpkg")], "skills": [str(places["global_settings"])]},
    }
    order = list(places)
    for i, label in enumerate(order):
        res = loader(dirs, settings, additional_skill_paths=[str(places["cli"])] if label == "cli" else [])
        await res.reload()
        assert [s.description for s in res.get_skills().items] == [label]
        assert len([d for d in res.get_skills().diagnostics if d.type == "collision"]) == len(order) - i - 1
        # remove the winner so the next rank wins
        (places[label] / "same" / "SKILL.md").unlink()


async def test_agents_skills_in_ancestors_up_to_the_git_root(dirs: Dirs) -> None:
    cwd = dirs.project / "pkg" / "src"
    cwd.mkdir(parents=True)
    dirs.skill(dirs.project / ".agents" / "skills", "at-root")
    dirs.skill(dirs.project / "pkg" / ".agents" / "skills", "in-pkg")
    dirs.skill(dirs.root / ".agents" / "skills", "above-git-root")
    dirs.skill(dirs.agent.parent.parent / ".agents" / "skills", "home-wide")
    res = ResourceLoader(cwd, agent_dir=dirs.agent, settings={}, trust=TrustPolicy(trusted=True))
    await res.reload()
    assert sorted(s.name for s in res.get_skills().items) == ["at-root", "home-wide", "in-pkg"]


async def test_disabled_kind_keeps_cli_paths_and_reports_missing_paths(dirs: Dirs) -> None:
    dirs.skill(dirs.agent / "skills", "global-one")
    cli = dirs.skill(dirs.root / "cli", "cli-one")
    res = loader(
        dirs,
        {"global": {"skills": ["./missing-dir"], "prompts": ["/nope/p.md"]}},
        no_skills=True,
        additional_skill_paths=[str(cli.parent), str(dirs.root / "gone")],
    )
    await res.reload()
    assert [s.name for s in res.get_skills().items] == ["cli-one"]
    assert [(d.type, d.message, d.path) for d in res.get_skills().diagnostics] == [
        ("error", "Skill path does not exist", str(dirs.root / "gone"))
    ]
    assert [(d.message, d.path) for d in res.get_prompts().diagnostics] == [
        ("Prompt template path does not exist", "/nope/p.md")
    ]


async def test_settings_toggles_disable_auto_discovered_resources(dirs: Dirs) -> None:
    dirs.skill(dirs.agent / "skills", "keep")
    dirs.skill(dirs.agent / "skills", "drop")
    dirs.write(dirs.agent / "prompts" / "a.md", "A")
    dirs.write(dirs.agent / "prompts" / "b.md", "B")
    settings = {"global": {"skills": ["-skills/drop/SKILL.md"], "prompts": ["!b.md"]}}
    res = loader(dirs, settings)
    await res.reload()
    assert [s.name for s in res.get_skills().items] == ["keep"]
    assert [t.name for t in res.get_prompts().items] == ["a"]
    states = {Path(e.path).parent.name: e.enabled for e in res.get_resource_entries("skills")}
    assert states == {"keep": True, "drop": False}


async def test_package_filters(dirs: Dirs) -> None:
    """Scenario 32."""
    pkg = dirs.project / ".pi" / "pkg"
    dirs.skill(pkg / "skills", "a")
    dirs.skill(pkg / "skills", "b")
    dirs.write(pkg / "prompts" / "x.md", "X")
    settings = {"project": {"packages": [{"source": "./pkg", "skills": ["!b"], "prompts": []}]}}
    res = loader(dirs, settings)
    await res.reload()
    assert [s.name for s in res.get_skills().items] == ["a"]
    entries = {Path(e.path).parent.name: e.enabled for e in res.get_resource_entries("skills")}
    assert entries == {"a": True, "b": False}
    assert res.get_prompts().items == []
    meta = res.get_path_metadata()[str(pkg / "skills" / "a" / "SKILL.md")]
    assert (meta.source, meta.scope, meta.origin) == ("./pkg", "project", "package")


async def test_package_manifest_in_pyproject(dirs: Dirs) -> None:
    pkg = dirs.root / "pypkg"
    dirs.write(
        pkg / "pyproject.toml",
        '[project]\nname = "pi-demo"\n\n[tool.pi]\nextensions = ["src/ext.py", "legacy.ts"]\n'
        'skills = ["docs/skills"]\nprompts = ["prompts/*.md", "!prompts/draft.md"]\n',
    )
    dirs.write(
        pkg / "src" / "ext.py", "def setup(pi):\n    pi.register_command('demo', handler=lambda a, c: None)\n"
    )
    dirs.write(pkg / "legacy.ts", "export default () => {}")
    dirs.skill(pkg / "docs" / "skills", "doc-skill")
    dirs.write(pkg / "prompts" / "final.md", "Final")
    dirs.write(pkg / "prompts" / "draft.md", "Draft")
    res = loader(dirs, {"global": {"packages": [str(pkg)]}})
    await res.reload()
    loaded = res.get_extensions()
    assert [Path(e.path).name for e in loaded.extensions] == ["ext.py"]
    assert "demo" in loaded.extensions[0].commands
    assert any("TypeScript/JavaScript" in d.message for d in loaded.diagnostics)
    assert [s.name for s in res.get_skills().items] == ["doc-skill"]
    assert [t.name for t in res.get_prompts().items] == ["final"]


async def test_typescript_extensions_coexist(dirs: Dirs) -> None:
    """Scenario 33."""
    dirs.write(dirs.agent / "extensions" / "legacy.ts", "export default function () {}")
    dirs.write(dirs.agent / "extensions" / "tsdir" / "index.ts", "export default function () {}")
    dirs.write(dirs.agent / "extensions" / "new.py", "def setup(pi):\n    pass\n")
    dirs.write(dirs.agent / "extensions" / "_helper.py", "raise RuntimeError('never imported')\n")
    res = loader(dirs)
    await res.reload()
    loaded = res.get_extensions()
    assert [Path(e.path).name for e in loaded.extensions] == ["new.py"]
    assert loaded.errors == [] and loaded.diagnostics == []

    res = loader(dirs, {"global": {"extensions": ["./extensions/legacy.ts"]}})
    await res.reload()
    assert [(d.type, d.message) for d in res.get_extensions().diagnostics] == [
        ("warning", "TypeScript/JavaScript extensions are not supported by this version of pi")
    ]


async def test_extension_directory_forms(dirs: Dirs) -> None:
    ext = dirs.agent / "extensions"
    dirs.write(ext / "pkgdir" / "__init__.py", "from .impl import setup\n")
    dirs.write(
        ext / "pkgdir" / "impl.py", "def setup(pi):\n    pi.register_command('from-package', handler=print)\n"
    )
    dirs.write(ext / "manifested" / "pyproject.toml", '[tool.pi]\nextensions = ["a.py", "missing.py"]\n')
    dirs.write(
        ext / "manifested" / "a.py",
        "def setup(pi):\n    pi.register_command('from-manifest', handler=print)\n",
    )
    dirs.write(ext / "plain" / "notes.txt", "ignored: no manifest, no __init__.py")
    dirs.write(ext / "ignored.py", "def setup(pi):\n    pi.register_command('ignored', handler=print)\n")
    dirs.write(ext / ".gitignore", "ignored.py\n")
    res = loader(dirs)
    await res.reload()
    commands = sorted(c for e in res.get_extensions().extensions for c in e.commands)
    assert commands == ["from-manifest", "from-package"]
    assert res.get_extensions().errors == []


async def test_missing_extension_paths_are_reported_once(dirs: Dirs) -> None:
    res = loader(
        dirs, {"global": {"extensions": ["/nowhere/a.py"]}}, additional_extension_paths=["/nowhere/b.py"]
    )
    await res.reload()
    messages = [(d.message, d.path) for d in res.get_extensions().diagnostics]
    assert messages == [
        ("Extension path does not exist", "/nowhere/b.py"),
        ("Extension path does not exist", "/nowhere/a.py"),
    ]


async def test_untrusted_project_does_not_import_project_code(dirs: Dirs) -> None:
    """Scenario 17 (loader part): evil.py is never imported unless the project is trusted."""
    marker = dirs.root / "marker"
    dirs.write(
        dirs.project / ".pi" / "extensions" / "evil.py",
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\ndef setup(pi):\n    pass\n",
    )
    dirs.skill(dirs.project / ".pi" / "skills", "project-skill")
    dirs.skill(dirs.project / ".agents" / "skills", "agents-skill")
    dirs.write(dirs.project / ".pi" / "SYSTEM.md", "project system prompt")
    res = loader(dirs, trust=TrustPolicy(trusted=False, needs=True))
    await res.reload()
    assert not marker.exists()
    assert res.project_trusted is False
    assert res.get_extensions().extensions == []
    assert res.get_skills().items == []

    res = loader(dirs, trust=TrustPolicy(trusted=True))  # e.g. --approve
    await res.reload()
    assert marker.exists()
    assert res.project_trusted is True
    assert sorted(s.name for s in res.get_skills().items) == ["agents-skill", "project-skill"]


async def test_project_trust_handler_of_a_global_extension_decides(dirs: Dirs) -> None:
    """Scenario 18: the global extension says no, so defaultProjectTrust "always" is never reached."""
    dirs.write(
        dirs.agent / "extensions" / "gate.py",
        "def setup(pi):\n"
        "    @pi.on('project_trust')\n"
        "    def decide(event, ctx):\n"
        "        return {'trusted': 'no', 'remember': True}\n",
    )
    dirs.skill(dirs.project / ".pi" / "skills", "project-skill")

    class Policy(TrustPolicy):
        decisions: list[tuple[bool, bool]] = []

        def decide(self, cwd: str, trusted: bool, remember: bool) -> None:
            self.decisions.append((trusted, remember))

    policy = Policy(trusted=True, needs=True)  # "always" would trust
    res = loader(dirs, trust=policy)
    await res.reload()
    assert res.project_trusted is False
    assert res.get_skills().items == []
    assert policy.decisions == [(False, True)]


async def test_undecided_falls_through_to_the_default(dirs: Dirs) -> None:
    dirs.write(
        dirs.agent / "extensions" / "shrug.py",
        "from pi_app.coding.extensions.types import ProjectTrustResult\n"
        "def setup(pi):\n"
        "    pi.on('project_trust', lambda e, c: ProjectTrustResult('undecided'))\n",
    )
    res = loader(dirs, trust=TrustPolicy(trusted=True, needs=True))
    await res.reload()
    assert res.project_trusted is True
    assert ProjectTrustResult("yes").remember is False


async def test_extension_order_follows_precedence(dirs: Dirs) -> None:
    cli = dirs.write(dirs.root / "cli_ext.py", "def setup(pi):\n    pass\n")
    dirs.write(dirs.agent / "extensions" / "global_ext.py", "def setup(pi):\n    pass\n")
    dirs.write(dirs.project / ".pi" / "extensions" / "project_ext.py", "def setup(pi):\n    pass\n")
    res = loader(dirs, additional_extension_paths=[str(cli)])
    await res.reload()
    assert [Path(e.path).stem for e in res.get_extensions().extensions] == [
        "cli_ext",
        "project_ext",
        "global_ext",
    ]


async def test_themes_cannot_replace_builtins(dirs: Dirs) -> None:
    from tests.resources.test_themes import theme_data

    dirs.write(dirs.agent / "themes" / "dark.json", json.dumps(theme_data("dark")))
    dirs.write(dirs.agent / "themes" / "mine.json", json.dumps(theme_data("mine")))
    res = loader(dirs)
    await res.reload()
    assert [t.name for t in res.get_themes().items] == ["mine"]
    [diag] = res.get_themes().diagnostics
    assert diag.type == "collision" and diag.collision is not None
    assert diag.collision.winner_path == "builtin:dark"


async def test_extend_resources_has_the_lowest_precedence(dirs: Dirs) -> None:
    dirs.skill(dirs.agent / "skills", "dup", "global")
    extra = dirs.root / "ext-skills"
    dirs.skill(extra, "dup", "from extension")
    dirs.skill(extra, "only-ext", "from extension")
    dirs.write(dirs.root / "ext-prompts" / "hello.md", "Hello $1")
    res = loader(dirs)
    await res.reload()
    res.extend_resources(
        {"skill_paths": [str(extra)], "prompt_paths": ["ext-prompts"]}, str(dirs.root / "my_ext.py")
    )
    by_name = {s.name: s for s in res.get_skills().items}
    assert by_name["dup"].description == "global"
    assert by_name["only-ext"].source_info.source == "extension:my_ext"
    assert by_name["only-ext"].source_info.scope == "temporary"
    assert [t.name for t in res.get_prompts().items] == ["hello"]


async def test_overrides_hooks(dirs: Dirs) -> None:
    dirs.skill(dirs.agent / "skills", "a")
    res = loader(dirs, skills_override=lambda result: type(result)([], result.diagnostics))
    await res.reload()
    assert res.get_skills().items == []


async def test_context_files_order(dirs: Dirs) -> None:
    """Scenario 34 (context_files.py is the session engineer's; the loader exposes it)."""
    pytest.importorskip("pi_app.coding.resources.context_files")
    dirs.write(dirs.agent / "AGENTS.md", "global")
    (dirs.project / "AGENTS.md").mkdir()
    dirs.write(dirs.project / "CLAUDE.md", "root claude")
    src = dirs.project / "src"
    dirs.write(src / "AGENTS.md", "src agents")
    res = ResourceLoader(src, agent_dir=dirs.agent, settings={})
    await res.reload()
    paths = [f.path for f in res.get_agents_files()]
    assert paths[0] == str(dirs.agent / "AGENTS.md")
    assert paths[-2:] == [str(dirs.project / "CLAUDE.md"), str(src / "AGENTS.md")]
    assert res.get_context_file_warnings() == []


async def test_real_trust_policy_with_default_never_and_approve(dirs: Dirs) -> None:
    """Scenario 17 with trust.json and defaultProjectTrust: "never" (the real policy)."""
    from pi_app.coding.resources.loader import ProjectTrustPolicy
    from pi_app.coding.trust import TrustStore

    marker = dirs.root / "marker"
    dirs.write(
        dirs.project / ".pi" / "extensions" / "evil.py",
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\ndef setup(pi):\n    pass\n",
    )
    settings = {"global": {"defaultProjectTrust": "never"}}
    res = ResourceLoader(dirs.project, agent_dir=dirs.agent, settings=settings)
    await res.reload()
    assert not marker.exists() and res.project_trusted is False

    store = TrustStore(dirs.agent / "trust.json")
    res = ResourceLoader(
        dirs.project, agent_dir=dirs.agent, settings=settings, trust=ProjectTrustPolicy(store, approve=True)
    )
    await res.reload()
    assert marker.exists() and res.project_trusted is True
    assert not (dirs.agent / "trust.json").exists()  # --approve is never saved


async def test_real_trust_policy_asks_and_saves(dirs: Dirs) -> None:
    from pi_app.coding.resources.loader import ProjectTrustPolicy
    from pi_app.coding.trust import TrustStore

    dirs.skill(dirs.project / ".pi" / "skills", "proj")
    asked: list[str] = []

    async def ask(cwd: str) -> bool:
        asked.append(cwd)
        return True

    store = TrustStore(dirs.agent / "trust.json")
    res = ResourceLoader(
        dirs.project, agent_dir=dirs.agent, settings={}, trust=ProjectTrustPolicy(store, ask=ask)
    )
    await res.reload()
    assert asked == [str(dirs.project)] and res.project_trusted
    assert store.decision_for(dirs.project) is True
    res = ResourceLoader(
        dirs.project, agent_dir=dirs.agent, settings={}, trust=ProjectTrustPolicy(store, ask=ask)
    )
    await res.reload()
    assert len(asked) == 1  # saved decision, no second question

    quiet = ProjectTrustPolicy(TrustStore(dirs.root / "other.json"))
    res = ResourceLoader(dirs.project, agent_dir=dirs.agent, settings={}, trust=quiet)
    await res.reload()
    assert res.project_trusted is False
    assert quiet.notice is not None and "--approve" in quiet.notice
