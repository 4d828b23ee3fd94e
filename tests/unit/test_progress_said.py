"""What a person reads while a turn reads its sources: which read, of which object, where
("Reading events and logs of svc-x in dc-x"), in both languages, merged and capped, with a
fallback for a tool that has no words of its own."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from planner.shapes.language import Language
from planner.shapes.progress import (
    CallState,
    ProgressEvent,
    ReadKind,
    ReadSubject,
    SubjectKind,
    read_kind,
    read_subject,
)
from planner.shapes.progress_said import _READS, _SUBJECTS, reading_lines, summarize
from policy.contracts import OutputKind, ToolContract
from policy.vocabulary import EVIDENCE_KINDS
from tests.unit.toolkit import NodeArgs, agent

WORKLOAD = SubjectKind.WORKLOAD


def reading(
    tool: str,
    read: ReadKind | None,
    name: str | None = "svc-x",
    *,
    kind: SubjectKind = WORKLOAD,
    env: str | None = "dc-x",
    state: CallState = CallState.READING,
    source: str = "kubernetes",
) -> ProgressEvent:
    subject = ReadSubject(kind=kind, name=name) if name else None
    return ProgressEvent(tool=tool, source=source, env=env, state=state, read=read, subject=subject)


def lines(events: list[ProgressEvent], language: Language = Language.EN) -> list[str]:
    return reading_lines(summarize(events, language), language)


def test_the_reads_of_one_object_are_one_sentence_each_kind_named_once() -> None:
    events = [
        reading("k8s.events", ReadKind.EVENTS),
        reading("k8s.pod_logs", ReadKind.LOGS),
        reading("logs.app_logs", ReadKind.LOGS, source="elasticsearch"),  # the same to a reader
        reading("k8s.node_health", ReadKind.STATE, "node-1", kind=SubjectKind.NODE),
        reading("metrics.http_errors", ReadKind.ERRORS, state=CallState.DONE),  # over
    ]
    assert lines(events) == [
        "Reading events and logs of svc-x in dc-x",
        "Reading the state of node node-1 in dc-x",
    ]
    assert lines(events, Language.RU) == [
        "Читаю события и логи svc-x в dc-x",
        "Читаю состояние узла node-1 в dc-x",
    ]
    summary = summarize(events, Language.EN)
    assert (summary.done, summary.total) == (1, 5)


def test_a_read_of_a_whole_environment_names_no_object() -> None:
    events = [
        reading("k8s.health_sweep", ReadKind.HEALTH, None),
        reading("k8s.quotas", ReadKind.QUOTAS, "ns-x", kind=SubjectKind.NAMESPACE, env=None),
    ]
    assert lines(events) == ["Reading health in dc-x", "Reading quotas of namespace ns-x"]
    assert lines(events, Language.RU) == [
        "Читаю здоровье в dc-x",
        "Читаю квоты пространства имён ns-x",
    ]


def test_a_tool_with_no_words_is_said_by_its_source() -> None:
    events = [reading("mcp.thing", None, None, source="vendor-x")]
    assert lines(events) == ["Reading vendor-x data in dc-x"]
    assert lines(events, Language.RU) == ["Читаю данные vendor-x в dc-x"]


def test_many_objects_read_at_once_are_capped_and_the_rest_counted() -> None:
    events = [reading("k8s.events", ReadKind.EVENTS, f"svc-{n}") for n in range(6)]
    assert lines(events) == [
        "Reading events of svc-0 in dc-x",
        "Reading events of svc-1 in dc-x",
        "Reading events of svc-2 in dc-x",
        "Reading events of svc-3 in dc-x",
        "+2 more",
    ]
    assert lines(events, Language.RU)[-1] == "и ещё 2"


def test_three_kinds_of_one_object_are_listed_with_commas() -> None:
    events = [
        reading("a", ReadKind.STATE),
        reading("b", ReadKind.EVENTS),
        reading("c", ReadKind.RESTARTS),
    ]
    assert lines(events) == ["Reading the state, events and restarts of svc-x in dc-x"]
    assert lines(events, Language.RU) == ["Читаю состояние, события и перезапуски svc-x в dc-x"]


def test_every_kind_of_read_and_subject_has_words_in_both_languages() -> None:
    for words in [*(_READS[k] for k in ReadKind), *(_SUBJECTS[k] for k in SubjectKind)]:
        english, russian = words
        assert english and russian
        assert english != russian or "{name}" in english


def test_every_evidence_kind_of_the_vocabulary_is_a_read_with_words() -> None:
    for kind in EVIDENCE_KINDS:
        contract = _contract([kind])
        assert read_kind(contract) is not None, kind


def _contract(evidence: list[str], **meta: Any) -> ToolContract:
    return ToolContract(
        name="x.tool", description="d", args_model=NodeArgs, agent=agent(evidence, "s", **meta)
    )


def test_a_new_kind_is_read_by_its_facet_then_by_what_the_tool_returns() -> None:
    assert read_kind(_contract(["k8s.novel"], facets={"k8s.novel": "events"})) is ReadKind.EVENTS
    assert read_kind(_contract([], output_kind="series")) is ReadKind.METRICS
    assert read_kind(_contract([], output_kind="table")) is None
    assert "table" in get_args(OutputKind)


@pytest.mark.parametrize(
    ("arguments", "subject"),
    [
        ({"env": "e", "namespace": "ns", "service": "svc", "pod": "svc-1"}, ("pod", "svc-1")),
        ({"env": "e", "namespace": "ns", "service": "svc"}, ("workload", "svc")),
        ({"env": "e", "pods": ["p-1", "p-2"], "service": "svc"}, ("workload", "svc")),
        ({"env": "e", "nodes": ["n-1"]}, ("node", "n-1")),
        ({"env": "e", "project": "group/app"}, ("project", "group/app")),
        ({"env": "e", "namespace": "ns"}, ("namespace", "ns")),
        ({"env": "e"}, None),
        ({"env": "e", "service": "_evil_ **bold** <b>"}, None),  # not a name: not repeated
    ],
)
def test_the_subject_is_the_most_particular_name_in_the_arguments(
    arguments: dict[str, Any], subject: tuple[str, str] | None
) -> None:
    found = read_subject(arguments)
    assert (None if found is None else (found.kind.value, found.name)) == subject


async def test_the_executor_tells_what_each_read_is_and_of_what() -> None:
    from datetime import UTC, datetime

    from planner.plan.routing import PlannedCall
    from planner.read.executor import Executor
    from planner.read.workspace import TurnWorkspace
    from policy.gate import PolicyGate
    from policy.scope import Scope
    from policy.toolset import CallContext, ToolSet
    from tests.unit.toolkit import facts_result, make_tool

    tool = make_tool(
        "metrics.node_network",
        NodeArgs,
        agent(["node.network"], "metrics"),
        ["dc-x"],
        facts_result("metrics.node_network", "metrics", [("n", "node.network", {})]),
    )
    told: list[ProgressEvent] = []
    ctx = CallContext(user="u", role="engineer", scope=Scope(env="dc-x"), now=datetime.now(UTC))
    executor = Executor(
        gate=PolicyGate(ToolSet([tool])),
        ctx=ctx,
        workspace=TurnWorkspace(),
        progress=told.append,
        contracts={"metrics.node_network": tool.contract},
    )
    call = PlannedCall("metrics.node_network", '{"env":"dc-x","node":"n-1"}', "dc-x", "metrics", ())
    await executor.run([call])
    assert [e.state for e in told] == [CallState.READING, CallState.DONE]
    assert told[0].read is ReadKind.NETWORK
    assert told[0].subject == ReadSubject(kind=SubjectKind.NODE, name="n-1")
    assert lines(told[:1]) == ["Reading the network of node n-1 in dc-x"]


async def test_a_read_that_failed_says_why_in_the_log() -> None:
    """Class "a connection error that says what failed": the log line of a failed read
    carries the source's own reason (its URL and how it failed), not only "error"."""
    from datetime import UTC, datetime

    from structlog.testing import capture_logs

    from planner.plan.routing import PlannedCall
    from planner.read.executor import Executor
    from planner.read.workspace import TurnWorkspace
    from policy.errors import SourceUnavailable
    from policy.gate import PolicyGate
    from policy.scope import Scope
    from policy.toolset import CallContext, ToolSet
    from tests.unit.toolkit import make_tool, raising

    reason = "cannot connect to https://vm.example:8428: name not resolved"
    tool = make_tool(
        "metrics.node_network",
        NodeArgs,
        agent(["node.network"], "metrics"),
        ["dc-x"],
        raising(SourceUnavailable("metrics", reason)),
    )
    ctx = CallContext(user="u", role="engineer", scope=Scope(env="dc-x"), now=datetime.now(UTC))
    executor = Executor(
        gate=PolicyGate(ToolSet([tool])),
        ctx=ctx,
        workspace=TurnWorkspace(),
        progress=lambda _e: None,
        contracts={"metrics.node_network": tool.contract},
    )
    call = PlannedCall("metrics.node_network", '{"env":"dc-x","node":"n-1"}', "dc-x", "metrics", ())
    with capture_logs() as logs:
        await executor.run([call])
    (line,) = [x for x in logs if x["event"] == "tool.call"]
    assert line["status"] == "error" and line["error_kind"] == "unavailable"
    assert reason in line["error"]
