#!/bin/sh
# pi pods setup, run on the GPU machine: prepares $HOME/.pi-pods and makes sure vLLM is installed.
# Usage: sh pod_setup.sh <release|nightly>. Prints the vllm executable on its last line as VLLM=<path>.
set -eu
build="${1:-release}"
pods_dir="$HOME/.pi-pods"
mkdir -p "$pods_dir/logs" "$pods_dir/run"
chmod 700 "$pods_dir"

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -L || echo "warning: nvidia-smi failed: is the NVIDIA driver loaded?"
else
  echo "warning: nvidia-smi not found: this machine has no NVIDIA driver"
fi

found=""
if command -v vllm >/dev/null 2>&1; then
  found="$(command -v vllm)"
elif [ -x "$pods_dir/venv/bin/vllm" ]; then
  found="$pods_dir/venv/bin/vllm"
fi
if [ -n "$found" ]; then
  echo "vLLM already installed: $found ($("$found" --version 2>/dev/null || echo 'version unknown'))"
  echo "VLLM=$found"
  exit 0
fi

echo "Installing vLLM ($build) into $pods_dir/venv (a few minutes)..."
if command -v uv >/dev/null 2>&1; then
  uv venv --python 3.12 "$pods_dir/venv"
  pip="uv pip install --python $pods_dir/venv/bin/python"
else
  python3 -m venv "$pods_dir/venv"
  "$pods_dir/venv/bin/pip" install -q -U pip
  pip="$pods_dir/venv/bin/pip install"
fi
case "$build" in
  nightly) $pip -U vllm --pre --extra-index-url https://wheels.vllm.ai/nightly ;;
  *) $pip -U vllm ;;
esac
"$pods_dir/venv/bin/vllm" --version
echo "VLLM=$pods_dir/venv/bin/vllm"
