"""A broken configuration stops start-up naming the key and the reason."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.config_errors import ConfigFileError
from bot.settings import load_config, parse_config, secret_from_env
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
        # a proxy identity with no proxy address would believe any client's header
        ({"web": {"identity": {"mode": "proxy"}}}, "web.identity"),
        (
            {"web": {"identity": {"mode": "proxy", "trusted_proxies": ["10.0.0.0/33"]}}},
            "web.identity.trusted_proxies",
        ),
        ({"web": {"identity": {"mode": "oauth"}}}, "web.identity.mode"),
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

    gate = build_gate(parse_config(GOOD), environ={"K8S_A": "t"})
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
    gate = build_gate(cfg, environ={"K8S_A": "t"})
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


# --- every error names the file and the key path ------------------------------------------

VALID: dict[str, Any] = {
    "timezone": "Europe/Moscow",
    "environments": {
        "dc-a": {
            "aliases": ["dca"],
            "kubernetes": {
                "url": "https://k8s.dc-a.example:6443",
                "token_env": "K8S_A",
                "timeout_s": 10,
                "link_template": "https://dash.example/#/{kind}/{namespace}/{name}?c={env}",
            },
            "metrics": {
                "url": "http://vm.dc-a.example:8428",
                "grafana_url": "https://grafana.example/explore?left={left}",
                "username": "infrabot",
                "password_env": "VM_PW",
            },
            "logs": {
                "url": "https://es.dc-a.example:9200",
                "api_key_env": "ES_KEY",
                "kibana_url": "https://kibana.example",
                "discover_url_template": "{kibana_url}/app/discover#/?q={query}",
                "layouts": {"edge-access-*": {"preset": "nginx", "fields": {"status": ["st"]}}},
            },
        },
        "dc-b": {"kubernetes": {"url": "https://[2001:db8::1]:6443", "link_template": None}},
    },
    "gitlab": {"url": "https://gitlab.example.com", "token_env": "GL", "projects": {"a": "g/a"}},
    "mcp_servers": [{"name": "wiki", "url": "https://mcp.example/mcp", "token_env": "MCP"}],
    "admins": ["bob"],
    "allowed_link_hosts": ["wiki.example.com"],
    "models": {
        "planner": {"base_url": "http://vllm:8000/v1", "model": "qwen", "timeout_s": 30},
        "finalizer": {"base_url": "https://llm.example/v1", "model": "qwen"},
    },
    "memory": {"ttl_minutes": 90, "max_entries": 20},
    "mattermost": {
        "url": "https://mm.example.com",
        "team": "sre",
        "channels": ["incidents"],
        "leases": {"namespace": "bots", "duration_s": 15},
    },
    "web": {"host": "127.0.0.1", "port": 8080},
    "limits": {"max_rounds": 3, "turn_deadline_s": 90},
}

SECRETS = {"K8S_A": "t0k", "VM_PW": "pw", "ES_KEY": "k3y", "GL": "gl", "MCP": "m"}
Path_ = tuple[str | int, ...]
DROP = object()


def broken(path: Path_, value: object) -> dict[str, Any]:
    """VALID with the key at `path` set to `value` (or removed, for DROP)."""
    data = copy.deepcopy(VALID)
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    if value is DROP:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


def dump(data: object) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def start(path: Path) -> tuple[Any, Any]:
    """What start-up does with a file: load it and build every source from it; the
    configuration and the sources' targets."""
    from bot.wiring import build_models, build_targets

    config = load_config(path)
    targets = build_targets(config, environ=SECRETS)
    build_models(config, environ=SECRETS)
    return config, targets


def start_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "infrabot.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigFileError) as caught:
        start(path)
    message = str(caught.value)
    for noise in ("Traceback", "errors.pydantic.dev", "For further information", "[type=",
                  "input_value", "Settings", "InfrabotConfig", "Target"):  # fmt: skip
        assert noise not in message, message
    for line in message.splitlines():
        assert line.startswith(f"{path}:"), f"a line without the file: {line!r}"
    return message


