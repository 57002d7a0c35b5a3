"""How ``pi pods start`` chooses GPUs and vLLM arguments, and how it reads an ssh command."""

from __future__ import annotations

import pytest

from pi_app.shells.pods.config import Gpu, Pod, RunningModel
from pi_app.shells.pods.launch import known_models, plan_launch, run_script
from pi_app.shells.pods.remote import PodError, parse_ssh_command


def _pod(count: int, name: str = "NVIDIA H100 80GB HBM3") -> Pod:
    return Pod(ssh="ssh root@h", host="h", api_key="k", gpus=[Gpu(id=i, name=name) for i in range(count)])


def test_every_known_model_names_its_tool_call_parser() -> None:
    assert known_models()
    for model_id, model in known_models().items():
        assert model.tool_call_parser, model_id
        assert model.configs, model_id


def test_a_known_model_takes_the_largest_configuration_the_pod_allows() -> None:
    plan = plan_launch("Qwen/Qwen3-Coder-30B-A3B-Instruct", _pod(8))
    assert plan.gpus == [0, 1, 2, 3]
    assert plan.args[-2:] == ["--tensor-parallel-size", "4"]
    assert plan.args[plan.args.index("--tool-call-parser") + 1] == "qwen3_coder"
    one = plan_launch("Qwen/Qwen3-Coder-30B-A3B-Instruct", _pod(1))
    assert one.gpus == [0] and "--tensor-parallel-size" not in one.args
    assert "--max-model-len" in one.args  # the one-GPU configuration's own arguments


def test_gpu_count_must_match_a_known_configuration() -> None:
    with pytest.raises(PodError, match="1, 2, 4 GPU"):
        plan_launch("Qwen/Qwen3-Coder-30B-A3B-Instruct", _pod(8), gpus=3)
    with pytest.raises(PodError, match="needs 8 GPU"):
        plan_launch("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", _pod(2))


def test_the_least_busy_gpus_are_chosen_and_ports_do_not_collide() -> None:
    pod = _pod(2)
    pod.models["a"] = RunningModel(model="x", port=8001, gpus=[0], pid=1)
    plan = plan_launch("some/unknown-model", pod)
    assert plan.gpus == [1] and plan.port == 8002
    assert "--tool-call-parser" not in plan.args and "not a known model" in plan.notes[0]


def test_memory_context_and_custom_arguments() -> None:
    plan = plan_launch("some/model", _pod(1), memory="85%", context="32k")
    assert plan.args == ["--gpu-memory-utilization", "0.85", "--max-model-len", "32768"]
    custom = plan_launch("some/model", _pod(4), vllm_args=["--foo", "1"], gpus=2)
    assert custom.args == ["--foo", "1"] and custom.gpus == []
    script = run_script(custom, "/opt/vllm")
    assert (
        "exec /opt/vllm serve some/model --host 0.0.0.0 --port 8001 --served-model-name model --foo 1"
        in script
    )
    assert "CUDA_VISIBLE_DEVICES" not in script
    with pytest.raises(PodError, match="--context"):
        plan_launch("some/model", _pod(1), context="lots")


def test_gpt_oss_is_served_through_the_responses_api() -> None:
    assert plan_launch("openai/gpt-oss-20b", _pod(1)).api == "openai-responses"


def test_ssh_commands() -> None:
    target = parse_ssh_command("ssh -p 2222 -i ~/.ssh/gpu -o StrictHostKeyChecking=no root@1.2.3.4")
    assert (target.host, target.port, target.username) == ("1.2.3.4", 2222, "root")
    assert target.identity_files == ["~/.ssh/gpu"] and not target.check_host_key
    other = parse_ssh_command("ssh://ubuntu@gpu.example:2200")
    assert (other.host, other.port, other.username) == ("gpu.example", 2200, "ubuntu")
    assert parse_ssh_command("box").host == "box"
    with pytest.raises(PodError, match="after the host"):
        parse_ssh_command("ssh root@h uptime")


def test_pods_of_one_provider_share_one_models_json_entry() -> None:
    from pi_app.shells.pods.commands import provider_entry
    from pi_app.shells.pods.config import PodsConfig

    a, b = _pod(2), _pod(1)
    a.host, b.host, a.provider, b.provider = "10.0.0.1", "10.0.0.2", "fleet", "fleet"
    a.models["coder"] = RunningModel(model="Qwen/Qwen3-Coder-30B-A3B-Instruct", port=8001, gpus=[0, 1], pid=1)
    b.models["small"] = RunningModel(model="some/small", port=8001, gpus=[0], pid=2)
    config = PodsConfig(pods={"a": a, "b": b, "solo": _pod(1)})
    assert config.provider_of("a") == "fleet" and config.provider_of("solo") == "solo"
    entry = provider_entry(config.pods_of("fleet"))
    assert entry is not None
    assert [(m["id"], m["baseUrl"]) for m in entry["models"]] == [
        ("coder", "http://10.0.0.1:8001/v1"),
        ("small", "http://10.0.0.2:8001/v1"),
    ]
    assert provider_entry(config.pods_of("solo")) is None  # nothing runs there
