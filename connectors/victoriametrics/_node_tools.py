"""Node network health from node_exporter, always compared with the node's peers.

A weak signal on one node means something only next to the same signal on the others
(the synchronous-spike class of 502s): every fact carries the peer median.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from typing import Annotated, Any, cast

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from connectors.victoriametrics._client import Series
from connectors.victoriametrics._common import (
    Run,
    gather,
    k8s_name,
    max_point,
    optional_k8s_name,
    quote,
)
from policy.facts import NodeNetwork
from policy.instances import instance_host
from policy.numbers import Noun, count_said, number_said, rate_said
from policy.results import Entity, ResultFact, ToolResult
from policy.window import WindowArgs

OTHER_NODES = Noun("other node", "other nodes", "другой узел", "других узла", "других узлов")
PEER_NODES = Noun("peer node", "peer nodes", "соседний узел", "соседних узла", "соседних узлов")

NODE_METRICS = (
    ("retransmits", "node_netstat_Tcp_RetransSegs", "TCP retransmitted segments"),
    ("softnet_squeezes", "node_softnet_times_squeezed_total", "softnet squeezes"),
    ("softnet_drops", "node_softnet_dropped_total", "softnet drops"),
)


MAX_NODES = 8


class NodeNetworkArgs(WindowArgs):
    node: str | SkipJsonSchema[None] = optional_k8s_name(
        "node name (matched against the `node` or `instance` label)"
    )
    nodes: list[Annotated[str, k8s_name("node name")]] | SkipJsonSchema[None] = Field(
        None,
        min_length=1,
        max_length=MAX_NODES,
        description="several nodes read at once (the same peer reads serve them all)",
    )

    @model_validator(mode="after")
    def _one_at_least(self) -> NodeNetworkArgs:
        if not self.node and not self.nodes:
            raise ValueError("give node or nodes")
        return self

    def targets(self) -> list[str]:
        return list(dict.fromkeys([*([self.node] if self.node else []), *(self.nodes or [])]))


def node_of(labels: dict[str, str], names: dict[str, str] | None = None) -> str | None:
    """The node a node_exporter series is about: its `node` label, else its instance host,
    named by `names` (the host -> nodename map of `node_names`) when the scrape keeps only
    the node's address (`instance: 10.0.0.7:9100`)."""
    if labels.get("node"):
        return labels["node"]
    host = instance_host(labels.get("instance", ""))
    if host is None:
        return None
    return (names or {}).get(host, host)


async def node_names(run: Run) -> dict[str, str]:
    """instance host -> node name, from node_exporter's own `node_uname_info{nodename}`
    (one read); empty when the source has none."""
    read = await run.instant("max by (instance, nodename) (node_uname_info)")
    names: dict[str, str] = {}
    for s in read.series:
        host, name = instance_host(s.labels.get("instance", "")), s.labels.get("nodename")
        if host and name and host != name:
            names[host] = name
    return names


async def _target_series(
    run: Run, metric: str, window_s: int, node: str, host: str
) -> list[Series]:
    """The node's own series, by its `node` label, else by its `instance` host."""
    by_label = await run.instant(
        f"sum by (node, instance) (rate({metric}{{node={quote(node)}}}[{window_s}s]))"
    )
    if by_label.series:
        return by_label.series
    pattern = quote(re.escape(host) + "(:[0-9]+)?")
    by_instance = await run.instant(
        f"sum by (node, instance) (rate({metric}{{instance=~{pattern}}}[{window_s}s]))"
    )
    return by_instance.series


