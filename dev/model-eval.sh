#!/usr/bin/env bash
# Model mode end to end without a real model: the scripted OpenAI-compatible server
# (evals/simulators/model_server.py) plays every role with the `evidence_echo` policy
# (evals/simulators/model_policy.py), and `infrabot eval` runs the scenarios through the
# real openai client against it. Extra arguments go to `infrabot eval` (default:
# --only-required --runs 1 --report reports/model). Fails when eval fails, and when any
# model call failed: against this server every one must succeed, or the run proved
# nothing about model mode (a dead model still leaves the deterministic answers).
# MODEL_POLICY names another policy of that module: `diligent` (a planner that reads every
# tool it is offered) is the one for `--planning free`, where the model plans every
# objective: `MODEL_POLICY=diligent dev/model-eval.sh --only-required --runs 1
# --report reports/model-free --planning free`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
log=$(mktemp)
server=""
evaluation=""
cleanup() {
  [ -n "$evaluation" ] && kill "$evaluation" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
$PY -m evals.simulators.model_server --port 0 --model evidence-echo \
  --policy "evals.simulators.model_policy:${MODEL_POLICY:-evidence_echo}" >"$log" 2>&1 &
server=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^model server: //p' "$log")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "the scripted model server did not start:" >&2
  cat "$log" >&2
  exit 1
fi
if [ "$#" -eq 0 ]; then set -- --only-required --runs 1 --report reports/model; fi
report=""
prev=""
for arg in "$@"; do
  [ "$prev" = "--report" ] && report="$arg"
  prev="$arg"
done
status=0
.venv/bin/infrabot eval "$@" --model-url "$url" --model evidence-echo &
evaluation=$!
wait "$evaluation" || status=$?
evaluation=""
if [ "$status" -ne 0 ]; then
  echo "model server log:" >&2
  tail -50 "$log" >&2
  exit "$status"
fi
if [ -n "$report" ]; then
  failed=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["model_use"]["failed_calls"])' "$report/report.json")
  if [ "$failed" -ne 0 ]; then
    echo "model mode: $failed model calls failed against the scripted server" >&2
    tail -50 "$log" >&2
    exit 1
  fi
fi
