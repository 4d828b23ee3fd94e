"""Kubernetes state over time from kube-state-metrics: service endpoints and quotas.

These are the historical answers the live Kubernetes API cannot give ("were the endpoints
ready at 14:11?", "how close to its quota was the namespace this morning?").
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from connectors.victoriametrics._client import Series
from connectors.victoriametrics._common import (
    Matcher,
    Run,
    gather,
    k8s_name,
    optional_k8s_name,
    selector,
)
from policy.facts import K8sEndpoints, K8sQuota
from policy.numbers import Noun, amount_said, number_said, percent_said
from policy.results import Entity, Relation, ResultFact, ToolResult
from policy.units import bytes_said
from policy.window import WindowArgs

READY_ADDRESSES = Noun(
    "ready endpoint address",
    "ready endpoint addresses",
    "готовый адрес endpoint",
    "готовых адреса endpoint",
    "готовых адресов endpoint",
)

ENDPOINTS = "kube_endpoint_address"
QUOTA = "kube_resourcequota"
MAX_QUOTA_FACTS = 15


class EndpointsArgs(WindowArgs):
    namespace: str | None = optional_k8s_name("namespace of the service (any when omitted)")
    service: str = k8s_name("service name (the Endpoints object)")


class QuotaArgs(WindowArgs):
    namespace: str | None = optional_k8s_name("namespace (every namespace when omitted)")


def _gaps(run: Run, stamps: list[datetime]) -> list[tuple[datetime, datetime]]:
    """Stretches of the window with no sample at all (more than two steps)."""
    slack = 2 * run.window.step_s
    edges = [run.window.start, *stamps, run.window.end]
    return [(a, b) for a, b in itertools.pairwise(edges) if (b - a).total_seconds() > slack]


async def endpoints_ready(run: Run, args: EndpointsArgs) -> ToolResult:
    matchers: list[Matcher] = [("endpoint", "=", args.service)]
    if args.namespace:
        matchers.insert(0, ("namespace", "=", args.namespace))
    sel, w = selector(ENDPOINTS, matchers), run.window.seconds
    curve_expr = f"sum by (namespace, ready) ({sel})"
    addr_expr = f"max by (namespace, ip, ready) (max_over_time({sel}[{w}s]))"
    curves, addresses = await gather(run.range(curve_expr), run.instant(addr_expr))
    namespaces = sorted({s.labels.get("namespace", "") for s in curves.series})
    if not namespaces:
        where = f" in namespace {args.namespace}" if args.namespace else ""
        return run.result(
            found=False,
            exists=False,
            warnings=[
                f"{ENDPOINTS} has no series for service {args.service}{where} ({run.env}) "
                f"{run.span()}: no data, which does not mean no endpoints"
            ],
            note="no data for the scope",
        )
    facts: list[ResultFact] = []
    entities: list[Entity] = []
    relations: list[Relation] = []
    warnings: list[str] = []
    holes = False
    for ns in namespaces:
        fact, found_gaps = _endpoints_fact(
            run,
            args.service,
            ns,
            [s for s in curves.series if s.labels.get("namespace", "") == ns],
            [s.labels for s in addresses.series if s.labels.get("namespace", "") == ns],
            curve_expr,
        )
        facts.append(fact)
        holes = holes or bool(found_gaps)
        warnings += [
            f"{ENDPOINTS} of {ns}/{args.service} has no samples from {run.time(a)} to {run.time(b)}"
            for a, b in found_gaps
        ]
        entities.append(Entity(kind="service", name=args.service, env=run.env, namespace=ns))
        attrs = fact.attrs
        assert isinstance(attrs, K8sEndpoints)
        for state, ips in (("true", attrs.ready_ips), ("false", attrs.not_ready_ips)):
            for ip in ips or []:
                entities.append(
                    Entity(
                        kind="endpoint",
                        name=ip,
                        env=run.env,
                        namespace=ns,
                        attrs={"ready": state == "true"},
                    )
                )
                relations.append(
                    Relation(
                        src=f"service/{args.service}",
                        rel="routes_to",
                        dst=f"endpoint/{ip}",
                        source=run.source,
                        observed_at=datetime.fromisoformat(str(attrs.covered_to)),
                    )
                )
    if len(namespaces) > 1:
        warnings.append(
            f"service {args.service} exists in several namespaces ({', '.join(namespaces)}); "
            "name the namespace to read one"
        )
    return run.result(
        found=True,
        exists=True,
        partial=holes,
        facts=facts,
        warnings=warnings,
        entities=entities,
        relations=relations,
    )


def _endpoints_fact(
    run: Run,
    service: str,
    ns: str,
    curves: list[Series],
    addresses: list[dict[str, str]],
    expr: str,
) -> tuple[ResultFact, list[tuple[datetime, datetime]]]:
    by_state: dict[str, dict[datetime, float]] = {"true": {}, "false": {}}
    for s in curves:
        by_state.setdefault(s.labels.get("ready", ""), {}).update(dict(s.points))
    stamps = sorted(set(by_state["true"]) | set(by_state["false"]))
    ready = [by_state["true"].get(t, 0.0) for t in stamps]
    not_ready = [by_state["false"].get(t, 0.0) for t in stamps]
    first_bad = next((t for t, n in zip(stamps, not_ready, strict=True) if n > 0), None)
    first_zero = next((t for t, r in zip(stamps, ready, strict=True) if r == 0), None)
    ips = {
        state: sorted(a.get("ip", "?") for a in addresses if a.get("ready") == state)
        for state in ("true", "false")
    }
    who = f"service {service} ({ns}) in {run.env}"
    if first_bad is None and first_zero is None:
        text = (
            f"{who}: {amount_said(min(ready), READY_ADDRESSES)} "
            f"({', '.join(ips['true']) or '?'}) throughout {run.span()}; "
            f"no not-ready address (kube-state-metrics {ENDPOINTS})"
        )
    else:
        text = (
            f"{who}: ready endpoint addresses between {number_said(min(ready))} and "
            f"{number_said(max(ready))} {run.span()}, not-ready up to {number_said(max(not_ready))}"
        )
        if first_bad is not None:
            text += f"; first not-ready address at {run.time(first_bad)}"
        if first_zero is not None:
            text += f"; no ready address at {run.time(first_zero)}"
        text += (
            f"; at {run.time(stamps[-1])}: {number_said(ready[-1])} ready, "
            f"{number_said(not_ready[-1])} not ready (not-ready IPs seen: "
            f"{', '.join(ips['false']) or 'none'})"
        )
    fact = run.fact(
        text,
        K8sEndpoints(
            service=service,
            namespace=ns,
            ready=min(ready),
            not_ready=max(not_ready),
            ready_max=max(ready),
            ready_at_end=ready[-1],
            not_ready_at_end=not_ready[-1],
            ready_ips=ips["true"],
            not_ready_ips=ips["false"],
            first_not_ready_at=first_bad.isoformat() if first_bad else None,
            no_ready_at=first_zero.isoformat() if first_zero else None,
            covered_from=stamps[0].isoformat(),
            covered_to=stamps[-1].isoformat(),
        ),
        expr,
        first_zero or first_bad or stamps[-1],
    )
    return fact, _gaps(run, stamps)


def _amount(resource: str, value: float) -> str:
    return (
        bytes_said(value) if ("memory" in resource or "storage" in resource) else number_said(value)
    )


async def quota_usage(run: Run, args: QuotaArgs) -> ToolResult:
    matchers: list[Matcher] = [("namespace", "=", args.namespace)] if args.namespace else []
    expr = selector(QUOTA, matchers)
    curves = await run.range(expr)
    pairs: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in curves.series:
        key = (
            s.labels.get("namespace", ""),
            s.labels.get("resourcequota", ""),
            s.labels.get("resource", ""),
        )
        row = pairs.setdefault(key, {})
        kind = s.labels.get("type", "")
        row[kind] = s.value
        row[f"{kind}_at"] = s.at
        row[f"{kind}_peak"] = max(v for _, v in s.points)
    rows = [(key, row) for key, row in pairs.items() if "used" in row and "hard" in row]
    where = f"namespace {args.namespace}" if args.namespace else "any namespace"
    if not rows:
        anywhere = await run.instant(f"count(last_over_time({QUOTA}[{run.window.seconds}s]))")
        collected = (anywhere.scalar(0) or 0) > 0
        facts = (
            [
                run.fact(
                    f"{where} in {run.env} has no ResourceQuota {run.span()} (kube-state-metrics "
                    "reports quotas for other namespaces)",
                    K8sQuota(quota=None, namespace=args.namespace),
                    expr,
                    run.window.end,
                )
            ]
            if collected
            else []
        )
        return run.result(
            found=False,
            exists=collected,
            facts=facts,
            warnings=[]
            if collected
            else [f"{QUOTA} is not collected in {run.env} {run.span()}: no data about quotas"],
        )

    def ratio(row: dict[str, Any]) -> float:
        return row["used"] / row["hard"] if row["hard"] else 0.0

    rows.sort(key=lambda item: (-ratio(item[1]), item[0]))
    facts = []
    for (ns, quota, resource), row in rows[:MAX_QUOTA_FACTS]:
        share = ratio(row)
        near = "; at least 90% of the hard limit" if share >= 0.9 else ""
        facts.append(
            run.fact(
                f"quota {quota} in {ns} ({run.env}): {resource} used "
                f"{_amount(resource, row['used'])} of {_amount(resource, row['hard'])} "
                f"({percent_said(share)}) at {run.time(row['used_at'])}; peak "
                f"{_amount(resource, row['used_peak'])} {run.span()}{near}",
                K8sQuota(
                    quota=quota,
                    namespace=ns,
                    resource=resource,
                    used=row["used"],
                    hard=row["hard"],
                    ratio=share,
                    peak_used=row["used_peak"],
                ),
                expr,
                row["used_at"],
            )
        )
    warnings = (
        [f"{len(rows) - MAX_QUOTA_FACTS} more quota resources not shown (see raw)"]
        if len(rows) > MAX_QUOTA_FACTS
        else []
    )
    entities = [
        Entity(kind="resourcequota", name=q, env=run.env, namespace=ns)
        for ns, q in sorted({(k[0], k[1]) for k, _ in rows})
    ]
    return run.result(found=True, exists=True, facts=facts, warnings=warnings, entities=entities)
