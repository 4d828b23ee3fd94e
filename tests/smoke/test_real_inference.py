"""Real inference smoke tier (opt-in, slow): a real small model on CPU, two scenarios end to end.

The prebuilt `xllamacpp` wheel (llama.cpp's own C++ server behind a Python binding) serves a
Qwen2.5 instruct GGUF on 127.0.0.1 with a free port, in a child process; the eval CLI runs two
scenarios in model mode against it and the report must show model mode, the model's name, both
scenarios completed and model calls made in every run. Whether a 0.5B model answers them well
is not asked here: that is the model-quality eval's business, not a smoke test's.

Runs only when INFRABOT_SMOKE_GGUF names the weights file and xllamacpp is importable; a file
whose size or sha256 differs from the pinned one fails, it is never skipped. `dev/smoke-model.sh`
installs the pinned wheel, checks the file and runs `pytest -m model tests/smoke`.

    INFRABOT_SMOKE_GGUF        the .gguf file (one of PINNED_WEIGHTS by its file name)
    INFRABOT_SMOKE_GGUF_SHA256 the expected sha256 of a file not pinned here
    INFRABOT_SMOKE_CTX         context size of the server (default 16384)
    INFRABOT_SMOKE_THREADS     CPU threads of the server (default: all)
    INFRABOT_SMOKE_TIMEOUT_S   limit for the eval run (default 1800)
    INFRABOT_SMOKE_MODEL_TIMEOUT_S  passed as --model-timeout (one model call) when set
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]

XLLAMACPP_VERSION = "2026.10.11549"  # keep in sync with dev/smoke-model.sh

# file name -> (bytes, sha256) of the official Qwen GGUF files on Hugging Face
# (Qwen/Qwen2.5-0.5B-Instruct-GGUF at 9217f5db79a29953eb74d5343926648285ec7e67,
#  Qwen/Qwen2.5-1.5B-Instruct-GGUF at 91cad51170dc346986eccefdc2dd33a9da36ead9);
# the Hugging Face LFS oid of a file is its sha256. Keep in sync with dev/smoke-model.sh.
PINNED_WEIGHTS: dict[str, tuple[int, str]] = {
    "qwen2.5-0.5b-instruct-q4_k_m.gguf": (
        491_400_032,
        "74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db",
    ),
    "qwen2.5-1.5b-instruct-q4_k_m.gguf": (
        1_117_320_736,
        "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
    ),
}

SCENARIOS = {
    # a general question: no deterministic intent matches it, so the model plans
    "a-canary-now-vs-last-rollout": ROOT / "evals/scenarios/a-canary-now-vs-last-rollout.yaml",
    # a 502 with a request_id in no log: the request-trace route leaves the required
    # edge.error_log objective open, so the model is asked to plan what is left
    "a-trace-unknown-request-id": ROOT / "evals/scenarios/a-trace-unknown-request-id.yaml",
}

GGUF = os.environ.get("INFRABOT_SMOKE_GGUF", "")
HAVE_XLLAMACPP = importlib.util.find_spec("xllamacpp") is not None

pytestmark = [
    pytest.mark.slow,
    pytest.mark.model,
    pytest.mark.skipif(
        not GGUF,
        reason="real inference smoke: set INFRABOT_SMOKE_GGUF to qwen2.5-0.5b-instruct-q4_k_m.gguf "
        "(see dev/smoke-model.sh)",
    ),
    pytest.mark.skipif(
        not HAVE_XLLAMACPP,
        reason=f"real inference smoke: xllamacpp is not installed "
        f"(pip install xllamacpp=={XLLAMACPP_VERSION}, or run dev/smoke-model.sh)",
    ),
]

# The child process that serves the model. llama.cpp's server binds any free port when
# port is 0 and reports it in listening_address; Server() returns once the model is loaded.
# The child lives until its stdin closes (the parent's lifeline: a killed pytest ends it too).
SERVER = """
import json, sys
import xllamacpp as xlc

