"""The local record of pods and the models running on them: ``~/.pi/pods.json``.

``$PI_PODS_CONFIG`` names another file. Shape (camelCase on disk, like pi's other files)::

    {"active": "gpu1",
     "pods": {"gpu1": {"ssh": "ssh -p 22 root@1.2.3.4", "host": "1.2.3.4",
                       "gpus": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "memory": "81559 MiB"}],
                       "modelsPath": "/mnt/models", "vllm": "release", "vllmPath": "/root/.pi-pods/venv/bin/vllm",
                       "apiKey": "...", "provider": "fleet",
                       "models": {"qwen3-coder": {"model": "Qwen/Qwen3-Coder-30B-A3B-Instruct", "port": 8001,
                                                   "gpus": [0, 1], "pid": 4242, "api": "openai-completions"}}}}}

The file holds the endpoints' API keys, so it is written 0600. A file that cannot be read or parsed
is reported with its path and never overwritten (R-PHIL-11); writes are atomic under the same lock
convention as pi's other files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from pi_app.shells.pods.remote import PodError


class _Schema(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Gpu(_Schema):
    id: int
    name: str
    memory: str = ""


class RunningModel(_Schema):
    model: str
    port: int
    gpus: list[int] = Field(default_factory=list)
    pid: int
    api: str = "openai-completions"
    context_window: int | None = None
    max_tokens: int | None = None
    reasoning: bool = False


class Pod(_Schema):
    ssh: str
    host: str
    gpus: list[Gpu] = Field(default_factory=list)
    models_path: str | None = None
    vllm: str = "release"
    vllm_path: str = "vllm"
    api_key: str
    provider: str | None = None  # the models.json provider it belongs to (default: the pod's name)
    models: dict[str, RunningModel] = Field(default_factory=dict)


class PodsConfig(_Schema):
    active: str | None = None
    pods: dict[str, Pod] = Field(default_factory=dict)

    def provider_of(self, pod_name: str) -> str:
        pod = self.pods.get(pod_name)
        return (pod.provider if pod is not None else None) or pod_name

    def pods_of(self, provider: str) -> list[Pod]:
        """The pods behind one provider entry, in the file's order."""
        return [pod for name, pod in self.pods.items() if (pod.provider or name) == provider]


def config_path() -> Path:
    override = os.environ.get("PI_PODS_CONFIG")
    return Path(os.path.expanduser(override)) if override else Path.home() / ".pi" / "pods.json"


def load_config(path: Path | None = None) -> PodsConfig:
    target = path or config_path()
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return PodsConfig()
    except (OSError, UnicodeDecodeError) as exc:
        raise PodError(f"cannot read {target}: {exc}") from None
    try:
        return PodsConfig.model_validate(json.loads(text))
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise PodError(
            f"{target} is not a valid pods file ({first}); fix or move it, it was left unchanged"
        ) from None


def save_config(config: PodsConfig, path: Path | None = None) -> None:
    from pi_app.ext import atomic_write, file_lock

    target = path or config_path()
    text = (
        json.dumps(config.model_dump(by_alias=True, exclude_none=True), indent=2, ensure_ascii=False) + "\n"
    )
    with file_lock(target):
        atomic_write(target, text, mode=0o600)


def pick_pod(config: PodsConfig, name: str | None) -> tuple[str, Pod]:
    """The named pod, else the active one; a clear error when there is none."""
    chosen = name or config.active
    if not chosen:
        raise PodError('no pod set up yet: pi pods setup <name> "ssh root@<host>"')
    pod = config.pods.get(chosen)
    if pod is None:
        known = ", ".join(sorted(config.pods)) or "none"
        raise PodError(f"no pod named {chosen!r} (pods: {known})")
    return chosen, pod


def find_model(config: PodsConfig, name: str, pod_name: str | None) -> tuple[str, Pod, RunningModel]:
    """A running model by name, on ``pod_name`` or on whichever pod has it."""
    if pod_name:
        chosen, pod = pick_pod(config, pod_name)
        if name in pod.models:
            return chosen, pod, pod.models[name]
        raise PodError(f"no model {name!r} on pod {chosen} (pi pods list)")
    for chosen, pod in config.pods.items():
        if name in pod.models:
            return chosen, pod, pod.models[name]
    raise PodError(f"no model named {name!r} on any pod (pi pods list)")
