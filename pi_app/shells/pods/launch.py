"""What ``pi pods start`` runs: GPU choice, vLLM arguments and the run script (pure functions).

Known-good configurations are data (``known_models.json`` beside this module): per model the GPU
counts it was run on (with the GPU types tried), extra vLLM arguments, the tool-call parser the
model's output format needs, and the API pi should use (GPT-OSS is served through
``/v1/responses``). The rules, as the design book's pods:

- ``--vllm ARGS`` replaces every automatic argument (GPU placement is then vLLM's); pods still adds
  the port, host and served name it needs to reach and name the server;
- a known model with ``--gpus N`` needs a configuration for exactly N GPUs;
- a known model without ``--gpus`` takes the largest configuration the pod's GPU count allows,
  preferring one tried on the pod's GPU type;
- an unknown model runs on ``--gpus N`` (default 1) without a tool-call parser (pods says so);
- more than one GPU means tensor parallelism over them (``--tensor-parallel-size N``); the GPUs
  used are all of them, or the least busy ones, made visible with ``CUDA_VISIBLE_DEVICES``;
- ``--memory 90%`` becomes ``--gpu-memory-utilization 0.9``, ``--context 32k`` becomes
  ``--max-model-len 32768``.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_app.shells.pods.config import Pod
from pi_app.shells.pods.remote import PodError

PODS_DIR = "$HOME/.pi-pods"
FIRST_PORT = 8001
STARTED_MARKER = "Application startup complete"
FAILURE_MARKERS = (
    "CUDA out of memory",
    "OutOfMemoryError",
    "Engine core initialization failed",
    "No available memory for the cache blocks",
    "ValueError:",
    "RuntimeError:",
)


class _Schema(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class KnownConfig(_Schema):
    gpu_count: int
    gpu_types: list[str] = Field(default_factory=list)
    args: list[str] = Field(default_factory=list)


class KnownModel(_Schema):
    name: str
    context_window: int | None = None
    max_tokens: int | None = None
    reasoning: bool = False
    api: str = "openai-completions"
    configs: list[KnownConfig]
    tool_call_parser: str | None = None
    extra_args: list[str] = Field(default_factory=list)
    notes: str | None = None


@cache
def known_models() -> dict[str, KnownModel]:
    raw = json.loads(resources.files(__package__).joinpath("known_models.json").read_text("utf-8"))
    return {model_id: KnownModel.model_validate(entry) for model_id, entry in raw["models"].items()}


@dataclass
class LaunchPlan:
    model: str
    name: str
    port: int
    gpus: list[int]
    args: list[str]
    api: str = "openai-completions"
    context_window: int | None = None
    max_tokens: int | None = None
    reasoning: bool = False
    notes: list[str] = field(default_factory=list)


def default_name(model_id: str) -> str:
    """``Qwen/Qwen3-Coder-30B-A3B-Instruct`` → ``qwen3-coder-30b-a3b-instruct``."""
    return re.sub(r"[^a-z0-9.-]+", "-", model_id.rsplit("/", 1)[-1].lower()).strip("-") or "model"


def parse_context(text: str) -> int:
    match = re.fullmatch(r"(\d+)\s*([kK]?)", text.strip())
    if not match:
        raise PodError(f"--context {text!r}: use a token count such as 32k or 32768")
    return int(match.group(1)) * (1024 if match.group(2) else 1)


def parse_memory(text: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*%?", text.strip())
    value = float(match.group(1)) if match else -1.0
    if match and value > 1:
        value /= 100
    if not 0 < value <= 1:
        raise PodError(f"--memory {text!r}: use a share of GPU memory such as 90%")
    return round(value, 3)


def _choose_config(known: KnownModel, model_id: str, pod: Pod, gpus: int | None) -> KnownConfig:
    gpu_name = pod.gpus[0].name if pod.gpus else ""
    counts = sorted({c.gpu_count for c in known.configs})
    wanted = [gpus] if gpus is not None else sorted((c for c in counts if c <= len(pod.gpus)), reverse=True)
    if gpus is not None and gpus not in counts:
        raise PodError(
            f"{model_id} has known configurations for {', '.join(map(str, counts))} GPU(s), "
            f"not {gpus}; pass --vllm ... to run it your way"
        )
    for count in wanted:
        candidates = [c for c in known.configs if c.gpu_count == count]
        typed = [c for c in candidates if any(t.lower() in gpu_name.lower() for t in c.gpu_types)]
        if typed or candidates:
            return (typed or candidates)[0]
    raise PodError(
        f"{model_id} needs {counts[0]} GPU(s) or more; this pod has {len(pod.gpus)} "
        "(pi pods start --vllm ... runs it anyway)"
    )


def _least_busy(pod: Pod, count: int) -> list[int]:
    ids = [g.id for g in pod.gpus]
    if count > len(ids):
        raise PodError(f"{count} GPU(s) asked for; this pod has {len(ids)}")
    if count == len(ids):
        return ids
    load = {i: 0 for i in ids}
    for running in pod.models.values():
        for gpu in running.gpus:
            if gpu in load:
                load[gpu] += 1
    return sorted(sorted(ids), key=lambda i: load[i])[:count]


def free_port(pod: Pod) -> int:
    used = {m.port for m in pod.models.values()}
    port = FIRST_PORT
    while port in used:
        port += 1
    return port


def plan_launch(
    model_id: str,
    pod: Pod,
    *,
    name: str | None = None,
    gpus: int | None = None,
    memory: str | None = None,
    context: str | None = None,
    vllm_args: list[str] | None = None,
    port: int | None = None,
) -> LaunchPlan:
    name = name or default_name(model_id)
    if name in pod.models:
        raise PodError(f"a model named {name!r} already runs on this pod (pi pods stop {name}, or --name)")
    if port is not None and port in {m.port for m in pod.models.values()}:
        raise PodError(f"port {port} is taken by another model on this pod")
    plan = LaunchPlan(model=model_id, name=name, port=port or free_port(pod), gpus=[], args=[])
    known = known_models().get(model_id)
    if known is not None:
        plan.api, plan.reasoning = known.api, known.reasoning
        plan.context_window, plan.max_tokens = known.context_window, known.max_tokens
        if known.notes:
            plan.notes.append(known.notes)
    if vllm_args is not None:
        if memory or context or gpus:
            plan.notes.append("--memory, --context and --gpus are ignored with --vllm")
        plan.args = list(vllm_args)
        return plan
    if known is not None:
        chosen = _choose_config(known, model_id, pod, gpus)
        count = chosen.gpu_count
        plan.args = [*chosen.args, *known.extra_args]
        if known.tool_call_parser:
            plan.args += ["--enable-auto-tool-choice", "--tool-call-parser", known.tool_call_parser]
    else:
        count = gpus or 1
        plan.notes.append(
            f"{model_id} is not a known model: one GPU unless --gpus, no tool-call parser "
            "(add one with --vllm ... --enable-auto-tool-choice --tool-call-parser <name>)"
        )
    if pod.gpus:
        plan.gpus = _least_busy(pod, count)
    if count > 1:
        plan.args += ["--tensor-parallel-size", str(count)]
    if memory:
        plan.args += ["--gpu-memory-utilization", str(parse_memory(memory))]
    if context:
        tokens = parse_context(context)
        plan.args += ["--max-model-len", str(tokens)]
        plan.context_window = tokens
    return plan


def vllm_command(plan: LaunchPlan, vllm_path: str) -> list[str]:
    return [
        vllm_path,
        "serve",
        plan.model,
        "--host",
        "0.0.0.0",
        "--port",
        str(plan.port),
        "--served-model-name",
        plan.name,
        *plan.args,
    ]


def run_script(plan: LaunchPlan, vllm_path: str) -> str:
    """The script the pod runs detached: secrets from the private env file, then ``exec vllm``."""
    lines = [
        "#!/bin/sh",
        f"# started by pi pods: {plan.name}",
        "set -a",
        f'. "{PODS_DIR}/env"',
        "set +a",
        "export VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1",
    ]
    if plan.gpus:
        lines.append(f"export CUDA_VISIBLE_DEVICES={','.join(map(str, plan.gpus))}")
    lines.append("exec " + " ".join(shlex.quote(a) for a in vllm_command(plan, vllm_path)))
    return "\n".join(lines) + "\n"


def env_file(api_key: str, hf_token: str | None, models_path: str | None) -> str:
    values = {"VLLM_API_KEY": api_key}
    if hf_token:
        values["HF_TOKEN"] = hf_token
    if models_path:
        values["HF_HOME"] = models_path
    return "".join(f"{k}={shlex.quote(v)}\n" for k, v in values.items())
