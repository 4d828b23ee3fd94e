"""`doctor` for a Kubernetes API server: does it answer with these credentials, and can
they read what the tools read (namespaces, pods, events)."""

from __future__ import annotations

from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._settings import KubernetesTarget
from policy.errors import SourceError
from policy.probe import Probe

# what the tools list across the cluster; each read once, its first page
READS = ("namespaces", "pods", "events", "nodes")


async def probe(target: KubernetesTarget) -> Probe:
    reader = KubeReader(target)
    found: list[str] = []
    missing: list[str] = []
    try:
        for resource in READS:
            try:
                listed = await reader.list(resource)
            except SourceError as err:
                if resource == READS[0]:  # the first read says whether it answers at all
                    return Probe(
                        source="kubernetes", env=target.env, answered=False, detail=err.reason
                    )
                missing.append(f"list {resource}: {err.reason}")
                continue
            more = "" if listed.complete else " (more remain)"
            found.append(f"{resource}: {len(listed.items)} readable{more}")
        where = target.api_url or target.context or target.kubeconfig_path
        return Probe(
            source="kubernetes",
            env=target.env,
            answered=True,
            detail=f"Kubernetes API at {where} ({target.mode})",
            found=found,
            missing=missing,
        )
    finally:
        await reader.aclose()
