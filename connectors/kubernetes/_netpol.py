"""The NetworkPolicies that select a workload's pods, read with its state: who their
rules admit and where they let the pods go. A connection that times out to a healthy
dependency is often a policy applied between the two; the planner compares the rules
with the caller's labels."""

from __future__ import annotations

from typing import Any

from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, meta, name_of
from policy.errors import SourceError
from policy.facts import K8sNetworkPolicy, PolicyPeer
from policy.results import ResultFact
from policy.toolset import CallContext


def selects(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """A LabelSelector against a set of labels (an empty selector selects everything)."""
    selector = selector or {}
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        key, op = str(expr.get("key")), str(expr.get("operator"))
        values = {str(v) for v in expr.get("values") or []}
        ok = {
            "In": labels.get(key) in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }.get(op, False)
        if not ok:
            return False
    return True


def _peers(items: list[dict[str, Any]], side: str) -> list[list[PolicyPeer]]:
    rules: list[list[PolicyPeer]] = []
    for rule in items:
        peers = []
        for peer in rule.get(side) or []:
            ns_sel = peer.get("namespaceSelector")
            pod_sel = peer.get("podSelector")
            block = (peer.get("ipBlock") or {}).get("cidr")
            peers.append(
                PolicyPeer(
                    pod_labels=(pod_sel or {}).get("matchLabels") if pod_sel is not None else None,
                    namespace_labels=(ns_sel or {}).get("matchLabels") or None,
                    any_namespace=ns_sel is not None and not (ns_sel or {}).get("matchLabels"),
                    ip_block=str(block) if block else None,
                )
            )
        rules.append(peers)
    return rules


def _said(rules: list[list[PolicyPeer]] | None) -> str:
    if rules is None:
        return "any"
    if not rules:
        return "nothing"
    parts = []
    for rule in rules:
        if not rule:
            return "any"
        for p in rule:
            bits = []
            if p.namespace_labels:
                bits.append(
                    "namespaces " + ",".join(f"{k}={v}" for k, v in p.namespace_labels.items())
                )
            elif p.any_namespace:
                bits.append("any namespace")
            if p.pod_labels:
                bits.append("pods " + ",".join(f"{k}={v}" for k, v in p.pod_labels.items()))
            if p.ip_block:
                bits.append(p.ip_block)
            parts.append(" and ".join(bits) or "pods of its namespace")
    return "; ".join(parts)


async def policy_facts(
    reader: KubeReader,
    kind: str,
    obj: KubeObject,
    found: Findings,
    ctx: CallContext,
) -> None:
    """One fact per NetworkPolicy of the workload's namespace that selects its pods."""
    ns, name = meta(obj).get("namespace"), name_of(obj)
    template = ((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}
    labels = {str(k): str(v) for k, v in (template.get("labels") or {}).items()}
    if not ns:
        return
    try:
        listed = found.took(await reader.list("networkpolicies", ns))
    except SourceError as exc:
        found.gap(f"NetworkPolicies of namespace {ns} could not be read: {exc.reason}")
        return
    for policy in listed:
        spec = policy.get("spec") or {}
        if not selects(spec.get("podSelector"), labels):
            continue
        types = spec.get("policyTypes") or (
            ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
        )
        ingress = _peers(spec.get("ingress") or [], "from") if "Ingress" in types else None
        egress = _peers(spec.get("egress") or [], "to") if "Egress" in types else None
        created = meta(policy).get("creationTimestamp")
        text = (
            f"NetworkPolicy {ns}/{name_of(policy)} (created {created}) selects the pods of "
            f"{kind} {name}: admits from {_said(ingress)}; lets them reach {_said(egress)}"
        )
        found.facts.append(
            ResultFact(
                text=text,
                source=reader.source,
                observed_at=ctx.now,
                link=reader.target.link("NetworkPolicy", name_of(policy), ns),
                historical=False,
                attrs=K8sNetworkPolicy(
                    name=name_of(policy),
                    namespace=ns,
                    workload=name,
                    created=str(created) if created else None,
                    ingress=ingress,
                    egress=egress,
                ),
            )
        )
