"""Reads from one Kubernetes API server: the only module that touches the SDK's calls.

Every read goes through the official client with `_preload_content=False`, so the
connector parses the JSON itself: the generated models validate strictly (a Node whose
`nodeInfo` lacks `bootID` fails to deserialize) and an unparseable body must surface as
`SourceMalformed`, never as an empty model. Every call passes
`_request_timeout=target.timeout_s`; urllib3 retries are off so that one timeout is one
timeout.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
import urllib3
from kubernetes.client import (
    ApiClient,
    AppsV1Api,
    Configuration,
    CoreV1Api,
    CustomObjectsApi,
    DiscoveryV1Api,
)
from kubernetes.client.exceptions import ApiException

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
MAX_LIST_ITEMS = 5000

# resource -> (api attribute, namespaced list method, all-namespaces/cluster list method)
_LISTS: dict[str, tuple[str, str | None, str]] = {
    "pods": ("core", "list_namespaced_pod", "list_pod_for_all_namespaces"),
    "events": ("core", "list_namespaced_event", "list_event_for_all_namespaces"),
    "services": ("core", "list_namespaced_service", "list_service_for_all_namespaces"),
    "resourcequotas": (
        "core",
        "list_namespaced_resource_quota",
        "list_resource_quota_for_all_namespaces",
    ),
    "nodes": ("core", None, "list_node"),
    "namespaces": ("core", None, "list_namespace"),
    "deployments": ("apps", "list_namespaced_deployment", "list_deployment_for_all_namespaces"),
    "replicasets": ("apps", "list_namespaced_replica_set", "list_replica_set_for_all_namespaces"),
    "statefulsets": (
        "apps",
        "list_namespaced_stateful_set",
        "list_stateful_set_for_all_namespaces",
    ),
    "daemonsets": ("apps", "list_namespaced_daemon_set", "list_daemon_set_for_all_namespaces"),
    "endpointslices": (
        "discovery",
        "list_namespaced_endpoint_slice",
        "list_endpoint_slice_for_all_namespaces",
    ),
}
_GETS: dict[str, tuple[str, str, bool]] = {
    "pods": ("core", "read_namespaced_pod", True),
    "services": ("core", "read_namespaced_service", True),
    "nodes": ("core", "read_node", False),
    "namespaces": ("core", "read_namespace", False),
    "deployments": ("apps", "read_namespaced_deployment", True),
    "statefulsets": ("apps", "read_namespaced_stateful_set", True),
    "daemonsets": ("apps", "read_namespaced_daemon_set", True),
}


@dataclass
class ListRead:
    """The items of one list, and whether that list was read to its end."""

    items: list[dict[str, Any]]
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
    """One ApiClient per environment, built from an explicit Configuration."""

    def __init__(self, target: KubernetesTarget) -> None:
        self.target = target
        self.env = target.env
        self.source = f"kubernetes/{target.env}"
        config = Configuration(
            host=target.url,
            retries=False,
            verify_ssl=target.verify_tls,
            ssl_ca_cert=target.ca_cert_path,
            connection_pool_maxsize=8,
        )
        if target.token is not None:
            config.api_key = {"BearerToken": target.token.get_secret_value()}
            config.api_key_prefix = {"BearerToken": "Bearer"}
        self._client = ApiClient(config)
        self._client.user_agent = "infrabot/0.1 (read-only)"
        self._apis: dict[str, Any] = {
            "core": CoreV1Api(self._client),
            "apps": AppsV1Api(self._client),
            "discovery": DiscoveryV1Api(self._client),
            "custom": CustomObjectsApi(self._client),
        }

    # -- transport --------------------------------------------------------------------

    async def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> bytes:
        """Run one SDK call in a worker thread; transport failures become SourceErrors,
        an HTTP error stays an ApiException for the caller to judge."""
        timeout = self.target.timeout_s

        def fetch() -> bytes:
            resp = fn(*args, _preload_content=False, _request_timeout=timeout, **kwargs)
            try:
                return resp.data
            finally:
                resp.release_conn()

        log.debug("k8s.read", env=self.env, what=what)
        try:
            return await asyncio.to_thread(fetch)
        except ApiException as exc:
            if exc.status == 0:  # TLS failure reported by the REST layer
                raise SourceUnavailable(self.source, f"{what}: {exc.reason}") from exc
            raise
        except urllib3.exceptions.NewConnectionError as exc:
            raise SourceUnavailable(
                self.source, f"cannot connect to the Kubernetes API of {self.env} to {what}"
            ) from exc
        except urllib3.exceptions.TimeoutError as exc:
            raise SourceTimeout(
                self.source,
                f"the Kubernetes API of {self.env} did not answer within {timeout:g} s "
                f"when asked to {what}",
            ) from exc
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise SourceUnavailable(
                self.source, f"the Kubernetes API of {self.env} failed to {what}: {exc}"
            ) from exc

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
    ) -> dict[str, Any] | None:
        """One object, or None when the API server says that object does not exist."""
        api, method, namespaced = _GETS[resource]
        what = f"get {resource} {namespace + '/' if namespaced else ''}{name}"
        fn = getattr(self._apis[api], method)
        args = (name, namespace) if namespaced else (name,)
        try:
            raw = await self._call(what, fn, *args)
        except ApiException as exc:
            if exc.status == 404 and status_message(exc)[1].get("name") == name:
                return None
            raise self.error(exc, what) from exc
        return self.parse(raw, what)

    async def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> ListRead:
        """Every item, page by page; a list that cannot be read to its end says so."""
        if resource == AUDIT_PLURAL:
            custom = self._apis["custom"]
            if namespace:
                fn: Callable[..., Any] = custom.list_namespaced_custom_object
                args: tuple[Any, ...] = (AUDIT_GROUP, AUDIT_VERSION, namespace, AUDIT_PLURAL)
            else:
                fn = custom.list_cluster_custom_object
                args = (AUDIT_GROUP, AUDIT_VERSION, AUDIT_PLURAL)
        else:
            api, namespaced_method, cluster_method = _LISTS[resource]
            if namespace and namespaced_method:
                fn, args = getattr(self._apis[api], namespaced_method), (namespace,)
            else:
                fn, args = getattr(self._apis[api], cluster_method), ()
        what = f"list {resource}" + (f" in namespace {namespace}" if namespace else "")
        selectors = {
            k: v
            for k, v in (("label_selector", label_selector), ("field_selector", field_selector))
            if v
        }
        items: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            extra = {"_continue": token} if token else {}
            try:
                raw = await self._call(what, fn, *args, limit=PAGE_SIZE, **selectors, **extra)
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
            items.extend(i for i in doc["items"] if isinstance(i, dict))
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
        """One container's log with kubelet timestamps.

        The generated `read_namespaced_pod_log` has no `sinceTime` parameter (only the
        relative `sinceSeconds`, which counts from the API server's clock), so this one
        request is built with the client's own `param_serialize` / `call_api`."""
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
        request = self._client.param_serialize(
            method="GET",
            resource_path="/api/v1/namespaces/{namespace}/pods/{name}/log",
            path_params={"namespace": namespace, "name": pod},
            query_params=query,
            header_params={"Accept": "text/plain"},
            auth_settings=["BearerToken"],
        )

        def call(**kwargs: Any) -> Any:
            kwargs.pop("_preload_content")
            resp = self._client.call_api(*request, **kwargs)
            resp.read()
            if not 200 <= resp.status <= 299:
                raise ApiException(http_resp=resp)
            return resp.response

        try:
            raw = await self._call(what, call)
        except ApiException as exc:
            message, details = status_message(exc)
            if exc.status == 400 or (exc.status == 404 and details.get("name") == pod):
                return LogRead("", missing=message or f"{exc.status} {exc.reason}")
            raise self.error(exc, what) from exc
        return LogRead(raw.decode("utf-8", errors="replace"))
