"""The real alerting pipeline for the alert tests: vmalert (Debian's victoria-metrics
package) evaluating rules over a world's VictoriaMetrics, Debian's prometheus-alertmanager
routing what fires to `infrabot serve`'s webhook.

`alert_stack(vm_url, rules, webhook_url, token)` starts both and stops them after. Their
logs are kept in the given directory for a failing test to show.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

ALERTMANAGER = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
VMALERT = shutil.which("vmalert")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class AlertStack:
    alertmanager_url: str
    vmalert_url: str
    logs: Path

    def tail(self) -> str:
        out = []
        for name in ("alertmanager.log", "vmalert.log"):
            text = (self.logs / name).read_text(errors="replace")
            out.append(f"--- {name}\n{text[-3000:]}")
        return "\n".join(out)

    def alerts(self) -> list[dict[str, Any]]:
        """The alerts Alertmanager holds now (its API v2)."""
        got = httpx.get(f"{self.alertmanager_url}/api/v2/alerts", timeout=5)
        return list(got.json())


def _wait_ready(url: str, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} not ready: {log.read_text(errors='replace')[-2000:]}")


def _started(binary: str, args: list[str], directory: Path, ready: str) -> subprocess.Popen[bytes]:
    """The program running with its output in <directory>/<name>.log, once `ready` answers."""
    name = "alertmanager" if binary == ALERTMANAGER else "vmalert"
    log = directory / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, *args], stdout=out, stderr=subprocess.STDOUT)
    _wait_ready(ready, proc, name, log)
    return proc


@contextmanager
def alert_stack(
    directory: Path,
    *,
    vm_url: str,
    rules: dict[str, Any],
    webhook_url: str,
    token: str,
    group_by: list[str],
) -> Iterator[AlertStack]:
    assert ALERTMANAGER is not None and VMALERT is not None
    am_port, vma_port = _port(), _port()
    config = {
        "route": {
            "receiver": "infrabot",
            "group_by": group_by,
            "group_wait": "1s",
            "group_interval": "2s",
            "repeat_interval": "3s",
        },
        "receivers": [
            {
                "name": "infrabot",
                "webhook_configs": [
                    {
                        "url": webhook_url,
                        "send_resolved": True,
                        "http_config": {"authorization": {"type": "Bearer", "credentials": token}},
                    }
                ],
            }
        ],
    }
    (directory / "alertmanager.yml").write_text(yaml.safe_dump(config))
    (directory / "rules.yml").write_text(yaml.safe_dump(rules))
    (directory / "am-data").mkdir()
    procs: list[subprocess.Popen[bytes]] = []
    am_url, vma_url = f"http://127.0.0.1:{am_port}", f"http://127.0.0.1:{vma_port}"
    try:
        alertmanager = [
            f"--config.file={directory / 'alertmanager.yml'}",
            f"--storage.path={directory / 'am-data'}",
            f"--web.listen-address=127.0.0.1:{am_port}",
            "--cluster.listen-address=",
        ]
        procs.append(_started(ALERTMANAGER, alertmanager, directory, f"{am_url}/-/ready"))
        vmalert = [
            f"-rule={directory / 'rules.yml'}",
            f"-datasource.url={vm_url}",
            f"-notifier.url={am_url}",
            "-evaluationInterval=1s",
            f"-httpListenAddr=127.0.0.1:{vma_port}",
            "-external.url=http://vmalert.example:8880",
        ]
        procs.append(_started(VMALERT, vmalert, directory, f"{vma_url}/health"))
        yield AlertStack(am_url, vma_url, directory)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
