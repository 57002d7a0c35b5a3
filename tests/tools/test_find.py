"""The find tool with both back ends (spec 50 §3.11, scenario 29)."""

from __future__ import annotations

import os

import pytest

from pi_app.coding.tools import create_find_tool
from tests.tools.conftest import aborted_signal, git_init, make_tree, run_tool, text_of


async def find(cwd: str, **params):
    return await run_tool(create_find_tool(cwd), params)


async def test_hidden_files_listed(cwd, backend):
    make_tree(cwd, {".secret/hidden.txt": "", "visible.txt": ""})
    assert text_of(await find(cwd, pattern="**/*.txt")) == ".secret/hidden.txt\nvisible.txt"


async def test_gitignore_in_and_out_of_repo(cwd, backend, repo_kind):
    if repo_kind == "git":
        git_init(cwd)
    make_tree(cwd, {".gitignore": "ignored.txt\n", "ignored.txt": "", "kept.txt": ""})
    result = await find(cwd, pattern="*")
    assert text_of(result) == ".gitignore\nkept.txt"
    assert ".git/" not in text_of(await find(cwd, pattern="**"))


async def test_path_pattern_any_depth(cwd, backend):
    make_tree(cwd, {"pkg/src/a/b.spec.ts": "", "pkg/src/a/b.ts": "", "other/x.spec.ts": ""})
    assert text_of(await find(cwd, pattern="src/**/*.spec.ts")) == "pkg/src/a/b.spec.ts"


async def test_directories_match_by_name(cwd, backend):
    make_tree(cwd, {"src/a.py": "", "lib/src/b.py": "", "empty/.keep": ""})
    assert text_of(await find(cwd, pattern="src")) == "lib/src/\nsrc/"
    assert text_of(await find(cwd, pattern="*.{py,md}")) == "lib/src/b.py\nsrc/a.py"


async def test_limit_and_no_match(cwd, backend):
    make_tree(cwd, {"a.txt": "", "b.txt": ""})
    result = await find(cwd, pattern="*.txt", limit=1)
    assert text_of(result) == "a.txt\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]"
    assert result.details == {"resultLimitReached": 1}
    nothing = await find(cwd, pattern="*.rs")
    assert text_of(nothing) == "No files found matching pattern" and nothing.details is None


async def test_search_path_and_errors(cwd, backend):
    make_tree(cwd, {"sub/x/y.md": "", "top.md": ""})
    assert text_of(await find(cwd, pattern="*.md", path="sub")) == "x/y.md"
    with pytest.raises(Exception, match=f"^Path not found: {os.path.join(cwd, 'gone')}$"):
        await find(cwd, pattern="*", path="gone")


async def test_nested_ignore_negation_and_precedence(cwd, backend):
    make_tree(
        cwd,
        {
            ".gitignore": "*.log\nbuild/\n",
            "a/b/.gitignore": "!keep.log\n",
            ".ignore": "!special.log\n",
            "x.log": "",
            "a/b/keep.log": "",
            "a/b/drop.log": "",
            "a/special.log": "",
            "build/out.js": "",
            "src/build.txt": "",
        },
    )
    assert text_of(await find(cwd, pattern="*.{log,js,txt}")) == "a/b/keep.log\na/special.log\nsrc/build.txt"


async def test_git_info_exclude_and_global_excludes(cwd, backend, isolated_home):
    git_init(cwd)
    make_tree(cwd, {".git/info/exclude": "local.txt\n", "local.txt": "", "a.txt": "", "b.secret": ""})
    make_tree(str(isolated_home), {".config/git/ignore": "*.secret\n"})
    assert text_of(await find(cwd, pattern="*.*")) == "a.txt"


async def test_parent_gitignore_applies_to_subdirectory_search(cwd, backend):
    make_tree(cwd, {".gitignore": "*.tmp\n", "inner/a.tmp": "", "inner/b.md": ""})
    assert text_of(await find(cwd, pattern="*", path="inner")) == "b.md"


async def test_symlinks_not_followed(cwd, backend):
    make_tree(cwd, {"real/f.txt": ""})
    os.symlink("real", os.path.join(cwd, "alias"))
    os.symlink("real/f.txt", os.path.join(cwd, "link.txt"))
    assert text_of(await find(cwd, pattern="*.txt")) == "real/f.txt"


async def test_custom_glob_operations(cwd):
    class Remote:
        def exists(self, path):
            return True

        def glob(self, pattern, search_dir, ignore, limit):
            assert ignore == ["**/node_modules/**", "**/.git/**"]
            return [f"{search_dir}/z.py", "a/b.py"]

    result = await run_tool(create_find_tool("/srv", Remote()), {"pattern": "*.py"})
    assert text_of(result) == "a/b.py\nz.py"


async def test_aborted(cwd, backend):
    with pytest.raises(Exception, match="^Operation aborted$"):
        await run_tool(create_find_tool(cwd), {"pattern": "*"}, signal=aborted_signal())


async def test_non_utf8_file_names(cwd, backend):
    with open(os.path.join(os.fsencode(cwd), b"caf\xe9.txt"), "w") as handle:
        handle.write("needle\n")
    assert text_of(await find(cwd, pattern="*.txt")) == "caf\ufffd.txt"
    from pi_app.coding.tools import create_grep_tool

    grep = await run_tool(create_grep_tool(cwd), {"pattern": "needle"})
    assert text_of(grep) == "caf\ufffd.txt:1: needle"


async def test_search_inside_an_ignored_directory_lists_its_files(cwd, backend):
    make_tree(
        cwd,
        {
            ".gitignore": "node_modules/\n*.log\nlib\n",
            "node_modules/pkg/index.js": "",
            "node_modules/pkg/a.log": "",
        },
    )
    make_tree(cwd, {"node_modules/pkg/lib/x.js": ""})
    assert text_of(await find(cwd, pattern="*", path="node_modules/pkg")) == "index.js"
    assert text_of(await find(cwd, pattern="*")) == ".gitignore"
