"""Reads from one Kubernetes API server: the only module that touches the SDK's calls.

Every read goes through the official client's REST layer (`ApiClient.param_serialize` +
`call_api`: auth, TLS, the urllib3 pool and its `ApiException`s) with the resource path
written here, and the connector parses the JSON itself. Two reasons: the generated models
validate strictly (a Node whose `nodeInfo` lacks `bootID` fails to deserialize) and an
unparseable body must surface as `SourceMalformed`, never as an empty model; and the
generated `*Api` classes import most of the SDK's models, over a second of every cold
start. Every call passes `_request_timeout=target.timeout_s`; urllib3 retries are off so
that one timeout is one timeout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import structlog
import urllib3
from kubernetes.client.api_client import ApiClient
from kubernetes.client.exceptions import ApiException

from connectors.kit.threads import SourceThreads
from connectors.kit.unreachable import safe_url, unreachable_said
from connectors.kubernetes._access import build_access
from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._settings import KubernetesTarget
from policy.errors import (
    SourceError,
    SourceForbidden,
    SourceMalformed,
    SourceTimeout,
    SourceUnavailable,
    SourceUnsupported,
)

log = structlog.get_logger(__name__)

AUDIT_GROUP, AUDIT_VERSION, AUDIT_PLURAL = "audit.infrabot.dev", "v1", "auditevents"
PAGE_SIZE = 500
POOL_SIZE = 8  # connections to one API server, and threads reading through them
MAX_LIST_ITEMS = 5000

# resource -> (API group path, namespaced)
_RESOURCES: dict[str, tuple[str, bool]] = {
    "pods": ("/api/v1", True),
    "events": ("/api/v1", True),
    "services": ("/api/v1", True),
    "configmaps": ("/api/v1", True),
    "resourcequotas": ("/api/v1", True),
    "nodes": ("/api/v1", False),
    "namespaces": ("/api/v1", False),
    "deployments": ("/apis/apps/v1", True),
    "replicasets": ("/apis/apps/v1", True),
    "statefulsets": ("/apis/apps/v1", True),
    "daemonsets": ("/apis/apps/v1", True),
    "cronjobs": ("/apis/batch/v1", True),
    "jobs": ("/apis/batch/v1", True),
    "endpointslices": ("/apis/discovery.k8s.io/v1", True),
    "ingresses": ("/apis/networking.k8s.io/v1", True),
    "networkpolicies": ("/apis/networking.k8s.io/v1", True),
    "horizontalpodautoscalers": ("/apis/autoscaling/v2", True),
    AUDIT_PLURAL: (f"/apis/{AUDIT_GROUP}/{AUDIT_VERSION}", True),
}
_GETTABLE = frozenset(
    {
        "pods",
        "services",
        "configmaps",
        "nodes",
        "namespaces",
        "deployments",
        "statefulsets",
        "daemonsets",
    }
)


def resource_path(resource: str, namespace: str | None = None, name: str | None = None) -> str:
    """`/api/v1/namespaces/{namespace}/pods/{name}`: the REST path of a list or an object;
    a namespaced resource without a namespace lists across all namespaces."""
    group, namespaced = _RESOURCES[resource]
    path = group
    if namespaced and namespace:
        path += "/namespaces/{namespace}"
    path += f"/{resource}"
    if name is not None:
        path += "/{name}"
    return path


@dataclass
class ListRead:
    """The items of one list, and whether that list was read to its end."""

    items: list[KubeObject]
    complete: bool = True
    note: str | None = None


@dataclass
class LogRead:
    body: str
    missing: str | None = None  # the API server's reason when there is no such stream


def status_message(exc: ApiException) -> tuple[str, dict[str, Any]]:
    """The `Status` message and details of an error answer (or its first bytes)."""
    try:
        body = json.loads(exc.body or "")
    except (TypeError, ValueError):
        return (str(exc.body or exc.reason or "")[:200]).strip(), {}
    if not isinstance(body, dict):
        return str(body)[:200], {}
    return str(body.get("message") or exc.reason or "")[:300], body.get("details") or {}


class KubeReader:
    """One ApiClient (so one urllib3 connection pool) per environment, kept for the life
    of the process and closed by `aclose`. Its configuration is the target's own
    (`_access`: URL, kubeconfig context or in-cluster ServiceAccount)."""

    def __init__(self, target: KubernetesTarget) -> None:
        self.target = target
        self.env = target.env
        self.source = f"kubernetes/{target.env}"
        access = build_access(target, pool_size=POOL_SIZE)
        self.home_namespace = access.home_namespace  # the credentials' own namespace
        self._client = ApiClient(access.config)
        self._client.user_agent = "infrabot/0.1 (read-only)"
        self._threads = SourceThreads(f"k8s-{target.env}", max_workers=POOL_SIZE)

    async def aclose(self) -> None:
        """Drop the kept-alive connections (urllib3 opens new ones if called again)."""
        self._threads.close()
        self._client.rest_client.pool_manager.clear()

    # -- transport --------------------------------------------------------------------

    async def _request(
        self,
        what: str,
        path: str,
        *,
        path_params: dict[str, str] | None = None,
        query: list[tuple[str, str]] | None = None,
        accept: str = "application/json",
    ) -> bytes:
        """One GET in a worker thread; transport failures become SourceErrors, an HTTP
        error stays an ApiException for the caller to judge."""
        timeout = self.target.timeout_s
        request = self._client.param_serialize(
            method="GET",
            resource_path=path,
            path_params=path_params or {},
            query_params=query or [],
            header_params={"Accept": accept},
            auth_settings=["BearerToken"],
        )

        def fetch() -> bytes:
            resp = self._client.call_api(*request, _request_timeout=timeout)
            try:
                data: bytes = resp.read()  # type: ignore[no-untyped-call]  # untyped SDK
            finally:
                resp.response.release_conn()
            if not 200 <= resp.status <= 299:
                raise ApiException(http_resp=resp)
            return data

        log.debug("k8s.read", env=self.env, what=what)
        try:
            return await self._threads.run(fetch)
        except ApiException as exc:
            if exc.status == 0:  # TLS failure reported by the REST layer
                raise SourceUnavailable(
                    self.source,
                    f"the Kubernetes API of {self.env} failed to {what}: "
                    f"{unreachable_said(self._url, exc)}",
                ) from exc
            raise
        except urllib3.exceptions.NewConnectionError as exc:
            # urllib3 counts a connection that failed as a connect timeout: ask why first
            raise SourceUnavailable(
                self.source,
                f"the Kubernetes API of {self.env} failed to {what}: "
                f"{unreachable_said(self._url, exc, timeout)}",
            ) from exc
        except urllib3.exceptions.TimeoutError as exc:
            raise SourceTimeout(
                self.source,
                f"the Kubernetes API of {self.env} ({safe_url(self._url)}) did not answer "
                f"within {timeout:g} s when asked to {what}",
            ) from exc
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise SourceUnavailable(
                self.source,
                f"the Kubernetes API of {self.env} failed to {what}: "
                f"{unreachable_said(self._url, exc, timeout)}",
            ) from exc

    @property
    def _url(self) -> str:
        """The API server's URL as the client resolved it (a kubeconfig's, in-cluster's)."""
        return str(self._client.configuration.host or self.target.url or "?")

    def error(self, exc: ApiException, what: str) -> SourceError:
        """Map an HTTP error answer to our error tree."""
        code = exc.status or 0
        message, _ = status_message(exc)
        head = f"the Kubernetes API of {self.env} answered {code} when asked to {what}"
        detail = f"{head}: {message}" if message else head
        if code in (401, 403):
            return SourceForbidden(self.source, detail)
        if code == 504:
            return SourceTimeout(self.source, detail)
        if code == 429 or code >= 500:
            return SourceUnavailable(self.source, detail)
        return SourceUnsupported(self.source, detail)

    def parse(self, raw: bytes, what: str, *, listing: bool = False) -> dict[str, Any]:
        try:
            doc = json.loads(raw)
        except ValueError as exc:
            raise SourceMalformed(
                self.source, f"the Kubernetes API of {self.env} sent invalid JSON to {what}"
            ) from exc
        if not isinstance(doc, dict) or (listing and not isinstance(doc.get("items"), list)):
            raise SourceMalformed(
                self.source, f"the Kubernetes API of {self.env} sent no object list to {what}"
            )
        return doc

    # -- reads ------------------------------------------------------------------------

    async def get(
        self, resource: str, name: str, namespace: str | None = None
    ) -> KubeObject | None:
        """One object, or None when the API server says that object does not exist."""
        namespaced = _RESOURCES[resource][1]
        if resource not in _GETTABLE or (namespaced and not namespace):
            raise ValueError(f"cannot get {resource} {name!r} (namespace {namespace!r})")
        what = f"get {resource} {f'{namespace}/' if namespaced else ''}{name}"
        ns = namespace if namespaced else None
        params = {"name": name} | ({"namespace": ns} if ns else {})
        path = resource_path(resource, ns, name)
        try:
            raw = await self._request(what, path, path_params=params)
        except ApiException as exc:
            if exc.status == 404 and status_message(exc)[1].get("name") == name:
                return None
            raise self.error(exc, what) from exc
        return cast(KubeObject, self.parse(raw, what))

    async def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> ListRead:
        """Every item, page by page; a list that cannot be read to its end says so."""
        namespaced = _RESOURCES[resource][1]
        ns = namespace if namespaced else None
        path = resource_path(resource, ns)
        path_params = {"namespace": ns} if ns else {}
        what = f"list {resource}" + (f" in namespace {namespace}" if namespace else "")
        selectors = [
            (k, v)
            for k, v in (("labelSelector", label_selector), ("fieldSelector", field_selector))
            if v
        ]
        items: list[KubeObject] = []
        token: str | None = None
        while True:
            query = [("limit", str(PAGE_SIZE)), *selectors]
            if token:
                query.append(("continue", token))
            try:
                raw = await self._request(what, path, path_params=path_params, query=query)
            except ApiException as exc:
                if exc.status == 410 and token:
                    note = (
                        f"{what}: the API server expired the continue token after "
                        f"{len(items)} items; the rest of the list was not read"
                    )
                    return ListRead(items, False, note)
                if exc.status == 404 and resource == AUDIT_PLURAL:
                    raise SourceUnsupported(
                        self.source,
                        f"no audit backend is exposed in {self.env}: the audit API "
                        f"{AUDIT_GROUP}/{AUDIT_VERSION} {AUDIT_PLURAL} answered 404",
                    ) from exc
                raise self.error(exc, what) from exc
            doc = self.parse(raw, what, listing=True)
            items.extend(cast(KubeObject, i) for i in doc["items"] if isinstance(i, dict))
            token = (doc.get("metadata") or {}).get("continue") or None
            if not token:
                return ListRead(items)
            if len(items) >= MAX_LIST_ITEMS:
                note = f"{what}: stopped after {len(items)} items; more remain"
                return ListRead(items, False, note)

    async def pod_log(
        self,
        namespace: str,
        pod: str,
        container: str,
        *,
        since_time: str | None,
        previous: bool,
        limit_bytes: int,
    ) -> LogRead:
        """One container's log with kubelet timestamps, from the absolute `sinceTime`
        (the relative `sinceSeconds` would count from the API server's clock)."""
        what = f"read logs of {namespace}/{pod}/{container}" + (" (previous)" if previous else "")
        query: list[tuple[str, str]] = [
            ("container", container),
            ("timestamps", "true"),
            ("limitBytes", str(limit_bytes)),
        ]
        if previous:
            query.append(("previous", "true"))
        if since_time:
            query.append(("sinceTime", since_time))
        try:
            raw = await self._request(
                what,
                "/api/v1/namespaces/{namespace}/pods/{name}/log",
                path_params={"namespace": namespace, "name": pod},
                query=query,
                accept="text/plain",
            )
        except ApiException as exc:
            message, details = status_message(exc)
            if exc.status == 400 or (exc.status == 404 and details.get("name") == pod):
                return LogRead("", missing=message or f"{exc.status} {exc.reason}")
            raise self.error(exc, what) from exc
        return LogRead(raw.decode("utf-8", errors="replace"))