def test_the_valid_config_starts(tmp_path: Path) -> None:
    path = tmp_path / "infrabot.yaml"
    path.write_text(dump(VALID), encoding="utf-8")
    config, targets = start(path)
    # every configured source became a target of its env
    for kind in ("kubernetes", "metrics", "logs"):
        configured = {n for n, e in VALID["environments"].items() if kind in e}
        assert {t.env for t in getattr(targets, kind)} == configured, kind
    assert set(config.environments) == set(VALID["environments"])


def _k8s(key: str) -> Path_:
    return ("environments", "dc-a", "kubernetes", key)


def _vm(key: str) -> Path_:
    return ("environments", "dc-a", "metrics", key)


def _es(key: str) -> Path_:
    return ("environments", "dc-a", "logs", key)


BROKEN: list[tuple[Path_, object, str, str]] = [
    # (key, the value it gets, the key path the error names, words of the reason)
    (("timezone",), 5, "timezone", "valid string"),
    (("timezone",), "Mars/Olympus", "timezone", "unknown timezone"),
    (("timezone",), "Europe", "timezone", "unknown timezone"),  # a directory of tzdata
    (("timezone",), "a" * 300, "timezone", "unknown timezone"),  # too long a file name
    (("admin",), ["bob"], "admin", "did you mean admins?"),
    ((".timezone",), "UTC", ".timezone", "did you mean timezone?"),  # the key's own dot kept
    (
        ("sources",),
        {},
        "sources",
        "unknown key; the keys here are admins, alerts, allowed_link_hosts",
    ),
    (_vm("timeout"), 3, "environments.dc-a.metrics.timeout", "did you mean timeout_s?"),
    (_k8s("tokn_env"), "X", "environments.dc-a.kubernetes.tokn_env", "did you mean token_env?"),
    (("mcp_servers", 0, "tokn"), "X", "mcp_servers[0].tokn", "unknown key"),
    (("web", "bind"), "0.0.0.0", "web.bind", "unknown key"),
    (("memory", "ttl"), 1, "memory.ttl", "unknown key"),
    (("limits", "rounds"), 1, "limits.rounds", "unknown key"),
    (("models", "planner", "key"), "x", "models.planner.key", "unknown key"),
    (("mattermost", "token"), "x", "mattermost.token", "unknown key"),
    (("gitlab", "token"), "x", "gitlab.token", "did you mean token_env?"),
    (("environments",), DROP, "environments", "required, but not given"),
    (_vm("url"), DROP, "environments.dc-a.metrics.url", "required"),
    (_es("url"), DROP, "environments.dc-a.logs.url", "required"),
    (("gitlab", "url"), DROP, "gitlab.url", "required"),
    (("mcp_servers", 0, "name"), DROP, "mcp_servers[0].name", "required"),
    (("models", "planner", "model"), DROP, "models.planner.model", "required"),
    (("mattermost", "team"), DROP, "mattermost.team", "required"),
    (_k8s("timeout_s"), -1, "environments.dc-a.kubernetes.timeout_s", "greater than 0"),
    (_vm("timeout_s"), -1, "environments.dc-a.metrics.timeout_s", "greater than 0"),
    (_es("timeout_s"), -0.5, "environments.dc-a.logs.timeout_s", "greater than 0"),
    (("gitlab", "timeout_s"), 0, "gitlab.timeout_s", "greater than 0"),
    (("models", "planner", "timeout_s"), -30, "models.planner.timeout_s", "greater than 0"),
    (("limits", "turn_deadline_s"), -1, "limits.turn_deadline_s", "greater than 0"),
    (("limits", "inventory_ttl_s"), -1, "limits.inventory_ttl_s", "greater than or equal to 0"),
    (_es("timeout_s"), "soon", "environments.dc-a.logs.timeout_s", "valid number"),
    (_es("max_hits"), 0, "environments.dc-a.logs.max_hits", "greater than or equal to 1"),
    (("gitlab", "max_projects"), 1000, "gitlab.max_projects", "less than or equal to 100"),
    (("web", "port"), "http", "web.port", "valid integer"),
    (("web", "port"), 70000, "web.port", "less than or equal to 65535"),
    (("memory", "ttl_minutes"), 0, "memory.ttl_minutes", "greater than or equal to 1"),
    (("limits", "max_rounds"), 0, "limits.max_rounds", "greater than or equal to 1"),
    (("environments",), {}, "environments", "at least one environment"),
    (("environments",), ["dc-a"], "environments", "mapping"),
    (("environments", "dc a"), {}, "environments.dc a", "use letters, digits"),
    (("environments", "DC-A"), {}, "environments.DC-A", "the same environment as 'dc-a'"),
    (
        ("environments", "dc-b", "aliases"),
        ["DCA"],
        "environments.dc-b.aliases",
        "'DCA' already names environment 'dc-a'",
    ),
    (
        ("environments", "dc-b", "aliases"),
        ["dc-a"],
        "environments.dc-b.aliases",
        "'dc-a' already names environment 'dc-a'",
    ),
    (("environments", "dc-a", "aliases"), "dca", "environments.dc-a.aliases", "valid list"),
    (("admins",), "bob", "admins", "valid list"),
    (("mattermost", "channels"), "incidents", "mattermost.channels", "valid list"),
    (("mcp_servers",), {"name": "x"}, "mcp_servers", "valid list"),
    (("environments", "dc-a", "kubernetes"), "k8s", "environments.dc-a.kubernetes", "mapping"),
    (("memory",), [], "memory", "mapping"),
    (("models", "planner"), "qwen", "models.planner", "mapping"),
    (_k8s("verify_tls"), "maybe", "environments.dc-a.kubernetes.verify_tls", "valid boolean"),
    (
        ("environments", "dc-a", "logs", "layouts", "edge-access-*", "preset"),
        "nginxx",
        "environments.dc-a.logs.layouts.edge-access-*.preset",
        "'nginx'",
    ),
    (
        ("environments", "dc-a", "logs", "layouts", "edge-access-*", "fields", "statuz"),
        ["x"],
        "environments.dc-a.logs.layouts.edge-access-*.fields.statuz",
        "not a known key",
    ),
    (
        ("environments", "dc-a", "logs", "layouts", "edge-access-*", "fields", "status"),
        "st",
        "environments.dc-a.logs.layouts.edge-access-*.fields.status",
        "valid list",
    ),
    (_k8s("in_cluster"), True, "environments.dc-a.kubernetes", "give exactly one of url"),
    (_vm("password_env"), DROP, "environments.dc-a.metrics", "username and password_env"),
    (_es("username"), "reader", "environments.dc-a.logs", "username and password_env"),
    # checks the connectors make when start-up builds the sources
    (_k8s("ca_cert_path"), "/nowhere/ca.pem", _k8s("ca_cert_path"), "no such file"),
    (_k8s("client_cert_path"), "/nowhere/c.pem", _k8s("client_cert_path"), "no such file"),
    (_vm("ca_cert_path"), "/nowhere/ca.pem", "environments.dc-a.metrics.ca_cert_path", "no such"),
    (
        _vm("grafana_url"),
        "https://g.example/?q={promql}",
        "environments.dc-a.metrics.grafana_url",
        "unknown placeholder",
    ),
    (
        _k8s("link_template"),
        "https://dash.example/{cluster}",
        "environments.dc-a.kubernetes.link_template",
        "link_template may use only",
    ),
    (
        _es("discover_url_template"),
        "{kibana_url}/{nope}",
        "environments.dc-a.logs",
        "unknown placeholder",
    ),
    (
        ("environments", "dc-b", "kubernetes"),
        {"in_cluster": True},
        "environments.dc-b.kubernetes.in_cluster",
        "KUBERNETES_SERVICE_HOST",
    ),
    (("gitlab", "projects"), {"a": " "}, "gitlab.projects", "is not a project path"),
]


