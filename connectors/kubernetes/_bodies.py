"""What the Kubernetes API answers, typed where it enters the connector (`_client`): every
object's envelope and metadata, and an Event's fields.

`spec` and `status` stay mappings: their shape is the kind's (a Pod's is not a Node's),
and each tool reads the few fields it needs from them with `.get`. Every field is
optional (`total=False`): the API leaves empty ones out.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast


class OwnerReference(TypedDict, total=False):
    apiVersion: str
    kind: str
    name: str
    uid: str
    controller: bool


class ObjectMeta(TypedDict, total=False):
    name: str
    namespace: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    ownerReferences: list[OwnerReference]
    creationTimestamp: str
    deletionTimestamp: str
    generation: int
    resourceVersion: str


class ObjectReference(TypedDict, total=False):
    kind: str
    name: str
    namespace: str
    uid: str
    fieldPath: str


class KubeObject(TypedDict, total=False):
    """Any object a get or a list returns."""

    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: dict[str, Any]
    status: dict[str, Any]


class EventSeries(TypedDict, total=False):
    count: int
    lastObservedTime: str


class EventSource(TypedDict, total=False):
    component: str
    host: str


class EventBody(KubeObject, total=False):
    """A core/v1 Event (events.k8s.io/v1 names some fields otherwise: `note`, `regarding`)."""

    reason: str
    message: str
    note: str
    type: str  # Normal | Warning
    count: int
    series: EventSeries
    involvedObject: ObjectReference
    regarding: ObjectReference
    firstTimestamp: str | None
    lastTimestamp: str | None
    eventTime: str | None
    source: EventSource
    reportingComponent: str


class EndpointConditions(TypedDict, total=False):
    ready: bool | None
    serving: bool | None
    terminating: bool | None


class Endpoint(TypedDict, total=False):
    addresses: list[str]
    conditions: EndpointConditions
    targetRef: ObjectReference
    nodeName: str
    zone: str


class EndpointPort(TypedDict, total=False):
    name: str
    port: int
    protocol: str


class EndpointSliceBody(KubeObject, total=False):
    """A discovery.k8s.io/v1 EndpointSlice: its endpoints and ports sit beside metadata."""

    endpoints: list[Endpoint]
    ports: list[EndpointPort]


def as_events(items: list[KubeObject]) -> list[EventBody]:
    """The items of an `events` list, read as Events."""
    return cast(list[EventBody], items)


def as_endpoint_slices(items: list[KubeObject]) -> list[EndpointSliceBody]:
    """The items of an `endpointslices` list, read as EndpointSlices."""
    return cast(list[EndpointSliceBody], items)
