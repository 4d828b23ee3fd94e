"""Node network health from node_exporter, always compared with the node's peers.

A weak signal on one node means something only next to the same signal on the others
(MISSION-NOTES, "The two 502 cases", 2): every fact carries the peer median.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict

from connectors.victoriametrics._client import Series
from connectors.victoriametrics._common import (
    Run,
    WindowArgs,
    fmt_num,
    gather,
    k8s_name,
    max_point,
    quote,
)
from policy.facts import NodeNetwork
from policy.results import Entity, ResultFact, ToolResult

NODE_METRICS = (
    ("retransmits", "node_netstat_Tcp_RetransSegs", "TCP retransmitted segments"),
    ("softnet_squeezes", "node_softnet_times_squeezed_total", "softnet squeezes"),
    ("softnet_drops", "node_softnet_dropped_total", "softnet drops"),
)


class NodeNetworkArgs(WindowArgs):
    node: str = k8s_name("node name (matched against the `node` or `instance` label)")


def node_of(labels: dict[str, str]) -> str | None:
    """The node a node_exporter series is about: its `node` label, else its instance host."""
    if labels.get("node"):
        return labels["node"]
    instance = labels.get("instance", "")
    if not instance:
        return None
    if instance.startswith("["):  # [ipv6]:port
        return instance[1:].split("]", 1)[0]
    return instance.rsplit(":", 1)[0] if re.fullmatch(r".+:\d+", instance) else instance


async def _target_series(run: Run, metric: str, window_s: int, node: str) -> list[Series]:
    """The node's own series, by its `node` label, else by its `instance` host."""
    by_label = await run.instant(
        f"sum by (node, instance) (rate({metric}{{node={quote(node)}}}[{window_s}s]))"
    )
    if by_label.series:
        return by_label.series
    host = quote(re.escape(node) + "(:[0-9]+)?")
    by_instance = await run.instant(
        f"sum by (node, instance) (rate({metric}{{instance=~{host}}}[{window_s}s]))"
    )
    return by_instance.series


async def node_network(run: Run, args: NodeNetworkArgs) -> ToolResult:
    w, r = run.window.seconds, run.window.rate_s
    reads = await gather(
        *(
            run.instant(f"sum by (node, instance) (rate({metric}[{w}s]))")
            for _, metric, _ in NODE_METRICS
        )
    )
    seen_nodes: set[str] = set()
    found: list[tuple[str, str, str, float, list[float], str]] = []
    sampled: dict[str, int] = {}  # metric -> other nodes the source had, when it sent fewer
    for (name, metric, label), read in zip(NODE_METRICS, reads, strict=True):
        values: dict[str, float] = defaultdict(float)
        by_node_label = False
        series = list(read.series)
        if read.capped and not any(node_of(s.labels) == args.node for s in series):
            # a cluster with more nodes than one read may return: the node asked about is
            # read by name, so it is never lost among its peers
            series += await _target_series(run, metric, w, args.node)
            sampled[name] = read.total - 1
        for s in series:
            node = node_of(s.labels)
            if node is None:
                continue
            values[node] += s.value
            by_node_label = by_node_label or (node == args.node and "node" in s.labels)
        seen_nodes.update(values)
        if args.node not in values:
            continue
        target_sel = (
            f"{metric}{{node={quote(args.node)}}}"
            if by_node_label
            else f"{metric}{{instance=~{quote(re.escape(args.node) + '(:[0-9]+)?')}}}"
        )
        peers = [v for n, v in values.items() if n != args.node]
        found.append((name, metric, label, values[args.node], peers, target_sel))
    if not found:
        known = ", ".join(sorted(seen_nodes)[:8]) or "none"
        return run.result(
            found=False,
            exists=False,
            warnings=[
                f"no node_exporter network series for node {args.node} in {run.env} "
                f"{run.span()} (nodes seen: {known}): no data, which does not mean a healthy "
                "network"
            ],
            note="no data for the node",
        )
    curves = await gather(*(run.range(f"sum(rate({sel}[{r}s]))") for *_, sel in found))
    facts: list[ResultFact] = []
    for (name, metric, label, value, peers, _sel), curve in zip(found, curves, strict=True):
        median = statistics.median(peers) if peers else None
        ratio = value / median if median else None
        peak = max_point(curve.series[0].points) if curve.series else None
        if median is None:
            versus = "; no peer node reports it"
        elif ratio is None:
            versus = f" vs 0/s on all {len(peers)} peer nodes"
        else:
            versus = (
                f" vs peer median {fmt_num(median)}/s over {len(peers)} other nodes "
                f"({fmt_num(ratio)}x)"
            )
        if name in sampled:
            versus += f" (a sample: {len(peers)} of the {sampled[name]} other nodes were read)"
        peak_text = f"; peak {fmt_num(peak[1])}/s at {run.time(peak[0])}" if peak else ""
        facts.append(
            run.fact(
                f"node {args.node} in {run.env}: {label} {fmt_num(value)}/s on average "
                f"{run.span()}{versus}{peak_text}",
                NodeNetwork(
                    node=args.node,
                    metric=name,
                    value=value,
                    peer_median=median,
                    ratio=ratio,
                    peers=len(peers),
                    peak=peak[1] if peak else None,
                    peak_at=peak[0].isoformat() if peak else None,
                ),
                f"sum by (node, instance) (rate({metric}[{r}s]))",
                peak[0] if peak else None,
            )
        )
    missing = [n for n, *_ in NODE_METRICS if n not in {f[0] for f in found}]
    return run.result(
        found=True,
        exists=True,
        facts=facts,
        entities=[Entity(kind="node", name=args.node, env=run.env)],
        note=f"not reported for this node: {', '.join(missing)}" if missing else None,
    )