def _dotted(path: Path_ | str) -> str:
    if isinstance(path, str):
        return path
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


@pytest.mark.parametrize(
    ("path", "value", "key", "why"), BROKEN, ids=[_dotted(r[2]) for r in BROKEN]
)
def test_every_error_names_the_file_and_the_key_path(
    tmp_path: Path, path: Path_, value: object, key: Path_ | str, why: str
) -> None:
    message = start_error(tmp_path, dump(broken(path, value)))
    assert f": {_dotted(key)}: " in message, message
    assert why in message, message


# every URL setting, and where its secret goes instead of into the URL
URL_KEYS: list[tuple[Path_, str]] = [
    (_k8s("url"), "token_env"),
    (_k8s("link_template"), "leave credentials out"),
    (_vm("url"), "password_env, or bearer_token_env"),
    (_vm("grafana_url"), "leave credentials out"),
    (_es("url"), "password_env, or api_key_env"),
    (_es("kibana_url"), "leave credentials out"),
    (_es("discover_url_template"), "leave credentials out"),
    (("gitlab", "url"), "token_env"),
    (("mcp_servers", 0, "url"), "token_env"),
    (("models", "planner", "base_url"), "api_key_env"),
    (("models", "finalizer", "base_url"), "api_key_env"),
    (("mattermost", "url"), "INFRABOT_MM_TOKEN"),
    (("mattermost", "leases", "url"), "token_env"),
]

