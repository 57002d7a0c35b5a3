"""``pi pods`` against a real sshd (Debian's openssh-server on a loopback port) and a stand-in vLLM.

The whole user path: ``setup`` finds the GPUs and vLLM, ``start`` runs the model with the known
configuration (tensor parallel over both GPUs, the model's tool-call parser, the API key through
the environment) and writes the pod into ``models.json``, ``list`` and ``logs`` show it, ``pi -p
--model <pod>/<name>`` is answered by the server on the pod, ``stop`` ends the process and takes the
provider out again. A model that fails to start is cleaned up and reported.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from .conftest import Pod

MODEL = "Qwen/Qwen3-Coder-30B-A3B-Instruct"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _models_json(pod: Pod) -> dict:
    path = pod.local_home / ".pi" / "agent" / "models.json"
    return json.loads(path.read_text()) if path.exists() else {"providers": {}}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (not yet reaped) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_setup_start_list_logs_prompt_stop(pod: Pod) -> None:
    setup = pod.pi("pods", "setup", "gpu1", pod.ssh_command, "--models-path", "/models")
    assert setup.returncode == 0, setup.stderr
    assert "2x NVIDIA H100 80GB HBM3" in setup.stdout
    assert "vLLM already installed" in setup.stdout
    pods = json.loads((pod.local_home / ".pi" / "pods.json").read_text())
    assert pods["active"] == "gpu1"
    assert [g["id"] for g in pods["pods"]["gpu1"]["gpus"]] == [0, 1]
    assert (pod.local_home / ".pi" / "pods.json").stat().st_mode & 0o777 == 0o600
    env_file = pod.remote_home / ".pi-pods" / "env"
    assert env_file.stat().st_mode & 0o777 == 0o600
    api_key = pods["pods"]["gpu1"]["apiKey"]

    (pod.remote_home / "fake-turns.json").write_text(json.dumps([["text 'Hello from the pod'"]]))
    port = _free_port()
    start = pod.pi("pods", "start", MODEL, "--name", "qwen3-coder", "--port", str(port), "--timeout", "60")
    assert start.returncode == 0, start.stdout + start.stderr
    assert f"qwen3-coder is running at http://127.0.0.1:{port}/v1" in start.stdout
    assert "pi --model gpu1/qwen3-coder" in start.stdout

    [call] = _lines(pod.remote_home / "vllm-calls.jsonl")
    argv = call["argv"]
    assert argv[:2] == ["serve", MODEL]
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    assert argv[argv.index("--tool-call-parser") + 1] == "qwen3_coder"
    assert "--enable-auto-tool-choice" in argv
    assert argv[argv.index("--served-model-name") + 1] == "qwen3-coder"
    assert call["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert call["env"]["VLLM_API_KEY"] == api_key and call["env"]["HF_HOME"] == "/models"
    assert api_key not in " ".join(argv)  # the secret never appears on a command line

    provider = _models_json(pod)["providers"]["gpu1"]
    assert provider["apiKey"] == api_key
    assert [(m["id"], m["baseUrl"]) for m in provider["models"]] == [
        ("qwen3-coder", f"http://127.0.0.1:{port}/v1")
    ]

    listing = pod.pi("pods", "list")
    assert listing.returncode == 0, listing.stderr
    assert "* gpu1" in listing.stdout
    assert "qwen3-coder" in listing.stdout and "running" in listing.stdout

    logs = pod.pi("pods", "logs", "qwen3-coder")
    assert logs.returncode == 0, logs.stderr
    assert "Application startup complete" in logs.stdout

    answer = pod.pi("-p", "--no-session", "--model", "gpu1/qwen3-coder", "Say hello")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == "Hello from the pod"
    [request] = [
        r for r in _lines(pod.remote_home / "vllm-requests.jsonl") if r["path"].endswith("/chat/completions")
    ]
    assert request["authorization"] == f"Bearer {api_key}" and request["model"] == "qwen3-coder"

    shell = pod.pi("pods", "shell", "gpu1", "--", "echo", "$HOME")
    assert shell.returncode == 0 and shell.stdout.strip() == str(pod.remote_home)

    stop = pod.pi("pods", "stop", "qwen3-coder")
    assert stop.returncode == 0, stop.stderr
    deadline = time.monotonic() + 10
    while _alive(call["pid"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(call["pid"])
    assert "gpu1" not in _models_json(pod)["providers"]
    assert "qwen3-coder" not in pod.pi("pods", "list").stdout


def test_a_model_that_fails_to_start_is_reported_and_cleaned_up(pod: Pod) -> None:
    assert pod.pi("pods", "setup", "gpu1", pod.ssh_command).returncode == 0
    (pod.remote_home / "vllm-fail").write_text("")
    start = pod.pi("pods", "start", MODEL, "--port", str(_free_port()), "--timeout", "60")
    assert start.returncode == 1
    assert "CUDA out of memory" in start.stdout and "failed to start" in start.stdout
    assert "gpu1" not in _models_json(pod)["providers"]
    assert json.loads((pod.local_home / ".pi" / "pods.json").read_text())["pods"]["gpu1"]["models"] == {}


def test_an_unknown_host_key_is_refused_with_one_line(pod: Pod) -> None:
    (pod.root / "known_hosts").write_text("")
    setup = pod.pi("pods", "setup", "gpu1", pod.ssh_command)
    assert setup.returncode == 1
    [line] = setup.stderr.strip().splitlines()
    assert line.startswith("pi pods: host key of") and "known_hosts" in line
    assert not (pod.local_home / ".pi" / "pods.json").exists()


def test_two_pods_behind_one_provider(pod: Pod) -> None:
    for name in ("gpu1", "gpu2"):
        setup = pod.pi("pods", "setup", name, pod.ssh_command, "--provider", "fleet")
        assert setup.returncode == 0, setup.stderr
    pods = json.loads((pod.local_home / ".pi" / "pods.json").read_text())["pods"]
    assert pods["gpu1"]["apiKey"] == pods["gpu2"]["apiKey"]  # one provider, one key
    (pod.remote_home / "fake-turns.json").write_text(json.dumps([["text 'from the fleet'"]]))
    ports = [_free_port(), _free_port()]
    for name, model, port in (("gpu1", "big", ports[0]), ("gpu2", "small", ports[1])):
        start = pod.pi(
            "pods",
            "start",
            "some/model",
            "--name",
            model,
            "--pod",
            name,
            "--port",
            str(port),
            "--timeout",
            "60",
        )
        assert start.returncode == 0, start.stdout + start.stderr
        assert f"pi --model fleet/{model}" in start.stdout
    taken = pod.pi(
        "pods", "start", "some/model", "--name", "big", "--pod", "gpu2", "--port", str(_free_port())
    )
    assert taken.returncode == 1 and "already serves a model named 'big'" in taken.stderr
    providers = _models_json(pod)["providers"]
    assert set(providers) == {"fleet"}
    assert [m["id"] for m in providers["fleet"]["models"]] == ["big", "small"]
    answer = pod.pi("-p", "--no-session", "--model", "fleet/small", "hello")
    assert answer.returncode == 0 and answer.stdout.strip() == "from the fleet", answer.stderr
    for name in ("gpu1", "gpu2"):
        assert pod.pi("pods", "stop", "--pod", name).returncode == 0
    assert "fleet" not in _models_json(pod)["providers"]
