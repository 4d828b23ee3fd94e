"""`infrabot doctor` against sources that cannot be reached, each in the way an operator meets
in the first hour (class "a connection error that says what failed"): a refused port, a
name that does not resolve, a server that never answers, a certificate the CA does not
verify; and Mattermost's login, team, channels and websocket. Each line names the URL
(never its credentials) and the kind, and the same words reach an answer's gaps."""

from __future__ import annotations

import datetime as dt
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bot.cli import main
from evals.simulators.server import BackgroundServer
from tests.e2e.mattermost_sim import MattermostSim


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def silent() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    yield int(server.getsockname()[1])
    server.close()


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "vm.internal.test")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("vm.internal.test")]), False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "vm.pem", tmp_path / "vm.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def untrusted(tmp_path: Path) -> Iterator[int]:
    """A TLS server whose certificate is its own (signed by no CA anyone gave)."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1024)
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join(timeout=2)
    server.close()


def _doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict[str, Any]
) -> tuple[int, dict[str, dict[str, Any]]]:
    path = tmp_path / "infrabot.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    code = main(["doctor", "--json", "--config", str(path)])
    probes = json.loads(capsys.readouterr().out)
    return code, {f"{p['source']}/{p['env']}": p for p in probes}


def test_each_way_a_source_cannot_be_reached_is_named_with_its_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], silent: int, untrusted: int
) -> None:
    refused = _free_port()
    config = {
        "environments": {
            "e1": {"metrics": {"url": f"http://127.0.0.1:{refused}"}},
            "e2": {"metrics": {"url": "http://vm.no-such-host.invalid:8428"}},
            "e3": {"metrics": {"url": f"http://127.0.0.1:{silent}", "timeout_s": 1}},
            "e4": {"metrics": {"url": f"https://127.0.0.1:{untrusted}", "timeout_s": 3}},
        }
    }
    code, probes = _doctor(tmp_path, capsys, config)
    assert code == 1
    assert probes["metrics/e1"]["detail"] == (
        f"VictoriaMetrics in e1: cannot connect to http://127.0.0.1:{refused}: connection refused"
    )
    assert (
        "cannot connect to http://vm.no-such-host.invalid:8428: name not resolved"
        in (probes["metrics/e2"]["detail"])
    )
    assert probes["metrics/e3"]["detail"] == (
        f"VictoriaMetrics in e3 (http://127.0.0.1:{silent}) did not answer within 1 s"
    )
    tls = probes["metrics/e4"]
    assert (
        f"cannot connect to https://127.0.0.1:{untrusted}: TLS certificate not verified"
        in (tls["detail"])
    )
    assert any(
        m.startswith("TLS: its certificate (CN=vm.internal.test, issued by CN=vm.internal.test)")
        and "is not trusted (self-signed certificate)" in m
        for m in tls["missing"]
    ), tls["missing"]


def test_a_credential_in_a_url_never_shows(tmp_path: Path) -> None:
    from connectors.kit.unreachable import unreachable_said

    said = unreachable_said(
        "https://bot:hunter2@es.example:9200/x?api_key=abc", ConnectionRefusedError()
    )
    assert said == "cannot connect to https://es.example:9200/x: connection refused"


@pytest.fixture
def mattermost() -> Iterator[MattermostSim]:
    sim = MattermostSim(team_name="ops")
    for name in ("infrabot", "alice"):
        sim.add_user(name)
    sim.add_channel("incidents", ["infrabot", "alice"])
    sim.add_channel("random", ["alice"])
    with BackgroundServer(sim.app) as server:
        sim.base_url = server.base_url  # type: ignore[attr-defined]
        yield sim


def test_mattermost_login_team_channels_and_websocket_are_checked(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mattermost: MattermostSim,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = mattermost.base_url  # type: ignore[attr-defined]
    config = {
        "environments": {"lab": {}},
        "mattermost": {"url": url, "team": "ops", "channels": ["incidents", "random"]},
    }
    monkeypatch.setenv("INFRABOT_MM_TOKEN", mattermost.token_for("infrabot"))
    code, probes = _doctor(tmp_path, capsys, config)
    mm = probes["mattermost/None"]
    assert code == 0 and mm["status"] == "incomplete"
    assert mm["found"] == [
        "logged in as infrabot",
        "team ops",
        "channel incidents (the bot is a member)",
        "websocket authenticated",
    ]
    assert mm["missing"] == ["channel random: the bot is not a member (add it to the channel)"]
    monkeypatch.setenv("INFRABOT_MM_TOKEN", "not-a-token")
    code, probes = _doctor(tmp_path, capsys, config)
    refused = probes["mattermost/None"]
    assert code == 1 and refused["detail"].startswith(f"{url}: login failed")


def test_the_alert_routes_channels_are_checked_too(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mattermost: MattermostSim,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A route's channel that does not exist, or an alert post channel the bot is not in,
    would leave alerts unposted or unread: doctor names each."""
    url = mattermost.base_url  # type: ignore[attr-defined]
    config = {
        "environments": {"lab": {}},
        "mattermost": {
            "url": url,
            "team": "ops",
            "channels": ["incidents"],
            "alert_post_channels": [{"channel": "random"}],
        },
        "alerts": {
            "auth": {"token_env": "INFRABOT_ALERT_TOKEN"},
            "routes": [{"channel": "incidents"}, {"channel": "pager"}],
        },
    }
    monkeypatch.setenv("INFRABOT_MM_TOKEN", mattermost.token_for("infrabot"))
    monkeypatch.setenv("INFRABOT_ALERT_TOKEN", "t")
    _, probes = _doctor(tmp_path, capsys, config)
    mm = probes["mattermost/None"]
    assert "channel incidents (the bot is a member)" in mm["found"]
    assert mm["missing"][0].startswith("channel pager:")
    assert mm["missing"][1] == "channel random: the bot is not a member (add it to the channel)"


def test_an_answer_gives_the_same_reason_as_a_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], silent: int
) -> None:
    """What `doctor` says of a source that does not answer, an answer's gap says too."""
    refused = _free_port()
    config = {
        "environments": {
            "e1": {"metrics": {"url": f"http://127.0.0.1:{refused}"}},
            "e2": {"metrics": {"url": f"http://127.0.0.1:{silent}", "timeout_s": 1}},
        }
    }
    path = tmp_path / "infrabot.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    code = main(
        ["ask", "--json", "--config", str(path), "what is the p95 latency of web in e1 and e2?"]
    )
    answer = json.loads(capsys.readouterr().out)
    assert code == 0
    reasons = " ".join(g["reason"] for g in answer["gaps"])
    assert f"cannot connect to http://127.0.0.1:{refused}: connection refused" in reasons
    assert f"http://127.0.0.1:{silent}" in reasons and "within 1 s" in reasons
