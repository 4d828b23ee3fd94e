"""Where each edge proxy and mesh keeps its request counters, and how a service is named.

Class "another proxy is not no data": ingress-nginx counts `nginx_ingress_controller_requests`
by `status` and labels the workload `service` (or, scraped by kube-prometheus, with the
label renamed `exported_service`); Traefik counts `traefik_service_requests_total` by `code`
and names the service `<namespace>-<service>-<port>@<provider>`; Istio's sidecars count
`istio_requests_total` by `response_code` with the destination in
`destination_service_name`, once by the caller (`reporter="source"`) and once by the
callee (`reporter="destination"`); HAProxy counts `haproxy_backend_http_responses_total`
by status *class* (`code="5xx"`) per `proxy` (a backend such as `be_<service>`).

A layout is picked by what the series API holds for the question's scope: every layout's
candidate selectors go into one instant query and the first that has series wins. None
having any is "no data" that names every metric looked for, never zero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from connectors.victoriametrics._common import Matcher


class Naming(StrEnum):
    """How a label holds a service's name."""

    EXACT = "exact"  # the name itself
    TRAEFIK = "traefik"  # [<namespace>-]<service>-<port>@<provider>
    WORDS = "words"  # the name's words among others: be_<a>_<b> for <a>-<b>


@dataclass(frozen=True)
class Variant:
    """One way the same exporter's series are labelled: labels renamed by the scrape
    (kube-prometheus's exported_*), or one reporter of two that count the same request."""

    renames: Mapping[str, str] = field(default_factory=dict)
    extra: tuple[Matcher, ...] = ()
    said: str = ""  # how the answer names this variant, when it matters


@dataclass(frozen=True)
class HttpLayout:
    name: str
    requests: str  # the request counter
    status_label: str
    service_labels: tuple[tuple[str, Naming], ...]
    namespace_label: str | None = None  # None: the namespace is part of the name, or absent
    variants: tuple[Variant, ...] = (Variant(),)
    classes_only: bool = False  # the status label holds 1xx..5xx, never one code
    buckets: str | None = None  # request duration histogram
    bucket_unit_s: float = 1.0
    detail_labels: tuple[str, ...] = ()  # shown beside the status (Istio response_flags)
    # requests the chosen variant does not see, counted by another reporter: read beside
    # it when the first variant was chosen (Istio: callers without a sidecar)
    unreached: Variant | None = None
    group_labels: tuple[str, ...] = ()  # the labels a per-series answer keeps

    def label(self, variant: Variant, name: str) -> str:
        return variant.renames.get(name, name)

    def tries(
        self, namespace: str | None, names: list[str] | None
    ) -> list[tuple[list[Matcher], Variant]]:
        """Selectors to try, best first: under each name its labels, under each label
        the variants."""
        out: list[tuple[list[Matcher], Variant]] = []
        for variant in self.variants:
            if names is None:
                scoped = self._namespace_only(variant, namespace)
                if scoped is not None:
                    out.append((scoped, variant))
        for name in names or []:
            for label, naming in self.service_labels:
                for variant in self.variants:
                    matcher = _name_matcher(self.label(variant, label), naming, name, namespace)
                    if matcher is not None:
                        out.append(([*self._base(variant, namespace), matcher], variant))
        return out

    def _namespace_only(self, variant: Variant, namespace: str | None) -> list[Matcher] | None:
        """A whole namespace (or env): by its label, by the namespace a Traefik service
        name begins with, or not at all (a HAProxy backend says no namespace: reading every
        backend would answer for other namespaces)."""
        if not namespace or self.namespace_label:
            return self._base(variant, namespace)
        for label, naming in self.service_labels:
            if naming is Naming.TRAEFIK:
                return [*variant.extra, (label, "=~", f"{re.escape(namespace)}-.+@.+")]
        return None

    def _base(self, variant: Variant, namespace: str | None) -> list[Matcher]:
        scoped: list[Matcher] = list(variant.extra)
        if namespace and self.namespace_label:
            scoped.append((self.label(variant, self.namespace_label), "=", namespace))
        return scoped

    def status(self, asked: str) -> tuple[Matcher, str | None]:
        """The matcher for an asked status ("502", "5xx", "50x"), and what it cannot say."""
        if self.classes_only:
            cls = f"{asked[0]}xx"
            note = None
            if asked != cls:
                note = (
                    f"{self.name} counts responses by class only ({cls}): the number covers "
                    f"every {cls} status, not {asked} alone"
                )
            return (self.status_label, "=", cls), note
        if "x" in asked:
            return (self.status_label, "=~", asked.replace("x", ".")), None
        return (self.status_label, "=", asked), None

    def by(self) -> str:
        return ", ".join(
            dict.fromkeys([*self.group_labels, self.status_label, *self.detail_labels])
        )

    def plain(self, labels: Mapping[str, str], variant: Variant) -> dict[str, str]:
        """A series' labels under the names the answer uses: namespace, name, status,
        and any detail (flags)."""
        back = {v: k for k, v in variant.renames.items()}
        own = {back.get(k, k): v for k, v in labels.items()}
        if variant.renames:  # the renamed label wins over the scrape target's own
            own.update({k: labels[v] for k, v in variant.renames.items() if labels.get(v)})
        out: dict[str, str] = {}
        if self.namespace_label and own.get(self.namespace_label):
            out["namespace"] = own[self.namespace_label]
        for label, _naming in self.service_labels:
            if own.get(label):
                out.setdefault("name", own[label])
                out[label] = own[label]
        if own.get(self.status_label):
            out["status"] = own[self.status_label]
        for detail in self.detail_labels:
            if own.get(detail) not in (None, "", "-"):
                out[detail] = own[detail]
        return out


