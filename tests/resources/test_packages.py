"""Pi packages: sources, identity, install/remove/list/update/config (spec 40 §2.13, R-PKG)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from pi_app.coding.resources.packages import parse_source
from pi_app.modes.package_commands import run_package_command

from .conftest import Dirs


def test_source_parsing_and_identity(tmp_path: Path) -> None:
    https = parse_source("https://github.com/User/repo.git@v1.2", tmp_path)
    ssh = parse_source("git:git@github.com:User/repo", tmp_path)
    short = parse_source("git:github.com/User/repo@main", tmp_path)
    assert https.kind == ssh.kind == short.kind == "git"
    assert https.identity == ssh.identity == short.identity == "github.com/User/repo"
    assert (https.ref, ssh.ref, short.ref) == ("v1.2", None, "main")
    assert short.url == "https://github.com/User/repo"
    assert ssh.url == "git@github.com:User/repo"
    npm = parse_source("npm:@scope/pkg@1.0.0", tmp_path)
    assert (npm.kind, npm.identity, npm.ref) == ("npm", "npm:@scope/pkg", "1.0.0")
    local = parse_source("./pkgs/a", tmp_path)
    assert (local.kind, local.path) == ("local", str(tmp_path / "pkgs" / "a"))
    assert parse_source("github.com/u/r", tmp_path).kind == "local"  # shorthand needs git:


def run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_package_command(argv, cwd=cwd, stdout=out, stderr=err, stdin=io.StringIO())
    return code, out.getvalue(), err.getvalue()


def settings(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def test_install_remove_local_package(dirs: Dirs) -> None:
    pkg = dirs.agent / "packages" / "mine"
    dirs.skill(pkg / "skills", "from-pkg")
    code, out, _ = run(["install", str(pkg)], dirs.project)
    assert code == 0 and "Installed" in out
    assert settings(dirs.agent / "settings.json")["packages"] == ["./packages/mine"]
    code, out, _ = run(["install", str(pkg)], dirs.project)  # same identity: not duplicated
    assert code == 0 and len(settings(dirs.agent / "settings.json")["packages"]) == 1
    code, out, _ = run(["list"], dirs.project)
    assert "Global packages:" in out and str(pkg) in out
    code, out, _ = run(["remove", "./packages/mine"], dirs.agent)
    assert code == 0 and settings(dirs.agent / "settings.json")["packages"] == []
    assert pkg.exists()  # local sources are only removed from settings

    code, _, err = run(["install", "./does-not-exist"], dirs.project)
    assert code == 1 and err == "pi: Path does not exist: ./does-not-exist\n"
    code, _, err = run(["remove", "./nothing"], dirs.project)
    assert code == 1 and err.startswith("pi: Not installed")


def test_install_project_scope(dirs: Dirs) -> None:
    pkg = dirs.project / "vendor" / "p"
    pkg.mkdir(parents=True)
    assert run(["install", str(pkg), "-l"], dirs.project)[0] == 0
    # outside the settings base dir (<cwd>/.pi): stored as an absolute path
    assert settings(dirs.project / ".pi" / "settings.json")["packages"] == [str(pkg)]
    inside = dirs.project / ".pi" / "pkgs" / "q"
    inside.mkdir(parents=True)
    assert run(["install", str(inside), "-l"], dirs.project)[0] == 0
    assert settings(dirs.project / ".pi" / "settings.json")["packages"] == [str(pkg), "./pkgs/q"]


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "remote" / "demo"
    (repo / "skills" / "git-skill").mkdir(parents=True)
    (repo / "skills" / "git-skill" / "SKILL.md").write_text("---\ndescription: from git\n---\nv1\n")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "."], ["git", "commit", "-qm", "v1"]):
        subprocess.run(argv, cwd=repo, check=True, env={**env, "PATH": "/usr/bin:/bin"})
    return repo


def test_git_install_update_remove(dirs: Dirs, git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_OFFLINE", raising=False)
    source = f"git://localhost{git_repo}"
    url = f"file://{git_repo}"
    # a file:// URL is not a package source form; use git:// syntax for identity, clone via file://
    from pi_app.coding.resources import packages

    original = packages.git_clone

    def clone(src, target):  # the test has no git daemon: clone the same repository by path
        original(packages.PackageSource("git", src.raw, src.identity, url=url), target)

    monkeypatch.setattr(packages, "git_clone", clone)
    code, out, err = run(["install", source], dirs.project)
    assert code == 0, err
    installed = dirs.agent / "git" / "localhost" / str(git_repo).lstrip("/")
    assert (installed / "skills" / "git-skill" / "SKILL.md").exists()
    assert settings(dirs.agent / "settings.json")["packages"] == [source]

    (git_repo / "skills" / "git-skill" / "SKILL.md").write_text("---\ndescription: from git\n---\nv2\n")
    subprocess.run(
        ["git", "commit", "-qam", "v2"],
        cwd=git_repo,
        check=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
        },
    )
    code, out, err = run(["update"], dirs.project)
    assert code == 0, err
    assert "v2" in (installed / "skills" / "git-skill" / "SKILL.md").read_text()

    monkeypatch.setenv("PI_OFFLINE", "1")
    assert "Offline" in run(["update"], dirs.project)[1]

    code, _, _ = run(["remove", source], dirs.project)
    assert code == 0 and not installed.exists()
    assert not (dirs.agent / "git" / "localhost").exists()  # empty parents pruned


def test_config_toggles_resources(dirs: Dirs) -> None:
    skill = dirs.skill(dirs.agent / "skills", "toggle-me")
    code, out, _ = run(["config"], dirs.project)
    assert code == 0 and f"[x] {skill}" in out
    assert run(["config", "disable", str(skill)], dirs.project)[0] == 0
    assert settings(dirs.agent / "settings.json")["skills"] == ["-skills/toggle-me/SKILL.md"]
    assert f"[ ] {skill}" in run(["config"], dirs.project)[1]
    assert run(["config", "enable", str(skill)], dirs.project)[0] == 0
    assert settings(dirs.agent / "settings.json")["skills"] == ["+skills/toggle-me/SKILL.md"]
    assert f"[x] {skill}" in run(["config"], dirs.project)[1]
    code, _, err = run(["config", "disable", "/no/such"], dirs.project)
    assert code == 1 and "No such resource" in err
