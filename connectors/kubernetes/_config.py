"""Where a workload's configuration points its pods: the addresses its containers' env
values, the ConfigMap keys they read and the ConfigMaps they mount name
(policy/dependencies.py reads URLs, DSNs, broker lists and host settings). A client's
error that names no host ("context deadline exceeded") is followed to these. Only the
address is kept, never the value: a URL's credentials stay where they are."""

from __future__ import annotations

from typing import Any

from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, meta, name_of
from policy.dependencies import Endpoint, endpoints_in
from policy.errors import SourceError
from policy.facts import K8sDependency
from policy.results import ResultFact
from policy.toolset import CallContext

# ConfigMaps read for one workload, and what of each: a setting is short, a mounted file
# past this is not a settings file
MAX_CONFIGMAPS = 4
MAX_VALUE = 16_384


def _containers(obj: KubeObject) -> list[dict[str, Any]]:
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]


def _settings(obj: KubeObject) -> tuple[list[tuple[str, str]], dict[str, set[str] | None]]:
    """(setting, value) of every plain env value; the ConfigMaps to read, with the keys
    wanted (None: every key, for envFrom and mounted ones)."""
    plain: list[tuple[str, str]] = []
    maps: dict[str, set[str] | None] = {}

    def want(name: Any, key: Any = None) -> None:
        if not isinstance(name, str) or not name:
            return
        if key is None:
            maps[name] = None
        elif (keys := maps.setdefault(name, set())) is not None:
            keys.add(str(key))

    for container in _containers(obj):
        for env in container.get("env") or []:
            ref = (env.get("valueFrom") or {}).get("configMapKeyRef") or {}
            if isinstance(env.get("value"), str):
                plain.append((f"env {env.get('name')}", env["value"]))
            elif ref:
                want(ref.get("name"), ref.get("key"))
        for env_from in container.get("envFrom") or []:
            want((env_from.get("configMapRef") or {}).get("name"))
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    for vol in spec.get("volumes") or []:
        want((vol.get("configMap") or {}).get("name"))
        for src in (vol.get("projected") or {}).get("sources") or []:
            want((src.get("configMap") or {}).get("name"))
    return plain, maps


async def _configmap_settings(
    reader: KubeReader, found: Findings, namespace: str, maps: dict[str, set[str] | None]
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name, keys in list(maps.items())[:MAX_CONFIGMAPS]:
        try:
            cm = await reader.get("configmaps", name, namespace)
        except SourceError as exc:
            found.gap(f"ConfigMap {namespace}/{name} could not be read: {exc.reason}")
            continue
        data = (cm or {}).get("data")
        for key, value in (data if isinstance(data, dict) else {}).items():
            if (keys is None or key in keys) and isinstance(value, str):
                out.append((f"configmap {name} key {key}", value[:MAX_VALUE]))
    return out


def _setting_key(setting: str) -> str:
    return setting.rsplit(" ", 1)[-1]


async def dependency_facts(
    reader: KubeReader, kind: str, obj: KubeObject, found: Findings, ctx: CallContext
) -> None:
    """One fact per address the workload's configuration names (the first setting that
    names it), with where it is set."""
    ns, name = meta(obj).get("namespace"), name_of(obj)
    plain, maps = _settings(obj)
    settings = plain + (await _configmap_settings(reader, found, ns, maps) if ns else [])
    seen: set[str] = set()
    for setting, value in settings:
        for point in endpoints_in(_setting_key(setting), value):
            if point.host in seen:
                continue
            seen.add(point.host)
            found.facts.append(_fact(reader, kind, name, ns, setting, point, ctx))


def _fact(
    reader: KubeReader,
    kind: str,
    name: str,
    ns: str | None,
    setting: str,
    point: Endpoint,
    ctx: CallContext,
) -> ResultFact:
    where = f"{point.host}:{point.port}" if point.port else point.host
    return ResultFact(
        text=f"{kind} {ns}/{name} is configured to call {where} ({setting})",
        source=reader.source,
        observed_at=ctx.now,
        link=reader.target.link(kind, name, ns),
        historical=False,
        attrs=K8sDependency(
            workload=name,
            namespace=ns,
            host=point.host,
            port=point.port,
            software=point.software,
            setting=setting,
        ),
    )
