"""A broken configuration stops start-up naming the key and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import ConfigFileError, load_config, parse_config, secret_from_env
from bot.wiring import build_gate
from policy.scope import Scope
from policy.toolset import CallContext

GOOD = {
    "timezone": "Europe/Moscow",
    "environments": {
        "dc-a": {
            "kubernetes": {"url": "https://k8s.dc-a.example:6443", "token_env": "K8S_A"},
            "metrics": {"url": "http://vm.dc-a:8428"},
        },
    },
    "admins": ["bob"],
}


def test_good_config_loads_and_roles_come_from_admins() -> None:
    cfg = parse_config(GOOD)
    assert cfg.role_of("bob") == "admin" and cfg.role_of("alice") == "engineer"


@pytest.mark.parametrize(
    ("patch", "key"),
    [
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"environments": {}}, "environments"),
        (
            {"environments": {"dc-a": {"metrics": {"url": "x", "timeout_s": -1}}}},
            "environments.dc-a.metrics.timeout_s",
        ),
        ({"environments": {"dc-a": {"kubernetes": {}}}}, "environments.dc-a.kubernetes"),
        (
            {"environments": {"dc-a": {"kubernetes": {"url": "https://k", "in_cluster": True}}}},
            "environments.dc-a.kubernetes",
        ),
        (
            {"environments": {"dc-a": {"metrics": {"url": "https://m", "username": "u"}}}},
            "environments.dc-a.metrics",
        ),
        (
            {"environments": {"dc-a": {"logs": {"url": "https://e", "layouts": {"x": 1}}}}},
            "environments.dc-a.logs.layouts.x",
        ),
        (
            {
                "environments": {
                    "dc-a": {"logs": {"url": "https://e", "layouts": {"x": {"preset": "nginxx"}}}}
                }
            },
            "environments.dc-a.logs.layouts.x.preset",
        ),
        ({"admin": ["bob"]}, "admin"),
    ],
)
def test_bad_config_names_the_key(patch: dict, key: str) -> None:
    with pytest.raises(ConfigFileError) as err:
        parse_config({**GOOD, **patch})
    assert key in str(err.value)


def test_unreadable_and_invalid_yaml_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("environments: [\n")
    with pytest.raises(ConfigFileError, match="invalid YAML"):
        load_config(bad)


def test_secrets_come_from_the_named_environment_variable_only() -> None:
    assert secret_from_env("K8S_A", {"K8S_A": "s3cr3t"}).get_secret_value() == "s3cr3t"  # type: ignore[union-attr]
    assert secret_from_env("K8S_A", {}) is None
    assert secret_from_env(None, {"K8S_A": "x"}) is None


def test_configured_sources_become_admitted_tools_per_env() -> None:
    from datetime import UTC, datetime

    gate = build_gate(parse_config(GOOD), environ={})
    ctx = CallContext(user="alice", role="engineer", scope=Scope(), now=datetime.now(UTC))
    names = {c.name for c in gate.contracts(ctx)}
    assert any(n.startswith("k8s.") for n in names)
    assert any(n.startswith("metrics.") for n in names)
    assert not any(n.startswith("logs.") for n in names)  # no log source configured
    for c in gate.contracts(ctx):
        if "env" in c.enums:
            assert c.enums["env"] == ["dc-a"]


def test_the_readme_config_example_loads(tmp_path: Path) -> None:
    """The configuration the README shows is a configuration the bot accepts."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```yaml\ntimezone:", 1)[1].split("```", 1)[0]
    text = "timezone:" + block.replace("  dc-b: {...}\n", "")
    path = tmp_path / "infrabot.yaml"
    path.write_text(text, encoding="utf-8")
    cfg = load_config(path)
    assert cfg.gitlab is not None and cfg.gitlab.max_projects == 20


def test_gitlab_settings_reach_the_connector() -> None:
    from datetime import UTC, datetime

    cfg = parse_config(
        {**GOOD, "gitlab": {"url": "https://gl.example", "ssl_verify": False, "max_projects": 5}}
    )
    gate = build_gate(cfg, environ={})
    ctx = CallContext(user="alice", role="engineer", scope=Scope(), now=datetime.now(UTC))
    assert "gitlab.env_releases" in {c.name for c in gate.contracts(ctx)}
    with pytest.raises(ConfigFileError, match=r"gitlab\.max_projects"):
        parse_config({**GOOD, "gitlab": {"url": "https://gl.example", "max_projects": 0}})


def test_access_settings_reach_every_connector(tmp_path: Path) -> None:
    """What an operator writes for real cluster access arrives in each target, with the
    secrets read from the named variables only."""
    from bot.wiring import build_targets

    sa = tmp_path / "sa"
    sa.mkdir()
    for name, text in (("token", "t0k"), ("ca.crt", "x"), ("namespace", "infrabot")):
        (sa / name).write_text(text)
    cfg = parse_config(
        {
            **GOOD,
            "environments": {
                "dc-a": {
                    "kubernetes": {"in_cluster": True, "serviceaccount_dir": str(sa)},
                    "metrics": {"url": "https://vm.a", "username": "ro", "password_env": "VM_PW"},
                    "logs": {
                        "url": "https://es.a",
                        "username": "reader",
                        "password_env": "ES_PW",
                        "edge_access_index": "filebeat-*",
                        "layouts": {"filebeat-*": {"preset": "ecs"}},
                    },
                },
            },
        }
    )
    environ = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443",
               "VM_PW": "s3cret", "ES_PW": "pw"}  # fmt: skip
    targets = build_targets(cfg, environ)
    (metrics,) = targets.metrics
    assert metrics.username == "ro" and metrics.password.get_secret_value() == "s3cret"
    (logs,) = targets.logs
    assert logs.edge_access_index == "filebeat-*" and logs.configured("edge_access_index")
    assert not logs.configured("app_index")  # left out: found by discovery
    assert logs.layouts["filebeat-*"].preset == "ecs"
    assert logs.password is not None and logs.password.get_secret_value() == "pw"
    (k8s,) = targets.kubernetes
    assert k8s.in_cluster and k8s.service_host == "10.0.0.1" and k8s.service_port == 443
    with pytest.raises(ConfigFileError, match="in_cluster"):
        parse_config({**GOOD, "environments": {"dc-a": {"kubernetes": {
            "in_cluster": True, "kubeconfig_path": "/k"}}}})  # fmt: skip


def test_a_key_given_twice_is_refused_with_both_lines(tmp_path: Path) -> None:
    """`admins: [bob]` then `admins: [mallory]` must not load as mallory."""
    path = tmp_path / "infrabot.yaml"
    path.write_text(
        "environments:\n  dc-a: {}\nadmins: [bob]\ntimezone: UTC\nadmins: [mallory]\n",
        encoding="utf-8",
    )
    with pytest.raises(
        ConfigFileError, match=r"duplicate key 'admins' at line 5 \(first at line 3\)"
    ):
        load_config(path)
