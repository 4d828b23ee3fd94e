#!/usr/bin/env bash
# Model mode end to end without a real model: the scripted OpenAI-compatible server
# (evals/simulators/model_server.py) plays every role with the `evidence_echo` policy
# (evals/simulators/model_policy.py), and `infrabot eval` runs the scenarios through the
# real openai client against it. Extra arguments go to `infrabot eval`
# (default: --only-required --runs 1 --report reports/model).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
log=$(mktemp)
$PY -m evals.simulators.model_server --port 0 --model evidence-echo \
  --policy evals.simulators.model_policy:evidence_echo >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^model server: //p' "$log")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the scripted model server did not start" >&2; cat "$log"; exit 1; }
if [ "$#" -eq 0 ]; then set -- --only-required --runs 1 --report reports/model; fi
.venv/bin/infrabot eval "$@" --model-url "$url" --model evidence-echo
