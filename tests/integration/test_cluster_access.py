"""Real cluster access: how each connector authenticates, over real HTTP and TLS.

Kubernetes through the official client against the Kubernetes simulator, behind a small
gate that answers 401 unless the request carries an accepted bearer token (the simulator
itself checks none): in-cluster ServiceAccount with a rotating token file, a kubeconfig
with one context per environment, and a client certificate on a TLS server that demands
one. Metrics against a tiny Prometheus API that records the Authorization header. GitLab
against the GitLab simulator with a projects map. Certificates are made with the openssl
command for each run.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import yaml
from kubernetes.client.configuration import Configuration
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send
from structlog.testing import capture_logs

from bot.sockets import bind
from connectors import gitlab, kubernetes, victoriametrics
from evals.simulators import gitlab as gitlab_sim
from evals.simulators.faults import FaultPlan
from evals.simulators.kubernetes import build_app as kubernetes_app
from evals.simulators.querylog import QueryLog
from evals.simulators.server import BackgroundServer
from evals.world import World, load_world, world_from_data
from policy import CallContext, PolicyGate, TimeSpec, ToolResult, ToolSet
from policy import Scope as AskScope
from policy.errors import ConfigError

NOW = datetime.fromisoformat("2026-07-20T14:40:00+03:00")
EXAMPLES = Path(__file__).resolve().parents[2] / "evals" / "scenarios"


# -- certificates and servers --------------------------------------------------------


@dataclass(frozen=True)
class Certs:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path  # a CA that signed nothing here


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _ca(folder: Path, name: str) -> None:
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.crt", "-days", "2",
        "-subj", f"/CN=infrabot test {name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        "-addext", "subjectKeyIdentifier=hash",
        cwd=folder,
    )  # fmt: skip


def _leaf(folder: Path, name: str, usage: str, san: str | None) -> None:
    _openssl(
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=infrabot {name}",
        cwd=folder,
    )  # fmt: skip
    lines = [
        "basicConstraints=CA:FALSE",
        "keyUsage=critical,digitalSignature",
        f"extendedKeyUsage={usage}",
        "subjectKeyIdentifier=hash",
        "authorityKeyIdentifier=keyid,issuer",
        *([f"subjectAltName={san}"] if san else []),
    ]
    (folder / f"{name}.ext").write_text("\n".join(lines) + "\n")
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext",
        cwd=folder,
    )  # fmt: skip


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make test certificates")
    folder = tmp_path_factory.mktemp("pki")
    _ca(folder, "ca")
    _ca(folder, "other")
    _leaf(folder, "server", "serverAuth", "IP:127.0.0.1,DNS:localhost")
    _leaf(folder, "client", "clientAuth", None)
    return Certs(
        ca=folder / "ca.crt",
        server_cert=folder / "server.crt",
        server_key=folder / "server.key",
        client_cert=folder / "client.crt",
        client_key=folder / "client.key",
        other_ca=folder / "other.crt",
    )


@contextmanager
def tls_server(app: ASGIApp, certs: Certs, *, client_certs: bool = False) -> Iterator[int]:
    """uvicorn over TLS on 127.0.0.1 in a thread; the port. With `client_certs`, a client
    without a certificate signed by the test CA is refused in the handshake."""
    sock = bind("127.0.0.1", 0)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ssl_certfile=str(certs.server_cert),
        ssl_keyfile=str(certs.server_key),
        ssl_ca_certs=str(certs.ca),
        ssl_cert_reqs=ssl.CERT_REQUIRED if client_certs else ssl.CERT_NONE,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "TLS server did not start"
        time.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        # force: a kept-alive TLS connection would hold the stop for its close_notify
        server.should_exit = server.force_exit = True
        thread.join(10)
        assert not thread.is_alive(), "TLS server did not stop"


class BearerGate:
    """In front of a simulated API server: 401 Unauthorized (a Status, as the API server
    answers) unless the Authorization header carries an accepted token. Records each one."""

    def __init__(self, app: ASGIApp, *accepted: str) -> None:
        self.app = app
        self.accepted = set(accepted)
        self.seen: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"authorization", b"").decode()
            self.seen.append(header)
            if header not in {f"Bearer {token}" for token in self.accepted}:
                status = {"kind": "Status", "apiVersion": "v1", "status": "Failure"}
                body = {**status, "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
                await JSONResponse(body, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)


# -- Kubernetes -----------------------------------------------------------------------


def _deployment(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}},
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1},
    }


def two_clusters() -> World:
    """dc-a runs cart in shop, dc-b runs billing in pay: an answer shows which it read."""
    return world_from_data(
        {
            "environments": {"dc-a": ["kubernetes"], "dc-b": ["kubernetes"]},
            "kubernetes": {
                "dc-a": [_deployment("cart", "shop")],
                "dc-b": [_deployment("billing", "pay")],
            },
        }
    )


def k8s_app(world: World, env: str) -> ASGIApp:
    return kubernetes_app(world, env, FaultPlan([], stall_seconds=2), QueryLog())


def ctx(env: str = "dc-a", role: str = "engineer") -> CallContext:
    return CallContext(user="alice", role=role, scope=AskScope(env=env), now=NOW)


def workloads(result: ToolResult) -> set[str]:
    return {e.name for e in result.entities if e.kind == "deployment"}


async def inventory(gate: PolicyGate, env: str) -> ToolResult:
    return await gate.call("k8s.inventory", {"env": env}, ctx(env))


def service_account(folder: Path, certs: Certs, token: str, *, generation: int = 1) -> None:
    """The kubelet's layout of a projected ServiceAccount volume: token, ca.crt and
    namespace are links through `..data` to a timestamped directory, swapped atomically
    when the token rotates."""
    stamp = folder / f"..2026_07_20_1{generation}_00_00.000000000"
    stamp.mkdir(parents=True)
    (stamp / "token").write_text(token)
    shutil.copy(certs.ca, stamp / "ca.crt")
    (stamp / "namespace").write_text("infrabot\n")
    staged = folder / "..data_tmp"
    staged.symlink_to(stamp.name)
    os.replace(staged, folder / "..data")
    for name in ("token", "ca.crt", "namespace"):
        if not (folder / name).is_symlink():
            (folder / name).symlink_to(f"..data/{name}")


async def test_in_cluster_reads_the_service_account_and_a_rotated_token(
    certs: Certs, tmp_path: Path
) -> None:
    secrets = tmp_path / "serviceaccount"
    service_account(secrets, certs, "token-1")
    api = BearerGate(k8s_app(two_clusters(), "dc-a"), "token-1")
    with tls_server(api, certs) as port:
        # what the composition root does inside a pod: the kubelet's variables, passed in
        address = kubernetes.in_cluster_address(
            {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(port)}
        )
        target = kubernetes.KubernetesTarget(
            env="dc-a", in_cluster=True, serviceaccount_dir=str(secrets), **address._asdict()
        )
        assert target.api_url == f"https://127.0.0.1:{port}"
        tools = ToolSet(kubernetes.build_tools([target]))
        gate = PolicyGate(tools)

        first = await inventory(gate, "dc-a")
        assert first.status == "ok", first.error
        assert workloads(first) == {"cart"}  # verified against ca.crt, authorised by the token
        assert set(api.seen) == {"Bearer token-1"}

        api.accepted = {"token-2"}  # the API server moved on; the file still holds token-1
        stale = await inventory(gate, "dc-a")
        assert stale.status == "error" and stale.error_kind == "forbidden"

        service_account(secrets, certs, "token-2", generation=2)  # the kubelet rotates it
        api.seen.clear()
        rotated = await inventory(gate, "dc-a")
        assert rotated.status == "ok", rotated.error
        assert workloads(rotated) == {"cart"}
        assert set(api.seen) == {"Bearer token-2"}
        await tools.aclose()


def test_in_cluster_needs_the_service_address_and_the_token_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="KUBERNETES_SERVICE_HOST"):
        kubernetes.in_cluster_address({"KUBERNETES_SERVICE_PORT": "443"})
    with pytest.raises(ConfigError, match="KUBERNETES_SERVICE_PORT='https'"):
        kubernetes.in_cluster_address(
            {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "https"}
        )
    v6 = kubernetes.in_cluster_address(
        {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
    )
    (tmp_path / "ca.crt").write_text("x")
    missing = re.escape(f"serviceaccount_dir: no such file: {tmp_path}/token")
    with pytest.raises(ValueError, match=missing):
        kubernetes.KubernetesTarget(
            env="dc-a", in_cluster=True, serviceaccount_dir=str(tmp_path), **v6._asdict()
        )
    (tmp_path / "token").write_text("t")
    target = kubernetes.KubernetesTarget(
        env="dc-a", in_cluster=True, serviceaccount_dir=str(tmp_path), **v6._asdict()
    )
    assert target.api_url == "https://[fd00::1]:443"


def kubeconfig(path: Path, servers: dict[str, str], tokens: dict[str, str]) -> Path:
    """One cluster, user and context per environment, as `kubectl config` writes them."""
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "ctx-dc-b",
        "clusters": [
            {"name": f"cl-{env}", "cluster": {"server": url}} for env, url in servers.items()
        ],
        "users": [{"name": f"u-{env}", "user": {"token": tok}} for env, tok in tokens.items()],
        "contexts": [
            {
                "name": f"ctx-{env}",
                "context": {"cluster": f"cl-{env}", "user": f"u-{env}", "namespace": "default"},
            }
            for env in servers
        ],
    }
    path.write_text(yaml.safe_dump(doc))
    return path


async def test_kubeconfig_gives_each_env_its_own_context_cluster_and_credentials(
    tmp_path: Path,
) -> None:
    world = two_clusters()
    api_a = BearerGate(k8s_app(world, "dc-a"), "token-a")
    api_b = BearerGate(k8s_app(world, "dc-b"), "token-b")
    app = Starlette(routes=[Mount("/dc-a", app=api_a), Mount("/dc-b", app=api_b)])
    default_before = Configuration.get_default_copy().host
    with BackgroundServer(app) as server:
        path = kubeconfig(
            tmp_path / "config",
            {env: f"{server.base_url}/{env}" for env in ("dc-a", "dc-b")},
            {"dc-a": "token-a", "dc-b": "token-b"},
        )
        written = path.read_bytes()
        targets = [
            kubernetes.KubernetesTarget(env="dc-a", kubeconfig_path=str(path), context="ctx-dc-a"),
            kubernetes.KubernetesTarget(env="dc-b", kubeconfig_path=str(path)),  # current
        ]
        tools = ToolSet(kubernetes.build_tools(targets))
        gate = PolicyGate(tools)
        a, b = await inventory(gate, "dc-a"), await inventory(gate, "dc-b")
        await tools.aclose()
    assert a.status == "ok" and b.status == "ok", (a.error, b.error)
    assert workloads(a) == {"cart"} and workloads(b) == {"billing"}
    assert set(api_a.seen) == {"Bearer token-a"} and set(api_b.seen) == {"Bearer token-b"}
    # nothing was loaded into the SDK's process-wide default configuration
    assert Configuration.get_default_copy().host == default_before
    assert path.read_bytes() == written  # read, never written back


async def test_kubeconfig_context_with_inline_client_certificate_over_tls(
    certs: Certs, tmp_path: Path
) -> None:
    """As kubeadm writes admin.conf: CA, client certificate and key inline, base64."""

    def inline(path: Path) -> str:
        return base64.b64encode(path.read_bytes()).decode()

    with tls_server(k8s_app(two_clusters(), "dc-b"), certs, client_certs=True) as port:
        path = tmp_path / "admin.conf"
        cluster = {
            "server": f"https://127.0.0.1:{port}",
            "certificate-authority-data": inline(certs.ca),
        }
        user = {
            "client-certificate-data": inline(certs.client_cert),
            "client-key-data": inline(certs.client_key),
        }
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "dc-b", "cluster": cluster}],
            "users": [{"name": "admin", "user": user}],
            "contexts": [{"name": "admin@dc-b", "context": {"cluster": "dc-b", "user": "admin"}}],
            "current-context": "admin@dc-b",
        }
        path.write_text(yaml.safe_dump(doc))
        target = kubernetes.KubernetesTarget(env="dc-b", kubeconfig_path=str(path), timeout_s=5)
        tools = ToolSet(kubernetes.build_tools([target]))
        result = await inventory(PolicyGate(tools), "dc-b")
        await tools.aclose()
    assert result.status == "ok", result.error
    assert workloads(result) == {"billing"}


def test_kubeconfig_errors_name_the_field_and_the_context(tmp_path: Path) -> None:
    path = kubeconfig(tmp_path / "config", {"dc-a": "https://a.example"}, {"dc-a": "t"})
    with pytest.raises(ValueError, match=r"context: no context 'ctx-dc-x' in .*ctx-dc-a"):
        kubernetes.KubernetesTarget(env="dc-a", kubeconfig_path=str(path), context="ctx-dc-x")
    nope = re.escape(f"no such file: {tmp_path}/nope")
    with pytest.raises(ValueError, match=f"kubeconfig_path\n.*{nope}"):
        kubernetes.KubernetesTarget(env="dc-a", kubeconfig_path=str(tmp_path / "nope"))
    (tmp_path / "bad").write_text("token: s3cr3t-value: [unclosed\n")
    with pytest.raises(ValueError, match="could not be read as a kubeconfig") as bad:
        kubernetes.KubernetesTarget(env="dc-a", kubeconfig_path=str(tmp_path / "bad"))
    assert "s3cr3t" not in str(bad.value)


async def test_client_certificate_reaches_an_api_server_that_requires_one(certs: Certs) -> None:
    app = k8s_app(two_clusters(), "dc-a")
    with tls_server(app, certs, client_certs=True) as port:
        url = f"https://127.0.0.1:{port}"
        with_cert = kubernetes.KubernetesTarget(
            env="dc-a",
            url=url,
            ca_cert_path=str(certs.ca),
            client_cert_path=str(certs.client_cert),
            client_key_path=str(certs.client_key),
            timeout_s=5,
        )
        without = kubernetes.KubernetesTarget(
            env="dc-b", url=url, ca_cert_path=str(certs.ca), timeout_s=5
        )
        untrusted = kubernetes.KubernetesTarget(
            env="stage", url=url, ca_cert_path=str(certs.other_ca), timeout_s=5
        )
        tools = ToolSet(kubernetes.build_tools([with_cert, without, untrusted]))
        gate = PolicyGate(tools)
        ok = await inventory(gate, "dc-a")
        refused = await inventory(gate, "dc-b")
        unverified = await inventory(gate, "stage")
        await tools.aclose()
    assert ok.status == "ok", ok.error
    assert workloads(ok) == {"cart"}
    assert refused.status == "error" and refused.error_kind == "unavailable"
    assert unverified.status == "error" and unverified.error_kind == "unavailable"


# -- metrics ------------------------------------------------------------------------


class PromAPI:
    """The smallest Prometheus query API: one series for any query; records the
    Authorization header of each request; answers 401 to a token it was told to refuse."""

    def __init__(self, refuse: bool = False) -> None:
        self.headers: list[str | None] = []
        self.refuse = refuse
        self.app = Starlette(routes=[Route("/api/v1/{what:path}", self.answer)])

    async def answer(self, request: Request) -> Response:
        self.headers.append(request.headers.get("authorization"))
        if self.refuse:
            return JSONResponse({"status": "error", "error": "unauthorized"}, status_code=401)
        value = [NOW.timestamp(), "1"]
        data = {"resultType": "vector", "result": [{"metric": {"job": "api"}, "value": value}]}
        return JSONResponse({"status": "success", "data": data})


async def promql(target: victoriametrics.MetricsTarget) -> ToolResult:
    tools = ToolSet(victoriametrics.build_tools([target]))
    try:
        return await PolicyGate(tools).call(
            "metrics.promql",
            {"env": target.env, "query": 'up{job="api"}', "instant": True},
            ctx(target.env, role="admin"),
        )
    finally:
        await tools.aclose()


@pytest.mark.parametrize(
    ("auth", "header"),
    [
        ({"username": "reader", "password": "pa55"}, "Basic cmVhZGVyOnBhNTU="),
        ({"bearer_token": "vm-token"}, "Bearer vm-token"),
        ({}, None),
    ],
)
async def test_metrics_sends_the_configured_authorization(
    auth: dict[str, str], header: str | None
) -> None:
    api = PromAPI()
    with BackgroundServer(api.app) as server:
        result = await promql(
            victoriametrics.MetricsTarget(env="dc-a", url=server.base_url, **auth)
        )
    assert result.status == "ok", result.error
    assert result.facts[0].attrs.value == 1
    assert api.headers and set(api.headers) == {header}


async def test_metrics_over_tls_with_a_private_ca(certs: Certs) -> None:
    api = PromAPI()
    with tls_server(api.app, certs) as port:
        url = f"https://127.0.0.1:{port}"
        trusted = await promql(
            victoriametrics.MetricsTarget(env="dc-a", url=url, ca_cert_path=str(certs.ca))
        )
        other_ca = await promql(
            victoriametrics.MetricsTarget(env="dc-a", url=url, ca_cert_path=str(certs.other_ca))
        )
        unchecked = await promql(
            victoriametrics.MetricsTarget(env="dc-a", url=url, verify_tls=False)
        )
    assert trusted.status == "ok", trusted.error
    assert other_ca.status == "error" and other_ca.error_kind == "unavailable"
    assert "TLS certificate not verified" in (other_ca.error or "")
    assert unchecked.status == "ok", unchecked.error


async def test_metrics_secrets_stay_out_of_logs_reprs_and_errors() -> None:
    api = PromAPI(refuse=True)
    with BackgroundServer(api.app) as server:
        basic = victoriametrics.MetricsTarget(
            env="dc-a", url=server.base_url, username="reader", password="hunter2-basic"
        )
        bearer = victoriametrics.MetricsTarget(
            env="dc-a", url=server.base_url, bearer_token="hunter2-bearer"
        )
        with capture_logs() as logs:
            results = [await promql(basic), await promql(bearer)]
    assert [r.error_kind for r in results] == ["forbidden", "forbidden"]
    assert all("401" in (r.error or "") for r in results)
    shown = [repr(basic), str(basic), repr(bearer), json.dumps(logs, default=str)]
    shown += [r.model_dump_json() for r in results]
    with pytest.raises(ValueError) as both:
        victoriametrics.MetricsTarget(
            env="dc-a", url="http://vm", bearer_token="hunter2-bearer", username="u",
            password="hunter2-basic",
        )  # fmt: skip
    shown.append(str(both.value))
    assert "bearer_token and username/password" in str(both.value)
    for text in shown:
        assert "hunter2" not in text


# -- GitLab -------------------------------------------------------------------------


@contextmanager
def gitlab_gate(world: World, **settings: Any) -> Iterator[tuple[PolicyGate, QueryLog]]:
    log = QueryLog()
    app = gitlab_sim.build_app(world, FaultPlan([], stall_seconds=2), log)
    with BackgroundServer(Starlette(routes=[Mount("/gitlab", app=app)])) as server:
        target = gitlab.GitLabTarget(url=server.base_url + "/gitlab", timeout_s=3, **settings)
        yield PolicyGate(ToolSet(gitlab.build_tools(target, ["dc-a", "dc-b", "stage"]))), log


def _yesterday(service: str) -> dict[str, Any]:
    return {
        "service": service,
        "env": "dc-b",
        "start": "2026-07-20T00:00:00+03:00",
        "end": "2026-07-21T00:00:00+03:00",
    }


def _gitlab_ctx(service: str) -> CallContext:
    at = datetime.fromisoformat("2026-07-20T12:00:00+03:00")
    scope = AskScope(
        env="dc-b", object=service, time=TimeSpec(at=at, window="PT24H", mode="historical")
    )
    return CallContext(
        user="alice",
        role="engineer",
        scope=scope,
        now=datetime.fromisoformat("2026-07-21T10:15:00+03:00"),
    )


async def test_gitlab_projects_map_reads_the_mapped_project_without_a_search() -> None:
    # the service is called checkout in the cluster; its GitLab project is orders/service-c
    world = load_world(EXAMPLES / "who-deployed-roles.yaml")
    with gitlab_gate(world, projects={"checkout": "orders/service-c"}) as (gate, log):
        mapped = await gate.call(
            "gitlab.release_timeline", _yesterday("checkout"), _gitlab_ctx("checkout")
        )
        mapped_reads = log.records()
        log.clear()
        searched = await gate.call(
            "gitlab.release_timeline", _yesterday("service-c"), _gitlab_ctx("service-c")
        )
        searched_reads = log.records()
    assert mapped.status == "ok", mapped.error
    jobs = [f.attrs.job_id for f in mapped.facts if f.kind == "ci.job" and f.attrs.in_scope]
    assert jobs == [5523817]
    assert ("project", "orders/service-c") in {(e.kind, e.name) for e in mapped.entities}
    assert any(r.path.endswith("/projects/orders%2Fservice-c") for r in mapped_reads)
    assert not any("search" in r.params for r in mapped_reads)
    # a service not in the map is still found by its name
    assert searched.status == "ok", searched.error
    assert any(r.params.get("search") == "service-c" for r in searched_reads)


async def test_gitlab_mapped_project_that_is_gone_is_a_gap_naming_it() -> None:
    world = load_world(EXAMPLES / "who-deployed-roles.yaml")
    with gitlab_gate(world, projects={"service-c": "orders/renamed"}) as (gate, log):
        result = await gate.call(
            "gitlab.release_timeline", _yesterday("service-c"), _gitlab_ctx("service-c")
        )
    assert result.status == "error" and result.error_kind == "not_found"
    assert "orders/renamed" in (result.error or "")
    assert not any("search" in r.params for r in log.records())  # never a silent fallback
