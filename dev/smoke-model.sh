#!/usr/bin/env bash
# Real inference smoke tier (opt-in, slow, not in CI): the prebuilt xllamacpp wheel serves a
# small Qwen2.5 instruct GGUF on CPU (127.0.0.1, a free port) and `infrabot eval` runs two
# scenarios against it in model mode (tests/smoke/test_real_inference.py).
#
# The weights are not in this repository and nothing here downloads them. On a machine with
# internet, fetch the official file from Hugging Face (the revision pins the exact bytes):
#
#   repo  Qwen/Qwen2.5-0.5B-Instruct-GGUF   revision 9217f5db79a29953eb74d5343926648285ec7e67
#   file  qwen2.5-0.5b-instruct-q4_k_m.gguf  491400032 bytes
#   sha256 74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db
#
#   curl -fL -o qwen2.5-0.5b-instruct-q4_k_m.gguf \
#     https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/9217f5db79a29953eb74d5343926648285ec7e67/qwen2.5-0.5b-instruct-q4_k_m.gguf
#
# The 1.5B file is pinned too (better tool calls, about 3x slower on CPU): repo
# Qwen/Qwen2.5-1.5B-Instruct-GGUF, revision 91cad51170dc346986eccefdc2dd33a9da36ead9, file
# qwen2.5-1.5b-instruct-q4_k_m.gguf, 1117320736 bytes, sha256
# 6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e.
# Keep the file name: it selects the pinned hash. Another GGUF needs INFRABOT_SMOKE_GGUF_SHA256.
#
# Usage (after bash dev/setup.sh --dev):
#   bash dev/smoke-model.sh /path/to/qwen2.5-0.5b-instruct-q4_k_m.gguf [pytest args]
#   INFRABOT_SMOKE_GGUF=/path/to/qwen2.5-0.5b-instruct-q4_k_m.gguf bash dev/smoke-model.sh
# Knobs (see the test's docstring): INFRABOT_SMOKE_CTX, INFRABOT_SMOKE_THREADS,
# INFRABOT_SMOKE_TIMEOUT_S, INFRABOT_SMOKE_MODEL_TIMEOUT_S.
set -euo pipefail
cd "$(dirname "$0")/.."

XLLAMACPP_VERSION=2026.10.11549  # keep in sync with tests/smoke/test_real_inference.py

if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  gguf=$1
  shift
else
  gguf=${INFRABOT_SMOKE_GGUF:-}
fi
if [ -z "$gguf" ]; then
  echo "smoke-model: give the weights file: bash dev/smoke-model.sh PATH.gguf" \
       "(or INFRABOT_SMOKE_GGUF=PATH); how to get it: the header of $0" >&2
  exit 2
fi
if [ ! -f "$gguf" ]; then
  echo "smoke-model: $gguf is not a file" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "smoke-model: no .venv here; run bash dev/setup.sh --dev first" >&2
  exit 2
fi

# the pinned files (keep in sync with PINNED_WEIGHTS in the test)
case "$(basename "$gguf")" in
  qwen2.5-0.5b-instruct-q4_k_m.gguf)
    size=491400032 sha=74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db ;;
  qwen2.5-1.5b-instruct-q4_k_m.gguf)
    size=1117320736 sha=6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e ;;
  *)
    size="" sha=${INFRABOT_SMOKE_GGUF_SHA256:-}
    if [ -z "$sha" ]; then
      echo "smoke-model: no pinned sha256 for $(basename "$gguf");" \
           "set INFRABOT_SMOKE_GGUF_SHA256 (or use a pinned file, see the header of $0)" >&2
      exit 2
    fi ;;
esac
if [ -n "$size" ] && [ "$(stat -c %s "$gguf")" != "$size" ]; then
  echo "smoke-model: $gguf has $(stat -c %s "$gguf") bytes, the pinned file has $size" >&2
  exit 1
fi
actual=$(sha256sum "$gguf" | cut -d' ' -f1)
if [ "$actual" != "$sha" ]; then
  echo "smoke-model: $gguf has sha256 $actual, expected $sha" >&2
  exit 1
fi
echo "smoke-model: $(basename "$gguf") sha256 ok" >&2

installed=$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))' \
            2>/dev/null || true)
if [ "$installed" != "$XLLAMACPP_VERSION" ]; then
  echo "smoke-model: installing xllamacpp==$XLLAMACPP_VERSION into .venv" >&2
  .venv/bin/python -m pip install -q "xllamacpp==$XLLAMACPP_VERSION"
fi

INFRABOT_SMOKE_GGUF=$(realpath "$gguf")
export INFRABOT_SMOKE_GGUF
exec .venv/bin/pytest -m model tests/smoke -q -rs "$@"
