"""Editing tasks: a fuzzy-matched edit, several edits in one call, a rename across files, a failing
test to fix, a module written to satisfy its tests."""

from __future__ import annotations

from evals.harness import CheckResult, ScriptContext, Task, TaskRun
from evals.tasks._script import call, grep_hits, say

# -- fuzzy_edit: the file has trailing spaces and an en dash the model's oldText does not --------

SHOP = (
    'BANNER = "Café – “special” offer"\n'
    "\n"
    "\n"
    "def price(amount):   \n"
    "    # VAT – standard rate\n"
    "    return round(amount * 1.20, 2)\n"
)
TEST_SHOP = (
    "from shop import BANNER, price\n\n\n"
    "def test_price_has_25_percent_vat():\n    assert price(100) == 125.0\n\n\n"
    "def test_banner_is_untouched():\n"
    '    assert BANNER == "Café – “special” offer"\n'
)


def _fuzzy_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("read", path="shop.py")
    if calls[-1] == "read":
        # typed the way a model types it: no trailing spaces, a plain hyphen for the en dash
        return call(
            "edit",
            path="shop.py",
            edits=[
                {
                    "oldText": "def price(amount):\n    # VAT - standard rate\n    return round(amount * 1.20, 2)",
                    "newText": "def price(amount):\n    # VAT - standard rate\n    return round(amount * 1.25, 2)",
                }
            ],
        )
    return say("VAT is now 25%.")


def _fuzzy_check(run: TaskRun) -> CheckResult:
    shop = run.file("shop.py") or ""
    edits = [c for c in run.tool_calls if c.name == "edit"]
    return CheckResult.of(
        run.tests_pass(),
        ("“special”" in shop and "–" in shop, "the banner's typography is kept"),
        (bool(edits) and not any(c.is_error for c in edits), "edit was called and succeeded"),
    )


FUZZY_EDIT = Task(
    name="fuzzy_edit",
    description="edit whose oldText only matches after fuzzy normalisation (trailing spaces, dash)",
    files={"shop.py": SHOP, "test_shop.py": TEST_SHOP},
    prompt="In shop.py, price() adds 20% VAT. Change it to 25%. Use the edit tool; keep everything else as it is.",
    check=_fuzzy_check,
    script=_fuzzy_script,
)

# -- multi_edit: three values of a config changed in one edit call --------------------------------

CONFIG = "[server]\nhost = 127.0.0.1\nport = 8080\nworkers = 2\n\n[log]\nlevel = debug\nfile = app.log\n"


def _multi_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("read", path="app.ini")
    if calls[-1] == "read":
        return call(
            "edit",
            path="app.ini",
            edits=[
                {"oldText": "port = 8080", "newText": "port = 9090"},
                {"oldText": "workers = 2", "newText": "workers = 8"},
                {"oldText": "level = debug", "newText": "level = warning"},
            ],
        )
    return say("Updated port, workers and log level.")


def _multi_check(run: TaskRun) -> CheckResult:
    import configparser

    parser = configparser.ConfigParser()
    parser.read_string(run.file("app.ini") or "")
    get = lambda s, k: parser.get(s, k, fallback=None)  # noqa: E731
    return CheckResult.of(
        (get("server", "port") == "9090", "port is 9090"),
        (get("server", "workers") == "8", "workers is 8"),
        (get("log", "level") == "warning", "log level is warning"),
        (get("server", "host") == "127.0.0.1" and get("log", "file") == "app.log", "other values kept"),
        (sum(c.name == "edit" for c in run.tool_calls) == 1, "one edit call"),
    )


MULTI_EDIT = Task(
    name="multi_edit",
    description="three changes to one file in a single edit call",
    files={"app.ini": CONFIG},
    prompt=(
        "In app.ini set the server port to 9090, workers to 8 and the log level to warning. "
        "Make all three changes with a single edit call."
    ),
    check=_multi_check,
    script=_multi_script,
)

# -- rename_across_files: fetch_data -> load_records everywhere -----------------------------------

RENAME_FILES = {
    "data/source.py": "def fetch_data(path):\n    with open(path) as fh:\n        return fh.read().split()\n",
    "data/__init__.py": "from data.source import fetch_data\n\n__all__ = ['fetch_data']\n",
    "report.py": "from data import fetch_data\n\n\ndef count(path):\n    return len(fetch_data(path))\n",
    "test_report.py": (
        "from data import load_records\nfrom report import count\n\n\n"
        "def test_count(tmp_path):\n    f = tmp_path / 'x.txt'\n    f.write_text('a b c')\n"
        "    assert count(f) == 3 and load_records(f) == ['a', 'b', 'c']\n"
    ),
}


