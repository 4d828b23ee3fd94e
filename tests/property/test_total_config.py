"""The configuration loader is total: any mutation of a valid configuration (the README's,
with every section filled) either loads or is refused with `ConfigFileError` naming the
file and the key path; never a raw TypeError, OSError or ZoneInfo error."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from bot.config_errors import ConfigFileError
from bot.settings import InfrabotConfig, load_config, parse_config
from tests.property._data import (
    apply_text,
    mutated,
    names_a_path,
    scratch_dir,
    text_mutations,
    vocabulary_of,
)
from tests.property._tier import TIER

NAME = "infrabot.yaml"

# the README's configuration (tests/unit/test_settings.py loads it), every section given
VALID: dict[str, Any] = {
    "timezone": "Europe/Moscow",
    "environments": {
        "dc-a": {
            "aliases": ["dca", "дц-а"],
            "kubernetes": {
                "url": "https://k8s.dc-a.example:6443",
                "token_env": "INFRABOT_K8S_DC_A_TOKEN",
                "ca_cert_path": "/etc/infrabot/dc-a-ca.pem",
                "timeout_s": 10,
            },
            "metrics": {
                "url": "http://vm.dc-a.example:8428",
                "grafana_url": "https://grafana.example/explore?left={left}",
                "username": "infrabot",
                "password_env": "INFRABOT_VM_PASSWORD",
            },
            "logs": {
                "url": "https://es.dc-a.example:9200",
                "api_key_env": "INFRABOT_ES_DC_A_KEY",
                "edge_access_index": "edge-access-*",
                "audit_index": "k8s-audit-*",
                "layouts": {"filebeat-*": {"preset": "ecs", "fields": {"status": ["code"]}}},
                "search_indices": ["syslog-*"],
                "max_hits": 500,
            },
        },
        "dc-b": {
            "kubernetes": {"in_cluster": True},
            "metrics": {"url": "http://vm.dc-b.example:8428", "bearer_token_env": "VM_B"},
        },
        "stage": {"kubernetes": {"kubeconfig_path": "/etc/kube/config", "context": "stage"}},
    },
    "gitlab": {
        "url": "https://gitlab.example.com",
        "token_env": "INFRABOT_GITLAB_TOKEN",
        "max_projects": 20,
        "projects": {"service-a": "payments/service-a"},
    },
    "mcp_servers": [{"name": "wiki", "url": "https://mcp.example.com", "token_env": "MCP"}],
    "admins": ["bob"],
    "allowed_link_hosts": ["wiki.example.com", "gitlab.example.com"],
    "models": {"planner": {"base_url": "http://vllm:8000/v1", "model": "qwen2.5-72b"}},
    "memory": {"ttl_minutes": 90, "max_entries": 20, "max_prompt_bytes": 12288},
    "mattermost": {"url": "https://mm.example.com", "team": "sre", "channels": ["incidents"]},
    "web": {"host": "127.0.0.1", "port": 8080},
    "limits": {"max_rounds": 3, "turn_deadline_s": 90, "facts_per_source": 12},
}
VOCABULARY = vocabulary_of(VALID) | set(InfrabotConfig.model_fields)


def assert_refusal(err: ConfigFileError, name: str, touched: list[tuple[Any, ...]] | None) -> None:
    """Refused naming the file on every problem, and, for a document that loaded as YAML
    (`touched` given), a key path on every problem and one of the keys that were changed.
    Either layout: a header and "  key: reason" lines, or "file[:line]: key: reason"."""
    text = str(err)
    assert text.startswith(name), f"the file is not named: {text[:300]}"
    header = f"{name}: invalid configuration"
    if text.startswith(header):
        problems = [p[2:] for p in re.split(r"\n(?=  )", text)[1:]]
        assert problems, f"no problem listed: {text[:300]}"
    else:  # a key that holds a line break continues its problem on the next line
        problems = re.split(rf"\n(?={re.escape(name)})", text)
        starts = re.compile(rf"{re.escape(name)}(?::\d+)?: ")
        assert all(starts.match(p) for p in problems), f"a problem without the file: {text[:300]}"
        problems = [starts.sub("", p, count=1) for p in problems]
    if touched is not None:
        for problem in problems:
            key, sep, reason = problem.partition(": ")
            assert key and sep and reason, f"a problem without a key: {problem[:300]!r}"
        assert names_a_path(text, touched), f"none of {touched} named in: {text[:600]}"


def assert_usable(config: InfrabotConfig) -> None:
    """What start-up does next with a loaded configuration must not fail either."""
    ZoneInfo(config.timezone)
    assert config.environments
    assert all(name and isinstance(name, str) for name in config.environments)


def test_the_valid_configuration_loads() -> None:
    assert_usable(parse_config(VALID))


@TIER
@given(case=mutated(VALID, VOCABULARY))
# found by this property: ZoneInfo raises IsADirectoryError for "Europe" and OSError for a
# long name, which the timezone validator does not catch
@example(case=({**VALID, "timezone": "Europe"}, [("timezone",)]))
@example(case=({**VALID, "timezone": "a" * 300}, [("timezone",)]))
@example(case=(["environments"], [()]))  # not a mapping at all: named as the top level
# found by this property (slow tier): a key that starts with a dot loses it in the message
# (".timezone" is reported as "timezone: unknown key; did you mean timezone?")
@example(case=({**VALID, ".timezone": "UTC"}, [(".timezone",)]))
def test_a_mutated_configuration_loads_or_names_the_key(
    case: tuple[dict[str, Any], list[tuple[Any, ...]]],
) -> None:
    doc, touched = case
    try:
        config = parse_config(doc, NAME)
    except ConfigFileError as err:
        assert_refusal(err, NAME, touched)
        if not isinstance(doc, dict):
            assert "(top level)" in str(err), str(err)
    else:
        assert_usable(config)


_DIR = Path(tempfile.mkdtemp(prefix="infrabot-config-prop-", dir=scratch_dir()))


# the configuration as an operator writes it: block style, the README's flow mappings
VALID_TEXT = yaml.dump(VALID, Dumper=yaml.CSafeDumper, allow_unicode=True, sort_keys=False)
FLOW_TEXT = yaml.dump(VALID, Dumper=yaml.CSafeDumper, allow_unicode=True, default_flow_style=None)


@TIER
@given(
    base=st.sampled_from([VALID_TEXT, FLOW_TEXT]),
    edits=st.lists(text_mutations(), min_size=1, max_size=3),
)
@example(base=VALID_TEXT, edits=[("? [k]\n: v\n", 0, 0)])  # an unhashable key: TypeError
@example(base=VALID_TEXT, edits=[("", 3, 1)])  # a repeated line: a duplicate key
def test_a_configuration_file_loads_or_is_refused_naming_the_file(
    base: str, edits: list[tuple[str, int, int]]
) -> None:
    """The text level: broken YAML, repeated keys, tabs, NULs, anchors, tags; the data
    level is the property above (its documents are what this YAML would load as)."""
    text = base
    for edit in edits:
        text = apply_text(text, edit)
    path = _DIR / "infrabot.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        config = load_config(path)
    except ConfigFileError as err:
        assert_refusal(err, str(path), None)
    else:
        assert_usable(config)
