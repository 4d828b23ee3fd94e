"""metrics.top's arguments: a measure that does not rank the subject is refused on the
`measure` field, so the retry the model is sent names what to change."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from connectors.victoriametrics._rank_tool import MEASURES, RankArgs
from policy.vocabulary import RankMeasure, RankSubject


def test_every_measure_ranks_some_subject() -> None:
    assert {m for ms in MEASURES.values() for m in ms} == set(RankMeasure)


@pytest.mark.parametrize(
    ("subject", "measure"),
    [("node", "restarts"), ("node", "memory"), ("node", "cpu"), ("pod", "retransmits")],
)
def test_a_measure_that_does_not_fit_names_the_field(subject: str, measure: str) -> None:
    with pytest.raises(ValidationError) as caught:
        RankArgs.model_validate({"env": "dc-a", "subject": subject, "measure": measure})
    (error,) = caught.value.errors()
    assert error["loc"] == ("measure",) and f"{subject}s" in error["msg"]


def test_defaults_and_bounds() -> None:
    args = RankArgs.model_validate({"env": "dc-a", "subject": "pod", "measure": "memory"})
    assert (args.limit, args.order, args.namespace) == (5, "top", None)
    assert args.subject is RankSubject.POD
    for bad in ({"limit": 0}, {"limit": 21}, {"order": "middle"}, {"sort": "desc"}):
        with pytest.raises(ValidationError):
            RankArgs.model_validate({"env": "dc-a", "subject": "pod", "measure": "cpu", **bad})
