#!/usr/bin/env bash
# Install infrabot into ./.venv, plus the Debian programs its simulators and tests use.
#   bash dev/setup.sh          runtime: the package, VictoriaMetrics (for the demo world's metrics)
#   bash dev/setup.sh --dev    also test tools, nginx and headless Chromium
# Debian packages are installed only when missing and only when we may (root + apt-get);
# otherwise a loud note says what will be skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
[ "${1:-}" = "--dev" ] && dev=1

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
if [ "$dev" = 1 ]; then
  .venv/bin/python -m pip install -q -e ".[dev]"
else
  .venv/bin/python -m pip install -q -e .
fi

# bytecode for our own packages now, so that even with PYTHONDONTWRITEBYTECODE set a cold
# `infrabot ask` does not compile them again on every start
.venv/bin/python -m compileall -q bot planner policy connectors evals >/dev/null || true

need=()
command -v victoria-metrics >/dev/null 2>&1 || need+=(victoria-metrics)
if [ "$dev" = 1 ]; then
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
  command -v chromium >/dev/null 2>&1 || need+=(chromium chromium-driver)
  # `kubectl kustomize` renders the deployment's kustomize overlay in tests/deploy
  command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
  # the alert pipeline's e2e test: vmalert (in victoria-metrics) routes through Alertmanager
  command -v prometheus-alertmanager >/dev/null 2>&1 || need+=(prometheus-alertmanager)
fi
# another apt or dpkg (unattended-upgrades on a fresh VM) may hold the package lock: apt
# waits this long for it, then setup says what held it up
wait_s="${INFRABOT_APT_WAIT_S:-300}"
apt_log=$(mktemp)
trap 'rm -f "$apt_log"' EXIT
apt() {
  if ! apt-get -o DPkg::Lock::Timeout="$wait_s" "$@" >"$apt_log" 2>&1; then
    echo "infrabot setup: apt-get $1 failed:" >&2
    tail -n 15 "$apt_log" >&2
    if grep -qiE "lock|another process" "$apt_log"; then
      echo "infrabot setup: another apt or dpkg held the package lock for ${wait_s} s;" \
           "run setup again when it has finished (or set INFRABOT_APT_WAIT_S)." >&2
    fi
    exit 1
  fi
}
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "infrabot setup: installing Debian packages: ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt update -qq
    apt install -y -qq --no-install-recommends "${need[@]}"
  else
    echo "infrabot setup: WARNING: missing ${need[*]} and cannot apt-get install them;" \
         "metrics become gaps in the demo and the tests that need them are skipped." >&2
  fi
fi

if [ "$dev" = 1 ]; then
  next='.venv/bin/pytest -q   (the whole suite; .ci/run is what CI runs)'
else
  next='.venv/bin/infrabot ask "why does service-b in dc-a keep restarting?"   (the demo world), or .venv/bin/infrabot demo   (the web chat)'
fi
echo "infrabot setup: done. Next: $next" >&2
