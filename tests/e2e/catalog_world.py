"""A small inline world for the surface tests: catalog-api in dc-a (6 replicas, ~412 req/s)
and dc-b (3 replicas, ~137 req/s), Kubernetes and metrics only (no logs, no GitLab, so an
incident question also has honest gaps)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from evals.world import World, world_from_data

NOW = datetime.fromisoformat("2026-07-22T16:30:00+03:00")
TIMEZONE = "Europe/Moscow"
RPS = {"dc-a": 412.2, "dc-b": 137.2}
REPLICAS = {"dc-a": 6, "dc-b": 3}


def deployment(
    name: str, namespace: str, uid: str, replicas: int, image: str, generation: int
) -> dict[str, Any]:
    """A Deployment as the API serves it, every replica ready."""
    labels = {"app.kubernetes.io/name": name}
    n = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "resourceVersion": "1",
            "generation": generation,
            "creationTimestamp": "2025-04-14T07:30:12Z",
            "labels": labels,
        },
        "spec": {
            "replicas": n,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "api", "image": image}]},
            },
        },
        "status": {
            "observedGeneration": generation,
            "replicas": n,
            "updatedReplicas": n,
            "readyReplicas": n,
            "availableReplicas": n,
        },
    }


def _deployment(env: str) -> dict[str, Any]:
    image = "registry.example.com/catalog/catalog-api:7.3.0"
    return deployment("catalog-api", "catalog", f"uid-{env}", REPLICAS[env], image, 4)


def _requests(env: str) -> dict[str, Any]:
    # a counter growing at RPS[env] per second, one sample a minute from 12:00Z to 13:30Z
    values = [1_000_000 + round(RPS[env] * 60 * i) for i in range(91)]
    return {
        "labels": {
            "__name__": "nginx_ingress_controller_requests",
            "job": "ingress-nginx",
            "namespace": "catalog",
            "ingress": "catalog-api",
            "service": "catalog-api",
            "host": "catalog.example.com",
            "path": "/",
            "method": "GET",
            "status": "200",
        },
        "start": datetime(2026, 7, 22, 12, 0, tzinfo=UTC).isoformat(),
        "step": "60s",
        "values": values,
    }


def catalog_world() -> World:
    envs = ("dc-a", "dc-b")
    return world_from_data(
        {
            "environments": {env: ["kubernetes", "metrics"] for env in envs},
            "kubernetes": {env: [_deployment(env)] for env in envs},
            "metrics": {env: [_requests(env)] for env in envs},
        },
        "catalog world",
    )
