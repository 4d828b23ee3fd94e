"""The resource catalogue of the simulated API server: what is served where, and the
discovery and `Status` documents the official client expects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AUDIT_GROUP = "audit.infrabot.dev"
SIM_USER = "system:serviceaccount:infrabot:infrabot-reader"


@dataclass(frozen=True)
class ResourceType:
    group: str  # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """`deployments.apps`, as the API server names a resource in messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


BUILTIN: tuple[ResourceType, ...] = (
    ResourceType("", "v1", "Pod", "pods", True, ("po",)),
    ResourceType("", "v1", "Service", "services", True, ("svc",)),
    ResourceType("", "v1", "Endpoints", "endpoints", True, ("ep",)),
    ResourceType("", "v1", "Event", "events", True, ("ev",)),
    ResourceType("", "v1", "Node", "nodes", False, ("no",)),
    ResourceType("", "v1", "Namespace", "namespaces", False, ("ns",)),
    ResourceType("", "v1", "ResourceQuota", "resourcequotas", True, ("quota",)),
    ResourceType("", "v1", "LimitRange", "limitranges", True, ("limits",)),
    ResourceType("", "v1", "ConfigMap", "configmaps", True, ("cm",)),
    ResourceType("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True, ("pvc",)),
    ResourceType("", "v1", "PersistentVolume", "persistentvolumes", False, ("pv",)),
    ResourceType("", "v1", "ServiceAccount", "serviceaccounts", True, ("sa",)),
    ResourceType("apps", "v1", "Deployment", "deployments", True, ("deploy",)),
    ResourceType("apps", "v1", "ReplicaSet", "replicasets", True, ("rs",)),
    ResourceType("apps", "v1", "StatefulSet", "statefulsets", True, ("sts",)),
    ResourceType("apps", "v1", "DaemonSet", "daemonsets", True, ("ds",)),
    ResourceType("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True),
    ResourceType("events.k8s.io", "v1", "Event", "events", True, ("ev",)),
    ResourceType("networking.k8s.io", "v1", "Ingress", "ingresses", True, ("ing",)),
    ResourceType("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True, ("netpol",)),
    ResourceType(
        "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", True, ("hpa",)
    ),
    ResourceType("batch", "v1", "Job", "jobs", True),
    ResourceType("batch", "v1", "CronJob", "cronjobs", True, ("cj",)),
)
AUDIT = ResourceType(AUDIT_GROUP, "v1", "AuditEvent", "auditevents", True)

# Field selectors the real API server accepts, per plural (plus metadata.name/namespace).
FIELD_LABELS: dict[str, frozenset[str]] = {
    "pods": frozenset(
        {
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        }
    ),
    "events": frozenset(
        {
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        }
    ),
    "nodes": frozenset({"spec.unschedulable"}),
    "namespaces": frozenset({"status.phase"}),
    "replicasets": frozenset({"status.replicas"}),
    "jobs": frozenset({"status.successful"}),
}
FIELD_ALIASES = {"source": "source.component"}


def _plural_of(kind: str) -> str:
    low = kind.lower()
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return low[:-1] + "ies"
    if low.endswith(("s", "x", "ch", "sh")):
        return low + "es"
    return low + "s"


def split_api_version(api_version: str) -> tuple[str, str]:
    if "/" in api_version:
        group, version = api_version.split("/", 1)
        return group, version
    return "", api_version


def catalogue(objects: list[dict[str, Any]], with_audit: bool) -> list[ResourceType]:
    """The built-in types, the audit API if served, and any other kind the world uses."""
    types = list(BUILTIN)
    known = {(t.group, t.version, t.kind) for t in types}
    for obj in objects:
        group, version = split_api_version(str(obj.get("apiVersion", "")))
        kind = str(obj.get("kind", ""))
        if (group, version, kind) not in known and kind:
            known.add((group, version, kind))
            namespaced = bool((obj.get("metadata") or {}).get("namespace"))
            types.append(ResourceType(group, version, kind, _plural_of(kind), namespaced))
    if with_audit:
        types.append(AUDIT)
    return types


def _group_versions(types: list[ResourceType]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in types:
        if t.group and t.version not in out.setdefault(t.group, []):
            out[t.group].append(t.version)
    return out


def api_versions() -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "sim:6443"}],
    }


def _group_doc(group: str, versions: list[str]) -> dict[str, Any]:
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": entries, "preferredVersion": entries[0]}


def api_group_list(types: list[ResourceType]) -> dict[str, Any]:
    groups = [_group_doc(g, vs) for g, vs in _group_versions(types).items()]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(types: list[ResourceType], group: str) -> dict[str, Any] | None:
    versions = _group_versions(types).get(group)
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group_doc(group, versions)}


def resource_list(types: list[ResourceType], group: str, version: str) -> dict[str, Any] | None:
    selected = [t for t in types if t.group == group and t.version == version]
    if not selected:
        return None
    resources: list[dict[str, Any]] = []
    for t in selected:
        resources.append(
            {
                "name": t.plural,
                "singularName": t.kind.lower(),
                "namespaced": t.namespaced,
                "kind": t.kind,
                "verbs": ["get", "list"],
                "shortNames": list(t.short_names),
            }
        )
        if t.plural == "pods" and not t.group:
            resources.append(
                {
                    "name": "pods/log",
                    "singularName": "",
                    "namespaced": True,
                    "kind": "Pod",
                    "verbs": ["get"],
                }
            )
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": resources,
    }


def version_info() -> dict[str, str]:
    return {
        "major": "1",
        "minor": "30",
        "gitVersion": "v1.30.4-infrabot-sim",
        "platform": "linux/amd64",
    }


def status(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A `Status` body exactly as the API server sends it with an error code."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": details or {},
        "code": code,
    }


def not_found(rtype: ResourceType, name: str) -> dict[str, Any]:
    details = {"name": name, "kind": rtype.plural}
    if rtype.group:
        details["group"] = rtype.group
    return status(404, "NotFound", f'{rtype.qualified} "{name}" not found', details)


def no_such_resource() -> dict[str, Any]:
    return status(404, "NotFound", "the server could not find the requested resource")


def forbidden(
    resource: str, group: str, verb: str, namespace: str | None, name: str = ""
) -> dict[str, Any]:
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    head = f"{resource}{'.' + group if group else ''}"
    head += f' "{name}"' if name else ""
    message = (
        f'{head} is forbidden: User "{SIM_USER}" cannot {verb} resource "{resource}" '
        f'in API group "{group}" {where}'
    )
    details: dict[str, Any] = {"kind": resource}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    return status(403, "Forbidden", message, details)
