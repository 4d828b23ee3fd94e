"""Real nginx in front of a tiny upstream whose 302 headers do not fit proxy_buffer_size.

The access and error lines nginx really writes are shipped into Elasticsearch documents
the way a log shipper would (the error line's *connection, client, server, request,
upstream and host parsed into fields, @timestamp from the line), and `logs.request_trace`
must find the 502, tie the real error line to it and classify it as too_big_header.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from connectors.elasticsearch import ElasticsearchTarget, build_tools
from evals.simulators.host import WorldSimulators
from evals.world import world_from_data
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolSet

NGINX = Path("/usr/sbin/nginx")
pytestmark = [
    pytest.mark.nginx,
    pytest.mark.skipif(
        not NGINX.exists(), reason="needs Debian's nginx at /usr/sbin/nginx (apt-get install nginx)"
    ),
]

LOCATION = "https://acs.bank.example.net/3ds/v2/challenge?creq=" + "A" * 8000
ERROR_RE = re.compile(
    r"^(?P<time>\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \[(?P<level>\w+)\] (?P<pid>\d+)#\d+: "
    r"\*(?P<connection>\d+) (?P<text>.*)$"
)
FIELD_RE = re.compile(r', (client|server|request|upstream|host): ("(?:[^"\\]|\\.)*"|[^,]*)')
ACCESS_FORMAT = (
    '{"@timestamp":"$time_iso8601","request_id":"$request_id","status":$status,'
    '"upstream_status":"$upstream_status","connection":$connection,"host":"$host",'
    '"path":"$request_uri","method":"$request_method","upstream_addr":"$upstream_addr",'
    '"request_time":$request_time,"edge_node":"$hostname"}'
)


class _Upstream(BaseHTTPRequestHandler):
    """Answers 302 with a ~8 KB Location, and logs like the application would."""

    app_log: list[dict[str, Any]]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        # logged before it answers: the test reads the log as soon as nginx has answered
        self.app_log.append(
            {
                "@timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "level": "INFO",
                "service": "checkout",
                "request_id": self.headers.get("X-Request-ID"),
                "message": f"POST {self.path} 302",
                "http": {"method": "POST", "path": self.path, "status": 302},
                "response": {"location_bytes": len(LOCATION)},
            }
        )
        self.send_response(302)
        self.send_header("Location", LOCATION)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def upstream() -> Iterator[tuple[int, list[dict[str, Any]]]]:
    log: list[dict[str, Any]] = []
    handler = type("Upstream", (_Upstream,), {"app_log": log})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], log
    server.shutdown()
    server.server_close()


@pytest.fixture
def nginx(tmp_path: Path, upstream: tuple[int, list]) -> Iterator[tuple[int, Path]]:
    port = _free_port()
    for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / name).mkdir()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"""
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log error;
events {{ worker_connections 64; }}
http {{
    log_format edge_json escape=json '{ACCESS_FORMAT}';
    access_log off;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi;
    uwsgi_temp_path {tmp_path}/uwsgi;
    scgi_temp_path {tmp_path}/scgi;
    server {{
        listen 127.0.0.1:{port};
        server_name pay.example.com;
        access_log {tmp_path}/access.log edge_json;
        location / {{
            proxy_pass http://127.0.0.1:{upstream[0]};
            proxy_buffer_size 1k;
            proxy_set_header X-Request-ID $request_id;
        }}
    }}
}}
"""
    )
    proc = subprocess.Popen(
        [
            str(NGINX),
            "-p",
            str(tmp_path),
            "-c",
            str(conf),
            "-e",
            str(tmp_path / "startup.log"),
            "-g",
            "daemon off;",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                startup = (
                    (tmp_path / "startup.log").read_text()
                    if (tmp_path / "startup.log").exists()
                    else ""
                )
                pytest.fail(f"nginx did not start: {out} {startup}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("nginx did not open its port")
                time.sleep(0.05)
        yield port, tmp_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def ship_error_line(line: str, edge_node: str) -> dict[str, Any]:
    """What a log shipper makes of one nginx error line."""
    match = ERROR_RE.match(line)
    assert match, line
    local = datetime.strptime(match["time"], "%Y/%m/%d %H:%M:%S").astimezone()
    doc: dict[str, Any] = {
        "@timestamp": local.isoformat(),
        "edge_node": edge_node,
        "level": match["level"],
        "pid": int(match["pid"]),
        "connection": int(match["connection"]),
        "message": line,
    }
    for name, value in FIELD_RE.findall(match["text"]):
        doc[name] = value[1:-1] if value.startswith('"') else value
    return doc


async def test_real_nginx_too_big_header_is_traced(nginx, upstream):
    port, logs_dir = nginx
    resp = httpx.post(
        f"http://127.0.0.1:{port}/checkout/confirm",
        headers={"Host": "pay.example.com"},
        content=b"order=ORD-1",
    )
    assert resp.status_code == 502
    deadline = time.monotonic() + 5
    while not (logs_dir / "access.log").exists() or not (logs_dir / "access.log").read_text():
        assert time.monotonic() < deadline, "nginx wrote no access line"
        time.sleep(0.05)
    access = [json.loads(x) for x in (logs_dir / "access.log").read_text().splitlines()]
    error_lines = [x for x in (logs_dir / "error.log").read_text().splitlines() if "*" in x]
    assert any("upstream sent too big header" in x for x in error_lines), error_lines
    (record,) = access
    assert record["status"] == 502
    errors = [ship_error_line(x, record["edge_node"]) for x in error_lines]
    world = world_from_data(
        {
            "environments": {"dc-a": ["logs"]},
            "logs": {
                "dc-a": {
                    "edge-access-real": access,
                    "edge-error-real": errors,
                    "app-real": upstream[1],
                }
            },
        }
    )
    with WorldSimulators(world) as sims:
        target = ElasticsearchTarget(
            env="dc-a",
            url=sims.endpoints.envs["dc-a"].logs,
            edge_access_index="edge-access-*",
            edge_error_index="edge-error-*",
            app_index="app-*",
            timeout_s=5,
        )
        gate = PolicyGate(ToolSet(build_tools([target])))
        now = datetime.now(UTC) + timedelta(seconds=2)
        ctx = CallContext(
            user="alice",
            role="engineer",
            scope=Scope(env="dc-a", time=TimeSpec(mode="now")),
            now=now,
        )
        result = await gate.call(
            "logs.request_trace", {"env": "dc-a", "request_id": record["request_id"]}, ctx
        )
    assert result.evidence == {
        "edge.access_log": "found",
        "edge.error_log": "found",
        "app.log": "found",
    }
    (edge,) = [f for f in result.facts if f.kind == "edge.access"]
    assert edge.attrs.status == 502 and edge.attrs.connection == record["connection"]
    (error,) = [f for f in result.facts if f.kind == "edge.error"]
    assert error.attrs.error_class == "too_big_header"
    assert "upstream sent too big header while reading response header from upstream" in (
        error.text
    )
    assert error.attrs.message in error_lines
    (app,) = [f for f in result.facts if f.kind == "app.response"]
    assert app.attrs.status == 302
    assert f"Location header {len(LOCATION)} bytes" in app.text
