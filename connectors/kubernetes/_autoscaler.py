"""k8s.autoscaler: the HorizontalPodAutoscalers that scale a workload (autoscaling/v2).

A workload that cannot keep up because its autoscaler may not add replicas (at
maxReplicas, ScalingLimited=True) looks healthy everywhere else: every pod Running and
Ready, nothing restarted. The autoscaler's own status says it: current/desired replicas
against its bounds, each metric against its target, and its conditions as the controller
wrote them. This tool declares its own evidence kind, `k8s.autoscaler`, of the facet
`state`: the planner's baseline reads it for any object a question asks the cause of,
with no plan naming it.
"""

from __future__ import annotations

from typing import Any

from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, meta, name_of
from policy.facts import K8sAutoscaler
from policy.numbers import Nouns, count_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext

EVIDENCE = "k8s.autoscaler"
# a condition in this state is worth saying: the autoscaler cannot do its work
_ABNORMAL = {"AbleToScale": "False", "ScalingActive": "False", "ScalingLimited": "True"}


def _body(metric: dict[str, Any]) -> dict[str, Any]:
    """The typed part of a metric spec or status entry ("Resource" -> its "resource")."""
    kind = str(metric.get("type") or "")
    body = metric.get(kind[:1].lower() + kind[1:])
    return body if isinstance(body, dict) else {}


def _name(body: dict[str, Any]) -> str:
    return str(body.get("name") or (body.get("metric") or {}).get("name") or "metric")


def _metric(entry: dict[str, Any], targets: dict[str, dict[str, Any]]) -> tuple[str, bool] | None:
    """('cpu 138% of request (target 70%)', above its target) from a status.currentMetrics
    entry; a value in Kubernetes quantity notation is compared only when both are plain."""
    body = _body(entry)
    name = _name(body)
    current = body.get("current") or {}
    target = targets.get(name) or {}
    if current.get("averageUtilization") is not None:
        text = f"{name} {current['averageUtilization']}% of request"
        goal = target.get("averageUtilization")
        if goal is not None:
            text += f" (target {goal}%)"
        return text, _above(current["averageUtilization"], goal)
    value = current.get("averageValue") or current.get("value")
    if value is None:
        return None
    goal = target.get("averageValue") or target.get("value")
    text = f"{name} {value}" + (f" (target {goal})" if goal is not None else "")
    return text, _above(value, goal)


def _above(value: Any, goal: Any) -> bool:
    try:
        return goal is not None and float(value) > float(goal)
    except (TypeError, ValueError):
        return False


def _fact(reader: KubeReader, hpa: KubeObject, ctx: CallContext) -> ResultFact:
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    ns, name = meta(hpa).get("namespace"), name_of(hpa)
    ref = spec.get("scaleTargetRef") or {}
    target = f"{ref.get('kind') or 'workload'} {ref.get('name')}"
    current, desired = status.get("currentReplicas"), status.get("desiredReplicas")
    low, high = spec.get("minReplicas", 1), spec.get("maxReplicas")
    targets = {_name(_body(m)): _body(m).get("target") or {} for m in spec.get("metrics") or []}
    read = [t for m in status.get("currentMetrics") or [] if (t := _metric(m, targets))]
    metrics = [text for text, _ in read]
    over = any(above for _, above in read)
    conditions = [
        f"{c.get('type')}={c.get('status')} ({c.get('reason')}: {c.get('message')})"
        for c in status.get("conditions") or []
        if _ABNORMAL.get(str(c.get("type"))) == str(c.get("status"))
    ]
    # held at its maximum (TooManyReplicas), not at its minimum (TooFewReplicas)
    limited = any(
        c.get("type") == "ScalingLimited"
        and str(c.get("status")) == "True"
        and c.get("reason") == "TooManyReplicas"
        for c in status.get("conditions") or []
    )
    at_max = high is not None and current is not None and int(current) >= int(high)
    text = (
        f"HorizontalPodAutoscaler {ns}/{name} scales {target}: "
        f"{'? replicas' if current is None else count_said(int(current), Nouns.REPLICA)} "
        f"(desired {desired}, bounds {low}..{high})"
    )
    if at_max:
        text += ", AT ITS MAXIMUM"
    if metrics:
        text += "; " + ", ".join(metrics)
    if conditions:
        text += "; " + "; ".join(conditions)
    if status.get("lastScaleTime"):
        text += f"; last scaled {status['lastScaleTime']}"
    return ResultFact(
        text=text,
        source=reader.source,
        observed_at=ctx.now,
        link=reader.target.link("HorizontalPodAutoscaler", name, ns),
        historical=False,
        attrs=K8sAutoscaler(
            name=name,
            namespace=ns,
            target=target,
            current=current,
            desired=desired,
            min_replicas=low,
            max_replicas=high,
            at_max=at_max,
            limited=limited,
            over_target=over,
            metrics=metrics or None,
            conditions=conditions or None,
            last_scale_time=status.get("lastScaleTime"),
        ),
    )


async def autoscaler(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    """The autoscalers in the namespace whose scale target is the workload asked about;
    none is a complete answer (the workload is not autoscaled) when the list was whole."""
    found = Findings(reader.source)
    listed = found.took(await reader.list("horizontalpodautoscalers", args.namespace))
    for hpa in listed:
        ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        if ref.get("name") == args.service:
            found.facts.append(_fact(reader, hpa, ctx))
    if not found.facts:
        found.notes.append(f"no HorizontalPodAutoscaler scales {args.service} in {args.namespace}")
    return found.finish("k8s.autoscaler", args, ctx, returned=len(found.facts))