BAD_URLS: list[tuple[str, str]] = [
    ("file:///etc/passwd", "scheme 'file' is not allowed; use http or https"),
    ("gopher://127.0.0.1:6379/_FLUSHALL", "scheme 'gopher' is not allowed"),
    ("ftp://files.example/x", "scheme 'ftp' is not allowed"),
    ("data:text/html,<script>alert(1)</script>", "scheme 'data' is not allowed"),
    ("javascript:alert(document.cookie)", "scheme 'javascript' is not allowed"),
    ("ws://mm.example.com/api/v4/websocket", "scheme 'ws' is not allowed"),
    ("https://", "no host"),
    ("https:///path", "no host"),
    ("vm.example:8428", "no scheme"),
    ("/api/v1", "no scheme"),
    ("https://host.example:99999", "port"),
    ("https://host.example/a b", "spaces"),
    ("https://[::1", "not a URL"),
]


def test_the_url_table_covers_every_url_setting() -> None:
    """A URL setting added to the settings without a row in URL_KEYS fails here."""
    from bot import config_errors, settings

    every = {
        (model.__name__, name)
        for model in vars(settings).values()
        if isinstance(model, type) and issubclass(model, settings.BaseModel)
        for name in model.model_fields
        if "url" in name or name == "link_template"
    }
    tested = set()
    for path, _ in URL_KEYS:
        model = config_errors._model_at(path[:-1], settings.InfrabotConfig)
        assert model is not None, path
        tested.add((model.__name__, path[-1]))
    assert tested == every


@pytest.mark.parametrize(("url", "why"), BAD_URLS)
@pytest.mark.parametrize(("path", "secret"), URL_KEYS, ids=[_dotted(p) for p, _ in URL_KEYS])
def test_a_bad_url_names_its_key(
    tmp_path: Path, path: Path_, secret: str, url: str, why: str
) -> None:
    message = start_error(tmp_path, dump(broken(path, url)))
    assert f": {_dotted(path)}: " in message, message
    assert why in message, message


@pytest.mark.parametrize(
    "url", ["https://reader:hunter2@host.example", "http://hunter2@host.example:80/x"]
)
@pytest.mark.parametrize(("path", "secret"), URL_KEYS, ids=[_dotted(p) for p, _ in URL_KEYS])
def test_credentials_in_a_url_are_refused_naming_the_secret_setting(
    tmp_path: Path, path: Path_, secret: str, url: str
) -> None:
    message = start_error(tmp_path, dump(broken(path, url)))
    assert f": {_dotted(path)}: credentials in the URL are not allowed" in message, message
    assert secret in message, message
    assert "hunter2" not in message and "reader" not in message


