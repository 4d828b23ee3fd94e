"""The typed evidence vocabulary: every fact kind has its attribute model, a connector's
typo is an error naming the attribute, and a log document's odd shapes never lose a
read."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import ValidationError

from policy.facts import FACT_RANKS, EdgeAccess, EntityKind, FactAttrs, FactKind, K8sPod
from policy.results import ResultFact


def _models() -> dict[FactKind, type]:
    union = get_args(get_args(FactAttrs)[0])
    return {m.model_fields["kind"].default: m for m in union}


def test_every_fact_kind_has_one_attribute_model() -> None:
    models = _models()
    assert len(models) == len(get_args(get_args(FactAttrs)[0])), "two models claim one kind"
    # knowledge is said by the knowledge store in answers, never by a tool
    assert set(models) == set(FactKind) - {FactKind.KNOWLEDGE}


def test_a_fact_written_with_its_kind_gets_that_kinds_typed_attributes() -> None:
    fact = ResultFact(text="pod p on n", kind="k8s.pod", source="kubernetes", attrs={"node": "n"})
    assert fact.kind is FactKind.K8S_POD
    assert isinstance(fact.attrs, K8sPod) and fact.attrs.node == "n"
    bare = ResultFact(text="x", kind="negative", source="policy")
    assert bare.kind is FactKind.NEGATIVE


def test_an_attribute_the_kind_does_not_have_is_an_error_naming_it() -> None:
    with pytest.raises(ValidationError) as err:
        ResultFact(text="x", kind="k8s.pod", source="kubernetes", attrs={"nodename": "n"})
    assert "nodename" in str(err.value)
    with pytest.raises(ValidationError, match="does not match"):
        ResultFact(text="x", kind="k8s.pod", source="kubernetes", attrs=EdgeAccess())


def test_a_log_documents_odd_shapes_are_kept_as_scalars() -> None:
    """ECS writes `host` as an object, some shippers write status as text: the read is
    kept, never failed for a shape."""
    attrs = EdgeAccess(host={"name": "edge-1"}, status="502", connection=12, request_time=0.25)
    assert attrs.host == '{"name": "edge-1"}'
    assert attrs.status == "502" and attrs.connection == 12 and attrs.request_time == 0.25


def test_an_unlisted_kubernetes_kind_is_an_object_entity() -> None:
    assert EntityKind.of("Deployment") is EntityKind.DEPLOYMENT
    assert EntityKind.of("HorizontalPodAutoscaler") is EntityKind.OBJECT


def test_every_fact_kind_declares_its_own_rank() -> None:
    """The order facts are kept and shown in lives on each kind's model: a new kind cannot
    silently fall to the end (nor inherit a neighbour's place)."""
    for kind, model in _models().items():
        assert "rank" in vars(model), f"{model.__name__} ({kind}) declares no rank"
    assert set(FACT_RANKS) == set(_models())
    assert FACT_RANKS[FactKind.EDGE_ERROR] < FACT_RANKS[FactKind.APP_LOG]
