"""The ``pi`` command line as ``LaunchOptions``: pi 0.73.1's flags, multi-letter short options,
``@file`` arguments, ``--`` and unknown options (an error naming the option, exit status 2)."""

from __future__ import annotations

import pytest

from pi_app.cli import CliError, main, parse_args


def test_pi_flags_and_short_options() -> None:
    args = parse_args(
        [
            "--provider",
            "openai",
            "--model",
            "gpt-4o:high",
            "--api-key",
            "k",
            "-p",
            "-c",
            "--session-dir",
            "/tmp/s",
            "--models",
            "a,b",
            "-nt",
            "-ne",
            "-ns",
            "-np",
            "-nc",
            "--thinking",
            "low",
            "-e",
            "x.py",
            "--skill",
            "s",
            "--prompt-template",
            "t",
            "--theme",
            "th",
            "--no-themes",
            "--verbose",
            "--offline",
            "--mode",
            "json",
            "--system-prompt",
            "sp",
            "--append-system-prompt",
            "a1",
            "--append-system-prompt",
            "a2",
            "@notes.md",
            "first",
            "second",
        ]
    )
    assert (args.provider, args.model, args.api_key) == ("openai", "gpt-4o:high", "k")
    assert args.print and args.continue_ and args.session_dir == "/tmp/s" and args.models == "a,b"
    assert args.no_tools and args.no_extensions and args.no_skills and args.no_prompt_templates
    assert args.no_context_files and args.no_themes and args.verbose and args.offline
    assert args.thinking == "low" and args.extensions == ["x.py"] and args.skills == ["s"]
    assert args.prompt_templates == ["t"] and args.themes == ["th"] and args.mode == "json"
    assert args.append_system_prompt == ["a1", "a2"] and args.system_prompt == "sp"
    assert args.file_args == ["notes.md"] and args.messages == ["first", "second"]


def test_double_dash_ends_options_and_list_models_takes_an_optional_search() -> None:
    args = parse_args(["-p", "--", "--not-a-flag", "@literal"])
    assert args.messages == ["--not-a-flag"] and args.file_args == ["literal"]
    assert parse_args(["--list-models"]).list_models_requested
    assert parse_args(["--list-models", "sonnet"]).list_models == "sonnet"
    assert parse_args(["--export", "s.jsonl", "o.html"]).export == ["s.jsonl", "o.html"]


def test_unknown_options_are_errors_unless_kept_for_extension_flags() -> None:
    with pytest.raises(CliError, match="unknown option --plan"):
        parse_args(["--plan", "hello"])
    kept = parse_args(["--plan", "hello"], allow_unknown=True)
    assert kept.unknown_options == ["--plan"] and kept.messages == ["hello"]
    flagged = parse_args(["--plan", "--depth", "3", "hi"], [("plan", False), ("depth", True)])
    assert flagged.extension_flags == {"plan": True, "depth": "3"} and flagged.messages == ["hi"]


def test_main_reports_a_bad_command_line_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frobnicate"]) == 2
    err = capsys.readouterr().err
    assert err == "pi: unknown option --frobnicate (see pi --help)\n"
    assert main(["--thinking", "maximum"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_every_flag_in_pi_help_is_accepted() -> None:
    from pathlib import Path

    help_text = (
        Path(__file__).resolve().parents[1] / "fixtures" / "pi-reference" / "help-0.73.1.txt"
    ).read_text()
    options = help_text.split("Options:")[1].split("Extensions can register")[0]
    flags = set()
    for line in options.splitlines():
        for token in line.replace(",", " ").split():
            if token.startswith("-") and not token.startswith("---"):
                flags.add(token)
    value_flags = {
        "--provider",
        "--model",
        "--api-key",
        "--system-prompt",
        "--append-system-prompt",
        "--mode",
        "--session",
        "--fork",
        "--session-dir",
        "--models",
        "--tools",
        "-t",
        "--thinking",
        "--extension",
        "-e",
        "--skill",
        "--prompt-template",
        "--theme",
        "--export",
    }
    sample = {"--mode": "json", "--thinking": "low"}
    for flag in sorted(flags - {"--help", "-h", "--version", "-v"}):
        argv = [flag, sample.get(flag, "x")] if flag in value_flags else [flag]
        parse_args(argv)  # raises CliError for anything pi accepts and we do not


def test_plain_pi_skips_the_parser_with_the_same_result() -> None:
    from pi_app.cli import _parse_with_argparse

    assert parse_args([]) == _parse_with_argparse([])
    assert parse_args([], allow_unknown=True) == _parse_with_argparse([], allow_unknown=True)


def test_help_names_the_share_viewer_variable_and_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    from pi_app.tui.commands.share import DEFAULT_SHARE_VIEWER_URL

    assert main(["--help"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "PI_SHARE_VIEWER_URL" in line)
    assert DEFAULT_SHARE_VIEWER_URL in line


PI16 = "/work/ref/pi16/pi16"
CHOICES = {"--mode": "json", "--thinking": "max", "--tui-mode": "fullscreen"}


def test_pi_16_flags() -> None:
    args = parse_args(
        ["-na", "--use-theme", "light/dark", "--tui-mode", "regular", "-xt", "bash,w*", "--no-mcp"]
    )
    assert args.no_approve and args.use_theme == "light/dark" and args.tui_mode == "regular"
    assert args.exclude_tools == "bash,w*" and args.no_mcp and not args.unknown_options
    assert parse_args(["--thinking", "max"]).thinking == "max"


def test_tui_mode_regular_is_accepted_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tui-mode", "regular", "--list-models", "zzz-no-such-model"]) == 0
    err = capsys.readouterr().err
    assert err.count("--tui-mode regular is not supported") == 1


@pytest.mark.skipif(not __import__("os").path.exists(PI16), reason="pi 1.6.0 is not installed here")
def test_every_flag_of_pi_16s_help_is_accepted(tmp_path) -> None:
    """Each option 1.6.0's ``--help`` lists (long and short forms) parses here without an error."""
    import re
    import subprocess

    env = {"HOME": str(tmp_path), "PI_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    text = subprocess.run([PI16, "--help"], capture_output=True, text=True, env=env, timeout=60).stdout
    options = text.split("Options:", 1)[1].split("\n\n", 1)[0]
    checked = 0
    for line in options.splitlines():
        match = re.match(r"\s+(--[a-z-]+(?:, -[a-z]+)?)(.*)", line)
        if not match or match.group(1).startswith(("--help", "--version")):
            continue
        flags = [f.strip() for f in match.group(1).split(",")]
        takes = "<" in match.group(2).split("  ")[0]
        for flag in flags:
            argv = [flag, CHOICES.get(flags[0], "x")] if takes else [flag]
            parsed = parse_args(argv)
            assert not parsed.unknown_options, flag
            checked += 1
    assert checked > 50