@pytest.mark.parametrize(
    ("path", "url"),
    [
        (_k8s("url"), "http://127.0.0.1:6443"),
        (_k8s("url"), "HTTPS://K8S.example"),
        (_k8s("link_template"), "k8s://{env}/{namespace}/{kind}/{name}"),
        (_k8s("link_template"), "{url}/api/v1/namespaces/{namespace}"),
        (_vm("grafana_url"), "https://{env}.grafana.example/explore?left={left}"),
        (_es("discover_url_template"), "{url}/_plugin/discover?q={query}"),
        (_es("url"), "https://[2001:db8::9]:9200/prefix"),
        (("models", "planner", "base_url"), "http://localhost:11434/v1"),
    ],
)
def test_good_urls_start(tmp_path: Path, path: Path_, url: str) -> None:
    path_ = tmp_path / "infrabot.yaml"
    path_.write_text(dump(broken(path, url)), encoding="utf-8")
    config, _ = start(path_)
    # the URL is kept as given (a scheme is only lower-cased)
    node: Any = config
    for part in path:
        node = node[part] if isinstance(node, dict) else getattr(node, str(part))
    assert str(node).lower() == url.lower()


@pytest.mark.parametrize(
    ("text", "where", "why"),
    [
        ("", "(top level)", "the configuration is empty"),
        ("- dc-a\n", "(top level)", "should be a mapping of settings"),
        ("just text\n", "(top level)", "should be a mapping of settings"),
        (
            "environments:\n  dc-a: {}\n  dc-b: {}\n  dc-a: {aliases: [x]}\n",
            "environments.dc-a",
            "duplicate key 'dc-a' at line 4 (first at line 2)",
        ),
        (
            "environments:\n  dc-a:\n    metrics: {url: 'http://a', url: 'http://b'}\n",
            "environments.dc-a.metrics.url",
            "duplicate key 'url' at line 3 (first at line 3)",
        ),
        (
            "environments: {dc-a: {}}\nmcp_servers:\n  - name: a\n    url: https://m\n"
            "    name: b\n",
            "mcp_servers[0].name",
            "duplicate key 'name' at line 5 (first at line 3)",
        ),
        ("? [k]\n: v\nenvironments: {dc-a: {}}\n", "", "invalid YAML: a key is a list"),
        ("environments: [\n", "", "invalid YAML"),
        ("environments:\n  dc-a: {\n", "", "invalid YAML"),
    ],
)
def test_file_level_errors_name_the_file(tmp_path: Path, text: str, where: str, why: str) -> None:
    message = start_error(tmp_path, text)
    assert why in message, message
    assert where in message, message


def test_an_error_names_the_line_that_sets_the_key(tmp_path: Path) -> None:
    text = (
        "environments:\n"
        "  dc-a:\n"
        "    metrics:\n"
        "      url: http://vm\n"
        "      timeout_s: -1\n"
        "    kubernetes:\n"
        "      url: https://k8s\n"
        "      ca_cert_path: /nowhere/ca.pem\n"
        "admin: [bob]\n"
    )
    message = start_error(tmp_path, text)
    assert "infrabot.yaml:5: environments.dc-a.metrics.timeout_s: " in message
    assert "infrabot.yaml:9: admin: unknown key; did you mean admins?" in message
    text = text.replace("      timeout_s: -1\n", "").replace("admin:", "admins:")
    message = start_error(tmp_path, text)  # found when the sources are built
    assert "infrabot.yaml:7: environments.dc-a.kubernetes.ca_cert_path: no such file" in message


def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "infrabot.yaml"
    path.write_bytes(b"timezone: \xff\xfe\n")
    with pytest.raises(ConfigFileError, match=r"infrabot\.yaml: not UTF-8 text"):
        load_config(path)