def _words(name: str) -> str:
    return "[-_.]".join(re.escape(w) for w in re.split(r"[-_.]+", name) if w)


def _name_matcher(label: str, naming: Naming, name: str, namespace: str | None) -> Matcher | None:
    if naming is Naming.EXACT:
        return (label, "=", name)
    if naming is Naming.TRAEFIK:
        ns = f"({re.escape(namespace)}-)?" if namespace else "(.+-)?"
        return (label, "=~", f"{ns}{re.escape(name)}-[^-@]+@.+")
    # the name's words, whole, after any prefix (be_, bk_, a site name) and before only a
    # word that says "backend": be_<svc>_canary is another backend than <svc>'s
    return (label, "=~", f"(?i)(.*[-_.])?{_words(name)}([-_.]{_BACKEND_WORDS})?")


# Envoy's response flags, as its access-log documentation names them (Istio reports them)
ENVOY_FLAGS = {
    "UH": "no healthy upstream",
    "UF": "upstream connection failure",
    "UO": "upstream overflow (circuit breaking)",
    "NR": "no route configured",
    "URX": "upstream retry limit exceeded",
    "NC": "upstream cluster not found",
    "DT": "request or connection exceeded max duration",
    "DC": "downstream connection termination",
    "LH": "local service failed health check",
    "UT": "upstream request timeout",
    "LR": "connection local reset",
    "UR": "upstream remote reset",
    "UC": "upstream connection termination",
    "DI": "delayed by fault injection",
    "FI": "aborted by fault injection",
    "RL": "rate limited locally",
    "UAEX": "denied by the external authorization service",
    "RLSE": "rate limit service error",
    "IH": "strictly-checked header had an invalid value",
    "SI": "stream idle timeout",
    "DPE": "downstream protocol error",
    "UPE": "upstream protocol error",
    "UMSDR": "upstream request reached max stream duration",
    "OM": "overload manager terminated the request",
}


def flags_said(flags: str) -> str:
    """ "UF,URX" -> "UF (upstream connection failure), URX (upstream retry limit exceeded)"."""
    return ", ".join(
        f"{f} ({ENVOY_FLAGS[f]})" if f in ENVOY_FLAGS else f for f in flags.split(",") if f
    )


_BACKEND_WORDS = "(backend|backends|be|bk|back|svc|service|servers?|pool|cluster|http|https)"
RELABELLED = {"namespace": "exported_namespace", "service": "exported_service"}

INGRESS_NGINX = HttpLayout(
    name="ingress-nginx",
    requests="nginx_ingress_controller_requests",
    status_label="status",
    service_labels=(("service", Naming.EXACT), ("ingress", Naming.EXACT)),
    namespace_label="namespace",
    # as the exporter labels them, then as kube-prometheus relabels them when the scrape
    # target's own labels collide (the ingress's namespace becomes exported_namespace)
    variants=(Variant(), Variant(renames=RELABELLED)),
    buckets="nginx_ingress_controller_request_duration_seconds_bucket",
    group_labels=("namespace", "exported_namespace", "ingress", "service", "exported_service"),
)
TRAEFIK = HttpLayout(
    name="Traefik",
    requests="traefik_service_requests_total",
    status_label="code",
    service_labels=(("service", Naming.TRAEFIK),),
    buckets="traefik_service_request_duration_seconds_bucket",
    group_labels=("service",),
)
TRAEFIK_V1 = HttpLayout(
    name="Traefik 1.x",
    requests="traefik_backend_requests_total",
    status_label="code",
    service_labels=(("backend", Naming.WORDS),),
    buckets="traefik_backend_request_duration_seconds_bucket",
    group_labels=("backend",),
)
ISTIO = HttpLayout(
    name="Istio",
    requests="istio_requests_total",
    status_label="response_code",
    service_labels=(
        ("destination_service_name", Naming.EXACT),
        ("destination_workload", Naming.EXACT),
        ("destination_canonical_service", Naming.EXACT),
    ),
    namespace_label="destination_service_namespace",
    # each request once: as its caller's sidecar saw it (what the caller got, including
    # what never reached the service or timed out on the way: UF, URX, UT...), and the
    # requests of callers without a sidecar as the service's own sidecar saw them
    # (source_workload="unknown"); with no caller in the mesh, the service's sidecar alone
    variants=(
        Variant(extra=(("reporter", "=", "source"),), said="as the callers' sidecars report"),
        Variant(extra=(("reporter", "=", "destination"),), said="as the service's sidecar reports"),
    ),
    unreached=Variant(
        extra=(("reporter", "=", "destination"), ("source_workload", "=", "unknown")),
        said="from callers without a sidecar, as the service's sidecar reports",
    ),
    buckets="istio_request_duration_milliseconds_bucket",
    bucket_unit_s=0.001,
    detail_labels=("response_flags",),
    group_labels=("destination_service_name", "destination_service_namespace"),
)
HAPROXY = HttpLayout(
    name="HAProxy",
    requests="haproxy_backend_http_responses_total",
    status_label="code",
    service_labels=(
        ("proxy", Naming.EXACT),
        ("backend", Naming.EXACT),
        ("proxy", Naming.WORDS),
        ("backend", Naming.WORDS),
    ),
    classes_only=True,
    group_labels=("proxy", "backend"),
)
ENVOY = HttpLayout(
    name="Envoy",
    requests="envoy_cluster_upstream_rq",
    status_label="envoy_response_code",
    service_labels=(("envoy_cluster_name", Naming.WORDS),),
    group_labels=("envoy_cluster_name",),
)
LAYOUTS: tuple[HttpLayout, ...] = (INGRESS_NGINX, TRAEFIK, ISTIO, HAPROXY, TRAEFIK_V1, ENVOY)
