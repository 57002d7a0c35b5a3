"""``python -m evals``: run the eval tasks and print the table (and a JSON report).

    python -m evals --provider scripted                 # every task, scripted model (CI)
    python -m evals --model anthropic/claude-sonnet-4-5  # a real model (or PI_PROVIDER / PI_MODEL)
    python -m evals --model A --model B                  # two models side by side
    python -m evals --model A --settings '{}' --settings '{"compaction": {"enabled": false}}'
    python -m evals --task fuzzy_edit --task tree_branch --json report.json   # default evals-report.json

Each ``--model`` (or the scripted provider) is a column; several ``--settings`` (JSON objects
merged over each task's settings) multiply the columns. Exit status 0 when every task passed in
every column, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from evals.harness import TaskResult, Variant, format_table, json_report, run_suite
from evals.tasks import ALL_TASKS, select


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evals", description="Run pi's eval tasks.")
    parser.add_argument("--provider", help="'scripted' for the scripted model, else a provider name")
    parser.add_argument("--model", action="append", default=[], help="model pattern (repeat to compare)")
    parser.add_argument("--thinking", help="thinking level for the models")
    parser.add_argument("--settings", action="append", default=[], help="settings JSON (repeat to compare)")
    parser.add_argument("--task", action="append", default=[], help="run only this task (repeatable)")
    parser.add_argument(
        "--json", dest="json_path", default="evals-report.json", help="JSON report path ('-': stdout)"
    )
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    return parser


def build_variants(args: argparse.Namespace) -> list[Variant]:
    settings_list: list[dict[str, Any]] = []
    for raw in args.settings or ["{}"]:
        value = json.loads(raw)
        if not isinstance(value, dict):
            raise ValueError(f"--settings must be a JSON object: {raw}")
        settings_list.append(value)
    provider = args.provider or os.environ.get("PI_PROVIDER") or None
    models = list(args.model) or ([os.environ["PI_MODEL"]] if os.environ.get("PI_MODEL") else [])
    several = len(settings_list) > 1
    variants: list[Variant] = []
    for index, settings in enumerate(settings_list):
        suffix = f" #{index + 1}" if several else ""
        if provider == "scripted" or (provider is None and not models):
            variants.append(Variant.scripted_provider(settings, label="scripted" + suffix))
            continue
        for spec in models or [None]:
            variant = Variant.for_model(spec, provider, settings, args.thinking)
            variant.label += suffix
            variants.append(variant)
    return variants


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list:
        for task in ALL_TASKS:
            print(f"{task.name:<22} {task.description}")
        return 0
    try:
        tasks = select(args.task)
        variants = build_variants(args)
    except Exception as exc:  # resolver and JSON errors are one line for the user
        print(f"evals: {exc}", file=sys.stderr)
        return 2

    def progress(result: TaskResult) -> None:
        print(
            f"  {'PASS' if result.passed else 'FAIL'} {result.task} [{result.variant}] {result.seconds:.1f}s",
            file=sys.stderr,
            flush=True,
        )

    results = asyncio.run(run_suite(tasks, variants, progress))
    print(format_table(results))
    report = json.dumps(json_report(results), indent=2)
    if args.json_path == "-":
        print(report)
    else:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            fh.write(report + "\n")
        print(f"JSON report: {args.json_path}")
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