def test_an_unset_password_variable_is_named(tmp_path: Path) -> None:
    """`username` with `password_env` naming a variable that is not set: the error names
    the variable (not "give both username and password, or neither")."""
    from bot.wiring import build_targets

    path = tmp_path / "infrabot.yaml"
    path.write_text(dump(VALID), encoding="utf-8")
    config = load_config(path)
    with pytest.raises(ConfigFileError) as caught:
        build_targets(config, environ={k: v for k, v in SECRETS.items() if k != "VM_PW"})
    assert str(caught.value).startswith(f"{path}:")
    assert "environments.dc-a.metrics.password_env: the variable VM_PW is not set" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("variable", "key"),
    [
        ("K8S_A", "environments.dc-a.kubernetes.token_env"),
        ("ES_KEY", "environments.dc-a.logs.api_key_env"),
        ("GL", "gitlab.token_env"),
        ("MCP", "mcp_servers[0].token_env"),
    ],
)
@pytest.mark.parametrize("value", [None, ""])
def test_a_secret_variable_unset_or_empty_stops_start_up_naming_key_and_variable(
    tmp_path: Path, variable: str, key: str, value: str | None
) -> None:
    """Class "requests go out without credentials and come back as 401 gaps": a `*_env`
    key the file gives whose variable is unset or empty is a start-up error."""
    from bot.wiring import build_mcp_servers, build_targets

    path = tmp_path / "infrabot.yaml"
    path.write_text(dump(VALID), encoding="utf-8")
    config = load_config(path)
    environ = {k: v for k, v in SECRETS.items() if k != variable}
    if value is not None:
        environ[variable] = value
    with pytest.raises(ConfigFileError) as caught:
        build_targets(config, environ=environ)
        build_mcp_servers(config, environ=environ)
    assert f"{key}: the variable {variable} is not set or is empty" in str(caught.value)
    assert str(caught.value).startswith(f"{path}:")


def test_a_model_key_variable_the_file_names_is_required_the_default_one_is_not(
    tmp_path: Path,
) -> None:
    """A local model server takes no key: the default variable unset sends none; a
    variable the file names for it must be set."""
    from bot.wiring import build_models

    path = tmp_path / "infrabot.yaml"
    path.write_text(dump(VALID), encoding="utf-8")
    assert build_models(load_config(path), environ={}) is not None
    named = broken(("models", "finalizer", "api_key_env"), "LLM_KEY")
    path.write_text(dump(named), encoding="utf-8")
    with pytest.raises(
        ConfigFileError, match=r"models\.finalizer\.api_key_env: the variable LLM_KEY"
    ):
        build_models(load_config(path), environ={})


def test_the_models_section_sets_each_roles_model_limits_and_fallback() -> None:
    """`models.planner.timeout_s`, `max_tokens` and `models.finalizer` are used, not only
    accepted: each role gets its own limits, and the finalizer model writes the prose
    first and is the planner's fallback."""
    from bot.wiring import build_models
    from planner.model.roles import ModelRole

    data = copy.deepcopy(GOOD)
    data["models"] = {
        "planner": {"base_url": "http://vllm:8000/v1", "model": "small", "timeout_s": 12},
        "finalizer": {
            "base_url": "http://vllm:8000/v1",
            "model": "large",
            "timeout_s": 45,
            "max_tokens": 600,
        },
        "max_tool_schemas": 6,
        "synthesis_reserve_s": 4,
    }
    models = build_models(parse_config(data), environ={})
    assert models is not None
    assert [m.name for m in models.order(ModelRole.PLANNER)] == ["small", "large"]
    assert [m.name for m in models.order(ModelRole.FINALIZER)] == ["large", "small"]
    assert models.limits_of(ModelRole.PLANNER).timeout_s == 12
    assert models.limits_of(ModelRole.FINALIZER).timeout_s == 45
    assert models.limits_of(ModelRole.FINALIZER).max_tokens == 600
    assert models.limits_of(ModelRole.RERANK).timeout_s <= 12
    assert (models.max_tool_schemas, models.synthesis_reserve_s) == (6, 4)
    assert build_models(parse_config(GOOD), environ={}) is None


def test_two_mcp_servers_whose_tools_would_share_a_prefix_are_refused() -> None:
    data = copy.deepcopy(GOOD)
    data["mcp_servers"] = [
        {"name": "my-ops", "url": "https://mcp.example/a"},
        {"name": "my_ops", "url": "https://mcp.example/b"},
    ]
    with pytest.raises(ConfigFileError) as err:
        parse_config(data)
    assert "mcp_servers[1].name" in str(err.value) and "mcp.my_ops" in str(err.value)
