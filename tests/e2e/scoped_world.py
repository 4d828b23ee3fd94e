"""A world of many disjoint scopes, for the concurrency test: `envs` environments, each
with its own services (none runs in two envs), each service with its own replica count
and its own request rate. Every name and every rate belongs to one scope only, so an
answer that mentions another scope's name or rate has leaked it.

Kubernetes and metrics only, like `catalog_world`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from evals.world import World, world_from_data
from tests.e2e.catalog_world import deployment

NOW = datetime.fromisoformat("2026-07-22T16:30:00+03:00")
TIMEZONE = "Europe/Moscow"

# service names: none is part of another, none is an English word the answers use
_WORDS = [
    "amber",
    "azure",
    "basalt",
    "beryl",
    "cobalt",
    "coral",
    "cypress",
    "dahlia",
    "ember",
    "fennel",
    "garnet",
    "ginkgo",
    "hazel",
    "indigo",
    "jasper",
    "juniper",
    "kestrel",
    "lilac",
    "lotus",
    "magnet",
    "marble",
    "merlot",
    "nectar",
    "nutmeg",
    "onyx",
    "orchid",
    "pepper",
    "poplar",
    "quartz",
    "quince",
    "raven",
    "rowan",
    "saffron",
    "sequoia",
    "sienna",
    "sorrel",
    "tamarind",
    "teal",
    "thistle",
    "topaz",
    "tundra",
    "umber",
    "violet",
    "walnut",
    "willow",
    "xenon",
    "yarrow",
    "zinnia",
    "birch",
    "heron",
]
_ENV_WORDS = ("north", "south", "east", "west", "polar", "delta", "mesa", "fjord", "dune", "reef")


@dataclass(frozen=True)
class ScopeCase:
    env: str
    namespace: str
    service: str
    replicas: int
    rps: int  # requests per second, an integer so the answer shows it as written


def scopes(envs: int, per_env: int) -> list[ScopeCase]:
    if envs > len(_ENV_WORDS) or envs * per_env > len(_WORDS):
        raise ValueError(f"at most {len(_ENV_WORDS)} envs and {len(_WORDS)} scopes")
    out = []
    for i in range(envs * per_env):
        env = f"dc-{_ENV_WORDS[i % envs]}"
        # 4-digit rates that differ in every digit position from their neighbours' and
        # never look like a year, an hour or a minute in the answers' times
        out.append(
            ScopeCase(
                env=env,
                namespace=f"ns-{_WORDS[i]}",
                service=f"{_WORDS[i]}-api",
                replicas=2 + i % 7,
                rps=3101 + 137 * i,
            )
        )
    names = [s.service for s in out] + sorted({s.env for s in out})
    assert not [(a, b) for a in names for b in names if a != b and a in b], "names overlap"
    return out


def _deployment(case: ScopeCase) -> dict[str, Any]:
    image = f"registry.example.com/{case.service}:1.0.0"
    uid = f"uid-{case.env}-{case.service}"
    return deployment(case.service, case.namespace, uid, case.replicas, image, 2)


def _requests(case: ScopeCase) -> dict[str, Any]:
    # a counter growing at `rps` per second, one sample a minute from 12:00Z to 13:30Z
    return {
        "labels": {
            "__name__": "nginx_ingress_controller_requests",
            "job": "ingress-nginx",
            "namespace": case.namespace,
            "ingress": case.service,
            "service": case.service,
            "host": f"{case.service}.example.com",
            "path": "/",
            "method": "GET",
            "status": "200",
        },
        "start": datetime(2026, 7, 22, 12, 0, tzinfo=UTC).isoformat(),
        "step": "60s",
        "values": [1_000_000 + case.rps * 60 * i for i in range(91)],
    }


def scoped_world(cases: list[ScopeCase]) -> World:
    envs = sorted({c.env for c in cases})
    return world_from_data(
        {
            "environments": {env: ["kubernetes", "metrics"] for env in envs},
            "kubernetes": {env: [_deployment(c) for c in cases if c.env == env] for env in envs},
            "metrics": {env: [_requests(c) for c in cases if c.env == env] for env in envs},
        },
        "scoped world",
    )
