"""``pi pods``: set up GPU machines over SSH, run vLLM on them, point pi at the endpoints.

::

    pi pods setup <pod> "ssh root@1.2.3.4" [--models-path /mnt/models] [--vllm release|nightly]
    pi pods start <model> [--name N] [--pod P] [--gpus N] [--memory 90%] [--context 32k] [--vllm ARGS...]
    pi pods list                  pods, their GPUs, and each model's state (running / starting / dead)
    pi pods logs <name> [-f]      the model's vLLM log
    pi pods stop [<name>]         stop one model (or every model on the pod)
    pi pods shell [<pod>] [-- command]
    pi pods known                 the known-good model configurations
    pi pods active <pod> | remove <pod>

``start`` records the model in ``~/.pi/pods.json`` and writes the pod as a provider into pi's
``models.json`` (provider name = pod name, model id = the served name, per-model ``baseUrl``), so
``pi --model <pod>/<name>`` reaches it; ``stop`` and ``remove`` take it out again. Pods set up with
the same ``--provider <name>`` share one provider entry (and one API key): the models of every
machine of that fleet are ``pi --model <name>/<model>``, each at its own machine's address. The endpoints'
API key is ``PI_API_KEY`` at setup time, or a generated one; it reaches vLLM through a private
env file on the pod (``VLLM_API_KEY``), never a command line.

Decision: the endpoint host is the address the SSH connection reached (``--host`` at setup
overrides it, e.g. for a pod whose public address differs); pods does not tunnel the port.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shlex
import sys
import time
from importlib import resources

from pi_app.shells.pods.config import (
    Gpu,
    Pod,
    PodsConfig,
    RunningModel,
    find_model,
    load_config,
    pick_pod,
    save_config,
)
from pi_app.shells.pods.launch import (
    FAILURE_MARKERS,
    PODS_DIR,
    STARTED_MARKER,
    LaunchPlan,
    env_file,
    known_models,
    plan_launch,
    run_script,
)
from pi_app.shells.pods.remote import PodConnection, PodError, connect, parse_ssh_command

DEFAULT_COMPAT = {"supportsDeveloperRole": False, "supportsReasoningEffort": False}


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# -- models.json ---------------------------------------------------------------------------------


def provider_entry(pods: list[Pod]) -> dict[str, object] | None:
    """The ``models.json`` provider for the running models of these pods (None when nothing runs)."""
    running_models = [(pod, name, running) for pod in pods for name, running in sorted(pod.models.items())]
    if not running_models:
        return None
    models = []
    for pod, name, running in running_models:
        model: dict[str, object] = {
            "id": name,
            "name": running.model,
            "api": running.api,
            "baseUrl": f"http://{pod.host}:{running.port}/v1",
            "reasoning": running.reasoning,
        }
        if running.context_window:
            model["contextWindow"] = running.context_window
        if running.max_tokens:
            model["maxTokens"] = running.max_tokens
        models.append(model)
    return {
        "baseUrl": models[0]["baseUrl"],
        "api": "openai-completions",
        "apiKey": pods[0].api_key,
        "compat": DEFAULT_COMPAT,
        "models": models,
    }


def sync_provider(config: PodsConfig, provider: str) -> None:
    from pi_app.ext import ModelsFileError, models_path, set_models_provider

    try:
        set_models_provider(models_path(), provider, provider_entry(config.pods_of(provider)))
    except ModelsFileError as exc:
        raise PodError(f"could not update models.json: {exc}") from None


# -- setup ---------------------------------------------------------------------------------------


def parse_gpus(text: str) -> list[Gpu]:
    gpus = []
    for line in text.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0].isdigit():
            gpus.append(Gpu(id=int(parts[0]), name=parts[1], memory=parts[2] if len(parts) > 2 else ""))
    return gpus


async def setup(args: argparse.Namespace) -> int:
    config = load_config()
    target = parse_ssh_command(args.ssh)
    fleet = [
        p
        for n, p in config.pods.items()
        if args.provider and (p.provider or n) == args.provider and n != args.name
    ]
    api_key = os.environ.get("PI_API_KEY") or (fleet[0].api_key if fleet else secrets.token_urlsafe(24))
    if fleet and api_key != fleet[0].api_key:
        raise PodError(
            f"PI_API_KEY differs from the key of provider {args.provider}'s other pods; one provider has one key"
        )
    hf_token = os.environ.get("HF_TOKEN")
    if not hf_token:
        out("note: HF_TOKEN is not set: gated models (Llama, ...) will not download")
    out(f"Connecting to {target.describe()}...")
    async with connect(target) as pod_ssh:
        await pod_ssh.run("echo ok")
        script = resources.files(__package__).joinpath("pod_setup.sh").read_text("utf-8")
        await pod_ssh.write_file(f"{PODS_DIR}/pod_setup.sh", script)
        await pod_ssh.write_file(
            f"{PODS_DIR}/env", env_file(api_key, hf_token, args.models_path), private=True
        )
        seen: list[str] = []

        def show(text: str) -> None:
            seen.append(text)
            sys.stdout.write(text)
            sys.stdout.flush()

        code = await pod_ssh.stream(f'sh "{PODS_DIR}/pod_setup.sh" {shlex.quote(args.vllm)}', show)
        if code != 0:
            raise PodError(f"setup script failed on {target.describe()} (exit {code}); see its output above")
        vllm_lines = [ln for ln in "".join(seen).splitlines() if ln.startswith("VLLM=")]
        vllm_path = vllm_lines[-1][5:].strip() if vllm_lines else "vllm"
        query = await pod_ssh.run(
            "nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader", check=False
        )
        gpus = parse_gpus(query.stdout) if query.code == 0 else []
        host = args.host or pod_ssh.peer_address
    previous = config.pods.get(args.name)
    config.pods[args.name] = Pod(
        ssh=args.ssh,
        host=host,
        gpus=gpus,
        models_path=args.models_path,
        vllm=args.vllm,
        vllm_path=vllm_path,
        api_key=api_key,
        provider=args.provider,
        models=previous.models if previous else {},
    )
    if config.active not in config.pods:
        config.active = args.name
    save_config(config)
    gpu_text = f"{len(gpus)}x {gpus[0].name}" if gpus else "no GPUs detected"
    out(f"Pod {args.name} ready: {gpu_text}, vLLM at {vllm_path}")
    out(f"Next: pi pods start <model> --pod {args.name}   (pi pods known lists tested models)")
    return 0


# -- start / stop --------------------------------------------------------------------------------


# a process that exited but was not reaped yet (a zombie) counts as gone
ALIVE = 'alive() { kill -0 "$1" 2>/dev/null && ! grep -qs \'^State:[[:space:]]*Z\' /proc/"$1"/status; }; '


def _pid_check(pid: int) -> str:
    return f"{ALIVE}if alive {pid}; then echo alive; else echo dead; fi"


async def _launch(pod_ssh: PodConnection, pod: Pod, plan: LaunchPlan) -> int:
    await pod_ssh.write_file(f"{PODS_DIR}/run/{plan.name}.sh", run_script(plan, pod.vllm_path))
    started = await pod_ssh.run(
        f'cd "{PODS_DIR}" && : > "logs/{plan.name}.log" && '
        f"if command -v setsid >/dev/null 2>&1; then runner=setsid; else runner=nohup; fi; "
        f'$runner sh "run/{plan.name}.sh" > "logs/{plan.name}.log" 2>&1 < /dev/null & echo $!'
    )
    return int(started.stdout.strip().splitlines()[-1])


async def _stop_process(pod_ssh: PodConnection, pid: int) -> None:
    await pod_ssh.run(
        f"{ALIVE}kill -TERM -- -{pid} 2>/dev/null || kill -TERM {pid} 2>/dev/null; "
        f"i=0; while alive {pid} && [ $i -lt 40 ]; do sleep 0.25; i=$((i+1)); done; "
        f"kill -KILL -- -{pid} 2>/dev/null || kill -KILL {pid} 2>/dev/null; true",
        check=False,
    )


async def _watch(pod_ssh: PodConnection, name: str, pid: int, timeout_s: float) -> str:
    """Show the log until vLLM is up ("running"), fails ("failed") or the time is over ("starting")."""
    offset = 0
    log = ""
    deadline = time.monotonic() + timeout_s
    while True:
        result = await pod_ssh.run(
            f'{_pid_check(pid)}; tail -c +{offset + 1} "{PODS_DIR}/logs/{name}.log" 2>/dev/null', check=False
        )
        state, _, new = result.stdout.partition("\n")
        if new:
            sys.stdout.write(new)
            sys.stdout.flush()
            offset += len(new.encode())
            log += new
        if STARTED_MARKER in log:
            return "running"
        if state.strip() == "dead" or any(marker in log for marker in FAILURE_MARKERS):
            return "failed"
        if time.monotonic() > deadline:
            return "starting"
        await asyncio.sleep(0.5)


async def start(args: argparse.Namespace) -> int:
    config = load_config()
    pod_name, pod = pick_pod(config, args.pod)
    plan = plan_launch(
        args.model,
        pod,
        name=args.name,
        gpus=args.gpus,
        memory=args.memory,
        context=args.context,
        vllm_args=args.vllm,
        port=args.port,
    )
    provider = config.provider_of(pod_name)
    if any(plan.name in other.models for other in config.pods_of(provider) if other is not pod):
        raise PodError(
            f"another pod of provider {provider} already serves a model named {plan.name!r} (use --name)"
        )
    for note in plan.notes:
        out(f"note: {note}")
    gpus = f"GPU {','.join(map(str, plan.gpus))}" if plan.gpus else "no GPU pinning"
    out(f"Starting {plan.model} as {plan.name} on {pod_name} (port {plan.port}, {gpus})")
    async with connect(parse_ssh_command(pod.ssh)) as pod_ssh:
        pid = await _launch(pod_ssh, pod, plan)
        pod.models[plan.name] = RunningModel(
            model=plan.model,
            port=plan.port,
            gpus=plan.gpus,
            pid=pid,
            api=plan.api,
            context_window=plan.context_window,
            max_tokens=plan.max_tokens,
            reasoning=plan.reasoning,
        )
        save_config(config)
        sync_provider(config, config.provider_of(pod_name))
        try:
            state = await _watch(pod_ssh, plan.name, pid, args.timeout)
        except (KeyboardInterrupt, asyncio.CancelledError):
            out(f"\nStopped watching; {plan.name} keeps starting (pi pods logs {plan.name} -f)")
            return 0
        if state == "failed":
            await _stop_process(pod_ssh, pid)
            del pod.models[plan.name]
            save_config(config)
            sync_provider(config, config.provider_of(pod_name))
            out(
                f"\n{plan.name} failed to start (log above). Try a smaller --context, --memory 80%, "
                "more --gpus, or a quantised model."
            )
            return 1
    base_url = f"http://{pod.host}:{plan.port}/v1"
    if state == "starting":
        out(
            f"\n{plan.name} is still starting after {args.timeout:.0f}s; follow it with pi pods logs {plan.name} -f"
        )
    else:
        out(f"\n{plan.name} is running at {base_url}")
    out(f"Use it:  pi --model {config.provider_of(pod_name)}/{plan.name}")
    out(
        f"Other clients: OPENAI_BASE_URL={base_url} OPENAI_API_KEY=<apiKey in ~/.pi/pods.json> OPENAI_MODEL={plan.name}"
    )
    return 0


async def stop(args: argparse.Namespace) -> int:
    config = load_config()
    if args.name:
        pod_name, pod, running = find_model(config, args.name, args.pod)
        targets = {args.name: running}
    else:
        pod_name, pod = pick_pod(config, args.pod)
        targets = dict(pod.models)
        if not targets:
            out(f"Nothing runs on {pod_name}")
            return 0
    async with connect(parse_ssh_command(pod.ssh)) as pod_ssh:
        for name, running in targets.items():
            await _stop_process(pod_ssh, running.pid)
            pod.models.pop(name, None)
            out(f"Stopped {name} on {pod_name}")
    save_config(config)
    sync_provider(config, config.provider_of(pod_name))
    return 0


# -- list / logs / shell -------------------------------------------------------------------------


async def _states(pod: Pod) -> dict[str, str]:
    if not pod.models:
        return {}
    checks = []
    for name, running in pod.models.items():
        log = f'"{PODS_DIR}/logs/{name}.log"'
        checks.append(
            f"if alive {running.pid}; then "
            f"if grep -q {shlex.quote(STARTED_MARKER)} {log} 2>/dev/null; then s=running; else s=starting; fi; "
            f"else s=dead; fi; echo {shlex.quote(name)} $s"
        )
    async with connect(parse_ssh_command(pod.ssh)) as pod_ssh:
        result = await pod_ssh.run(ALIVE + "; ".join(checks), check=False)
    states = {}
    for line in result.stdout.splitlines():
        name, _, state = line.rpartition(" ")
        states[name] = state
    return states


async def list_pods(args: argparse.Namespace) -> int:
    config = load_config()
    if not config.pods:
        out('No pods yet: pi pods setup <name> "ssh root@<host>"')
        return 0
    for pod_name, pod in config.pods.items():
        marker = "*" if pod_name == config.active else " "
        gpu_text = f"{len(pod.gpus)}x {pod.gpus[0].name}" if pod.gpus else "no GPUs detected"
        out(f"{marker} {pod_name}  {gpu_text}  {pod.ssh}")
        try:
            states = await _states(pod)
        except PodError as exc:
            states = {name: f"unknown ({exc})" for name in pod.models}
        for name, running in pod.models.items():
            state = states.get(name, "unknown")
            gpus = ",".join(map(str, running.gpus)) or "-"
            out(f"    {name}  {running.model}  port {running.port}  GPU {gpus}  {state}")
            if state == "dead":
                out(f"      (the process is gone: pi pods stop {name})")
    return 0


async def logs(args: argparse.Namespace) -> int:
    config = load_config()
    _, pod, _running = find_model(config, args.name, args.pod)
    follow = " -f" if args.follow else ""
    command = f'tail -n {int(args.lines)}{follow} "{PODS_DIR}/logs/{args.name}.log"'
    async with connect(parse_ssh_command(pod.ssh)) as pod_ssh:
        if not args.follow:
            result = await pod_ssh.run(command)
            sys.stdout.write(result.stdout)
            return 0

        def show(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()

        try:
            return await pod_ssh.stream(command, show)
        except (KeyboardInterrupt, asyncio.CancelledError):
            return 0


async def shell(args: argparse.Namespace) -> int:
    config = load_config()
    _, pod = pick_pod(config, args.pod)
    command = " ".join(args.remote_command).strip()
    async with connect(parse_ssh_command(pod.ssh)) as pod_ssh:
        if command:
            result = await pod_ssh.run(command, check=False)
            sys.stdout.write(result.stdout)
            sys.stderr.write(result.stderr)
            return result.code
        return await _interactive(pod_ssh)


async def _interactive(pod_ssh: PodConnection) -> int:
    import termios
    import tty

    if not sys.stdin.isatty():
        raise PodError("pi pods shell needs a terminal (or give a command: pi pods shell <pod> -- ls)")
    size = os.get_terminal_size()
    process = await pod_ssh.connection.create_process(
        term_type=os.environ.get("TERM", "xterm-256color"),
        term_size=(size.columns, size.lines),
        encoding=None,
    )
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    try:
        await process.redirect(stdin=sys.stdin.buffer, stdout=sys.stdout.buffer, stderr=sys.stderr.buffer)
        await process.wait()
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    return process.exit_status or 0


# -- small ones ----------------------------------------------------------------------------------


async def known(args: argparse.Namespace) -> int:
    for model_id, model in known_models().items():
        counts = ", ".join(sorted({str(c.gpu_count) for c in model.configs}, key=int))
        parser = model.tool_call_parser or "-"
        out(f"{model_id}  ({model.name})  GPUs: {counts}  tool parser: {parser}")
        if model.notes:
            out(f"    {model.notes}")
    return 0


async def set_active(args: argparse.Namespace) -> int:
    config = load_config()
    pod_name, _ = pick_pod(config, args.pod_name)
    config.active = pod_name
    save_config(config)
    out(f"Active pod: {pod_name}")
    return 0


async def remove(args: argparse.Namespace) -> int:
    config = load_config()
    pod_name, pod = pick_pod(config, args.pod_name)
    if pod.models:
        out(f"note: {len(pod.models)} model(s) may still run on {pod_name}; pi pods stop first to end them")
    provider = config.provider_of(pod_name)
    del config.pods[pod_name]
    if config.active == pod_name:
        config.active = next(iter(config.pods), None)
    save_config(config)
    sync_provider(config, provider)
    out(f"Removed {pod_name}")
    return 0


# -- the command line ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi pods", description="Run open models with vLLM on GPU machines over SSH."
    )
    sub = parser.add_subparsers(dest="subcommand")
    p = sub.add_parser("setup", help="connect to a machine, install vLLM, detect GPUs")
    p.add_argument("name")
    p.add_argument("ssh", help='the ssh command, e.g. "ssh -p 22 root@1.2.3.4"')
    p.add_argument("--models-path", help="where model weights are cached on the pod (HF_HOME)")
    p.add_argument("--vllm", choices=("release", "nightly"), default="release")
    p.add_argument("--host", help="address clients use for the endpoints (default: the SSH peer)")
    p.add_argument("--provider", help="the models.json provider to join (pods of one provider share it)")
    p.set_defaults(run=setup)
    p = sub.add_parser("start", help="start a model with vLLM")
    p.add_argument("model")
    p.add_argument("--name")
    p.add_argument("--pod")
    p.add_argument("--gpus", type=int)
    p.add_argument("--memory")
    p.add_argument("--context")
    p.add_argument("--port", type=int, help="the endpoint's port (default: the first free one from 8001)")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for start-up")
    p.add_argument("--vllm", nargs=argparse.REMAINDER, help="your own vLLM arguments (must come last)")
    p.set_defaults(run=start)
    p = sub.add_parser("stop", help="stop a model (all on the pod without a name)")
    p.add_argument("name", nargs="?")
    p.add_argument("--pod")
    p.set_defaults(run=stop)
    p = sub.add_parser("list", help="pods and their models")
    p.set_defaults(run=list_pods)
    p = sub.add_parser("logs", help="a model's vLLM log")
    p.add_argument("name")
    p.add_argument("--pod")
    p.add_argument("-f", "--follow", action="store_true")
    p.add_argument("-n", "--lines", type=int, default=200)
    p.set_defaults(run=logs)
    p = sub.add_parser("shell", help="a shell (or one command after --) on a pod")
    p.add_argument("pod", nargs="?")
    p.add_argument("remote_command", nargs=argparse.REMAINDER)
    p.set_defaults(run=shell)
    p = sub.add_parser("known", help="known-good model configurations")
    p.set_defaults(run=known)
    p = sub.add_parser("active", help="make a pod the default")
    p.add_argument("pod_name")
    p.set_defaults(run=set_active)
    p = sub.add_parser("remove", help="forget a pod")
    p.add_argument("pod_name")
    p.set_defaults(run=remove)
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.subcommand is None:
        args.run = list_pods
    if args.subcommand == "shell" and args.remote_command[:1] == ["--"]:
        args.remote_command = args.remote_command[1:]
    try:
        return asyncio.run(args.run(args))
    except PodError as exc:
        sys.stderr.write(f"pi pods: {exc}\n")
        return 1
    except KeyboardInterrupt:
        return 130
