"""The Kubernetes API reads this connector makes, as RBAC rules: what a ServiceAccount
for infrabot must be granted, and nothing more.

Derived from the connector's own resource table (`_client._RESOURCES`: every list it
makes; `_GETTABLE`: every get; the pod log subresource), so the deployment's ClusterRole
(deploy/) is checked against what the code reads and the two cannot drift. Read verbs
only, never Secrets; the audit API (`auditevents`, served only by clusters that expose an
audit backend through the API) only when asked for.
"""

from __future__ import annotations

from connectors.kubernetes._client import _GETTABLE, _RESOURCES, AUDIT_PLURAL


def _group(path: str) -> str:
    """`/api/v1` -> "" (the core group); `/apis/apps/v1` -> "apps"."""
    parts = path.strip("/").split("/")
    return "" if parts[0] == "api" else parts[1]


def read_rules(*, audit_api: bool = False) -> list[dict[str, list[str]]]:
    """ClusterRole rules, one per (API group, verbs), resources sorted: the exact reads."""
    by_group: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for resource, (path, _namespaced) in _RESOURCES.items():
        if resource == AUDIT_PLURAL and not audit_api:
            continue
        verbs = ("get", "list") if resource in _GETTABLE else ("list",)
        by_group.setdefault((_group(path), verbs), set()).add(resource)
    by_group.setdefault(("", ("get",)), set()).add("pods/log")
    return [
        {"apiGroups": [group], "resources": sorted(resources), "verbs": list(verbs)}
        for (group, verbs), resources in sorted(by_group.items())
    ]


def _main() -> None:
    """`python -m connectors.kubernetes.rbac [--with-audit]`: the rules as YAML."""
    import sys

    import yaml

    print(yaml.safe_dump(read_rules(audit_api="--with-audit" in sys.argv[1:]), sort_keys=False))


if __name__ == "__main__":
    _main()