path, alias, n_ctx, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
params = xlc.CommonParams()
params.model.path = path
params.model_alias = {alias}
params.hostnames = ["127.0.0.1"]
params.port = 0
params.n_ctx = n_ctx
params.n_parallel = 1
params.n_gpu_layers = 0
params.use_jinja = True  # the GGUF's chat template: tools in, tool_calls parsed out
params.endpoint_metrics = True
params.cpuparams.n_threads = threads
params.cpuparams_batch.n_threads = threads
server = xlc.Server(params)
print(json.dumps({"address": server.listening_address}), flush=True)
sys.stdin.read()
"""


@dataclass(frozen=True)
class ModelServer:
    address: str  # http://127.0.0.1:PORT
    model: str

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@pytest.fixture(scope="module")
def weights() -> Path:
    """The weights file, its size and sha256 checked against the pin: a mismatch fails."""
    path = Path(GGUF).expanduser()
    if not path.is_file():
        pytest.fail(f"INFRABOT_SMOKE_GGUF={GGUF!r} is not a file")
    pinned = PINNED_WEIGHTS.get(path.name)
    expected = pinned[1] if pinned else os.environ.get("INFRABOT_SMOKE_GGUF_SHA256", "").lower()
    if not expected:
        pytest.fail(
            f"no pinned sha256 for {path.name} (pinned: {', '.join(PINNED_WEIGHTS)}); "
            "give it in INFRABOT_SMOKE_GGUF_SHA256"
        )
    if pinned and path.stat().st_size != pinned[0]:
        pytest.fail(f"{path} has {path.stat().st_size} bytes, the pinned file has {pinned[0]}")
    actual = _sha256(path)
    if actual != expected:
        pytest.fail(f"{path} has sha256 {actual}, expected {expected}")
    return path


def _first_line(stream: IO[str], timeout_s: float) -> str:
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return line[0] if line else ""


@pytest.fixture(scope="module")
def model_server(weights: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelServer]:
    installed = importlib.metadata.version("xllamacpp")
    if installed != XLLAMACPP_VERSION:
        pytest.fail(
            f"xllamacpp {installed} is installed, the smoke tier is pinned to "
            f"{XLLAMACPP_VERSION} (pip install xllamacpp=={XLLAMACPP_VERSION})"
        )
    alias = weights.name.removesuffix(".gguf")
    log_path = tmp_path_factory.mktemp("xllamacpp") / "server.log"
    n_ctx = os.environ.get("INFRABOT_SMOKE_CTX", "16384")
    threads = os.environ.get("INFRABOT_SMOKE_THREADS", str(os.cpu_count() or 2))
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(weights), alias, n_ctx, threads],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = _first_line(proc.stdout, timeout_s=300)
        if not line:
            pytest.fail(f"the xllamacpp server did not start; its log:\n{_tail(log_path)}")
        server = ModelServer(address=json.loads(line)["address"], model=alias)
        _wait_for_models(server, log_path)
        yield server
    finally:
        proc.stdin.close()  # the child's lifeline: it exits on EOF
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _wait_for_models(server: ModelServer, log_path: Path, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    seen = ""
    while time.monotonic() < deadline:
        try:
            r = httpx.get(f"{server.base_url}/models", timeout=5)
            if r.status_code == 200:
                ids = [m.get("id") for m in r.json().get("data", [])]
                if server.model in ids:
                    return
                seen = f"models {ids}"
            else:
                seen = f"HTTP {r.status_code}"
        except httpx.HTTPError as exc:
            seen = repr(exc)
        time.sleep(0.5)
    pytest.fail(
        f"{server.base_url}/models did not list {server.model} ({seen}); "
        f"server log:\n{_tail(log_path)}"
    )


def _tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _prompt_tokens(server: ModelServer) -> float:
    """Prompt tokens this server has processed (llama.cpp's Prometheus /metrics)."""
    text = httpx.get(f"{server.address}/metrics", timeout=10).text
    match = re.search(r"^llamacpp:prompt_tokens_total\s+(\S+)", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_two_scenarios_run_end_to_end_in_model_mode(
    model_server: ModelServer, tmp_path: Path
) -> None:
    report_dir = tmp_path / "report"
    env = dict(os.environ)
    # a local llama.cpp server checks no key; the client may still want one to be set
    env["INFRABOT_LLM_API_KEY"] = "local-smoke-no-auth"
    tokens_before = _prompt_tokens(model_server)
    timeout_s = float(os.environ.get("INFRABOT_SMOKE_TIMEOUT_S", "1800"))
    command = [
        sys.executable,
        "-m",
        "bot.cli",
        "eval",
        *(str(p) for p in SCENARIOS.values()),
        "--model-url",
        model_server.base_url,
        "--model",
        model_server.model,
        "--runs",
        "1",
        "--report",
        str(report_dir),
    ]
    if call_timeout := os.environ.get("INFRABOT_SMOKE_MODEL_TIMEOUT_S"):
        command += ["--model-timeout", call_timeout]  # a slow CPU may need more than 30 s
    started = time.monotonic()
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    seconds = time.monotonic() - started
    # 0: every scenario passed; 1: a required one failed its checks (a small model may
    # answer badly: that is not what this tier tests); anything else is a crash or a usage
    # error, and so is a missing report
    assert done.returncode in (0, 1), f"exit {done.returncode}\n{done.stderr[-6000:]}"
    report_path = report_dir / "report.json"
    assert report_path.is_file(), f"no report.json\n{done.stderr[-6000:]}"
    report: dict[str, Any] = json.loads(report_path.read_text(encoding="utf-8"))
    summary = report["summary"]

    assert summary["mode"] == "model", summary
    assert summary["model"] == model_server.model, summary
    assert "error" not in summary, summary["error"]
    by_id = {s["id"]: s for s in report["scenarios"]}
    assert set(by_id) == set(SCENARIOS), sorted(by_id)
    for scenario_id, scenario in by_id.items():
        assert scenario["completed"], (scenario_id, _failures(scenario))
        assert len(scenario["runs"]) == 1, scenario_id
        for run in scenario["runs"]:
            assert run["completed"], (scenario_id, _failures(scenario))
            # per-run model metrics of the report: {"calls": N, ...}
            model = run.get("model")
            assert isinstance(model, dict), (scenario_id, sorted(run))
            assert model.get("calls", 0) > 0, (scenario_id, model)
    # and the calls reached this server and it read their prompts (not some other endpoint,
    # not all refused before the model saw them)
    assert _prompt_tokens(model_server) > tokens_before, "the server processed no prompt"
    print(
        f"\nreal inference smoke: {model_server.model}, {seconds:.0f}s, "
        + ", ".join(
            f"{sid}: passed={s['passed']} model={s['runs'][0]['model']}" for sid, s in by_id.items()
        )
    )


def _failures(scenario: dict[str, Any]) -> list[Any]:
    return [f for run in scenario["runs"] for f in run.get("failures", [])]