async def node_network(run: Run, args: NodeNetworkArgs) -> ToolResult:
    """Each node asked about next to its peers: the env-wide reads are made once, whatever
    the number of nodes (the nodes behind a failing service are read in one call)."""
    w = run.window.seconds
    *reads, known = await gather(
        *(
            run.instant(f"sum by (node, instance) (rate({metric}[{w}s]))")
            for _, metric, _ in NODE_METRICS
        ),
        node_names(run),  # read beside them, not after
    )
    names = cast(dict[str, str], known)
    targets = args.targets()
    per_node = await gather(*(_one_node(run, node, reads, set(targets), names) for node in targets))
    facts = [f for node_facts, _, _ in per_node for f in node_facts]
    warnings = [w for _, node_warnings, _ in per_node for w in node_warnings]
    notes = [n for _, _, n in per_node if n]
    if not facts:
        return run.result(found=False, exists=False, warnings=warnings, note="no data for the node")
    return run.result(
        found=True,
        exists=True,
        facts=facts,
        entities=[Entity(kind="node", name=n, env=run.env) for n in args.targets()],
        warnings=warnings,
        partial=bool(warnings),  # a node asked about that has no series is a hole
        note="; ".join(notes) or None,
    )


async def _one_node(
    run: Run, target: str, reads: list[Any], suspects: set[str], names: dict[str, str]
) -> tuple[list[ResultFact], list[str], str | None]:
    """(facts, warnings, coverage note) for one node, against the peers that are not also
    suspects (several bad nodes behind one service must not hide one another)."""
    w, r = run.window.seconds, run.window.rate_s
    host = next((h for h, n in names.items() if n == target), target)  # its instance's
    seen_nodes: set[str] = set()
    found: list[tuple[str, str, str, float, list[float], str]] = []
    sampled: dict[str, int] = {}  # metric -> other nodes the source had, when it sent fewer
    for (name, metric, label), read in zip(NODE_METRICS, reads, strict=True):
        values: dict[str, float] = defaultdict(float)
        by_node_label = False
        series = list(read.series)
        if read.capped and not any(node_of(s.labels, names) == target for s in series):
            # a cluster with more nodes than one read may return: the node asked about is
            # read by name, so it is never lost among its peers
            series += await _target_series(run, metric, w, target, host)
            sampled[name] = read.total - 1
        for s in series:
            node = node_of(s.labels, names)
            if node is None:
                continue
            values[node] += s.value
            by_node_label = by_node_label or (node == target and "node" in s.labels)
        seen_nodes.update(values)
        if target not in values:
            continue
        target_sel = (
            f"{metric}{{node={quote(target)}}}"
            if by_node_label
            else f"{metric}{{instance=~{quote(re.escape(host) + '(:[0-9]+)?')}}}"
        )
        peers = [v for n, v in values.items() if n != target and n not in suspects]
        found.append((name, metric, label, values[target], peers, target_sel))
    if not found:
        known = ", ".join(sorted(seen_nodes)[:8]) or "none"
        return (
            [],
            [
                f"no node_exporter network series for node {target} in {run.env} "
                f"{run.span()} (nodes seen: {known}): no data, which does not mean a healthy "
                "network"
            ],
            None,
        )
    curves = await gather(*(run.range(f"sum(rate({sel}[{r}s]))") for *_, sel in found))
    facts: list[ResultFact] = []
    for (name, metric, label, value, peers, _sel), curve in zip(found, curves, strict=True):
        median = statistics.median(peers) if peers else None
        ratio = value / median if median else None
        peak = max_point(curve.series[0].points) if curve.series else None
        # one unit for the node, its peers and its peak: the largest of them decides
        unit_of = max(value, median or 0.0, peak[1] if peak else 0.0)
        if median is None:
            versus = "; no peer node reports it"
        elif ratio is None:
            every = "the only" if len(peers) == 1 else "all"
            versus = f" vs 0/s on {every} {count_said(len(peers), PEER_NODES)}"
        else:
            versus = (
                f" vs peer median {rate_said(median, like=unit_of)} over "
                f"{count_said(len(peers), OTHER_NODES)} ({number_said(ratio)}x)"
            )
        if name in sampled:
            versus += f" (a sample: {len(peers)} of the {sampled[name]} other nodes were read)"
        peak_text = (
            f"; peak {rate_said(peak[1], like=unit_of)} at {run.time(peak[0])}" if peak else ""
        )
        facts.append(
            run.fact(
                f"node {target} in {run.env}: {label} {rate_said(value, like=unit_of)} on average "
                f"{run.span()}{versus}{peak_text}",
                NodeNetwork(
                    node=target,
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
    note = f"not reported for node {target}: {', '.join(missing)}" if missing else None
    return facts, [], note
