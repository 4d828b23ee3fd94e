"""Least privilege twice: the Helm chart's ClusterRole only reads, and never Secrets."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

RBAC = Path(__file__).resolve().parents[2] / "deploy/helm/infrabot/templates/rbac.yaml"


def _cluster_role() -> dict:
    lines = [ln for ln in RBAC.read_text().splitlines() if not ln.strip().startswith("{{")]
    text = re.sub(r"\{\{.*?\}\}", "x", "\n".join(lines))
    docs = [d for d in yaml.safe_load_all(text) if d]
    return next(d for d in docs if d["kind"] == "ClusterRole")


def test_cluster_role_has_only_read_verbs() -> None:
    for rule in _cluster_role()["rules"]:
        assert set(rule["verbs"]) <= {"get", "list", "watch"}, rule


def test_cluster_role_never_reads_secrets_or_execs() -> None:
    resources = {r for rule in _cluster_role()["rules"] for r in rule["resources"]}
    assert not resources & {"secrets", "pods/exec", "pods/attach", "pods/portforward", "*"}