def _rename_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("grep", pattern="fetch_data", glob="*.py")
    if calls[-1] == "grep" or calls[-1] == "edit":
        hits = grep_hits(ctx.result_texts("grep")[0])
        done = len([c for c in calls if c == "edit"])
        files = sorted({path for path, _, _ in hits})
        if done < len(files):
            path = files[done]
            lines = sorted({line for p, _, line in hits if p == path})
            return call(
                "edit",
                path=path,
                edits=[
                    {"oldText": line, "newText": line.replace("fetch_data", "load_records")} for line in lines
                ],
            )
        return call("bash", command="python -m pytest -q -p no:cacheprovider")
    return say("Renamed fetch_data to load_records in every file; the tests pass.")


def _rename_check(run: TaskRun) -> CheckResult:
    leftovers = [p for p in run.workdir.rglob("*.py") if "fetch_data" in p.read_text()]
    return CheckResult.of(
        run.tests_pass(),
        (not leftovers, f"no fetch_data left ({[str(p.relative_to(run.workdir)) for p in leftovers]})"),
        (run.called("grep"), "grep was used to find the uses"),
    )


RENAME = Task(
    name="rename_across_files",
    description="rename a function in every file that uses it (grep, then one edit per file)",
    files=RENAME_FILES,
    prompt="Rename the function fetch_data to load_records everywhere in this project, then run the tests.",
    check=_rename_check,
    script=_rename_script,
    tools=("read", "bash", "edit", "write", "grep", "find", "ls"),
)

# -- fix_failing_test ------------------------------------------------------------------------------

STATS = (
    '"""Small statistics helpers."""\n\n\n'
    "def mean(values):\n    return sum(values) / (len(values) - 1)\n\n\n"
    "def spread(values):\n    return max(values) - min(values)\n"
)
TEST_STATS = (
    "from calc.stats import mean, spread\n\n\n"
    "def test_mean():\n    assert mean([2, 4, 6]) == 4\n\n\n"
    "def test_spread():\n    assert spread([3, 9, 4]) == 6\n"
)


def _fix_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("bash", command="python -m pytest -q -p no:cacheprovider")
    if calls == ["bash"]:
        output = ctx.result_texts("bash")[-1]
        if "test_mean" not in output:
            return say("I could not find the failing test.")
        return call("read", path="calc/stats.py")
    if calls[-1] == "read":
        return call(
            "edit",
            path="calc/stats.py",
            edits=[{"oldText": "sum(values) / (len(values) - 1)", "newText": "sum(values) / len(values)"}],
        )
    if calls[-1] == "edit":
        return call("bash", command="python -m pytest -q -p no:cacheprovider")
    return say("mean() divided by n - 1; it divides by n now and the tests pass.")


def _fix_check(run: TaskRun) -> CheckResult:
    return CheckResult.of(
        run.tests_pass(),
        (run.called("bash"), "the tests were run"),
        ("max(values) - min(values)" in (run.file("calc/stats.py") or ""), "spread() untouched"),
    )


FIX_FAILING_TEST = Task(
    name="fix_failing_test",
    description="run the tests, find the bug behind the failure, fix it, run them again",
    files={"calc/__init__.py": "", "calc/stats.py": STATS, "tests/test_stats.py": TEST_STATS},
    prompt="The test suite fails. Run it with `python -m pytest -q`, find the bug and fix it so that all tests pass.",
    check=_fix_check,
    script=_fix_script,
)

# -- write_module: a new module that makes given tests pass ----------------------------------------

TEST_SLUG = (
    "from slug import slugify\n\n\n"
    "def test_basic():\n    assert slugify('Hello, World!') == 'hello-world'\n\n\n"
    "def test_spaces_and_dashes():\n    assert slugify('  many   spaces -- here ') == 'many-spaces-here'\n\n\n"
    "def test_accents():\n    assert slugify('Crème Brûlée') == 'creme-brulee'\n"
)
SLUG = (
    '"""slugify: lowercase ASCII words joined by dashes."""\n\n'
    "import re\nimport unicodedata\n\n\n"
    "def slugify(text):\n"
    "    ascii_text = unicodedata.normalize('NFKD', text).encode('ascii', 'ignore').decode()\n"
    "    return '-'.join(re.findall(r'[a-z0-9]+', ascii_text.lower()))\n"
)


def _slug_script(ctx: ScriptContext) -> list:
    calls = ctx.calls_since_user()
    if not calls:
        return call("read", path="test_slug.py")
    if calls[-1] == "read":
        return call("write", path="slug.py", content=SLUG)
    if calls[-1] == "write":
        return call("bash", command="python -m pytest -q -p no:cacheprovider")
    return say("slug.py is written and the tests pass.")


WRITE_MODULE = Task(
    name="write_module",
    description="write a new module from its tests",
    files={"test_slug.py": TEST_SLUG},
    prompt="Create slug.py with a slugify() function so that the tests in test_slug.py pass. Run them.",
    check=lambda run: CheckResult.of(run.tests_pass(), (run.called("write"), "write was used")),
    script=_slug_script,
)

TASKS = [FUZZY_EDIT, MULTI_EDIT, RENAME, FIX_FAILING_TEST, WRITE_MODULE]
