"""The tool selection on a large synthetic catalogue (benchmarks/catalogue_data.py): the
labelled questions find their tool among the 8 chosen, and choosing stays fast. The goals
(median < 50 ms on 18,505 tools, recall@8 >= 0.95) are reported by benchmarks/catalogue.py;
this test guards the recall reached and a generous CPU-time bound per question."""

from __future__ import annotations

import time

from benchmarks.catalogue_data import QUESTIONS, catalogue, gold
from planner.model import catalogue as cat
from planner.plan.objectives import QuestionPlan
from policy.gate import admitted

SLICE = 2_500
RECALL = 0.95  # reached: 0.972 on this slice, 0.965 on the full 18,505 (goal 0.95)
CPU_S_PER_QUESTION = 0.5  # the goal is 50 ms wall on the full catalogue: 10x, on a slice
GENERAL = QuestionPlan(intent="triage", variant="default", catalogue_version=1, objectives=[])


def test_recall_at_8_and_time_on_a_slice_of_the_catalogue() -> None:
    every = catalogue(SLICE)
    assert len(every) == SLICE and len({c.name for c in every}) == SLICE
    tools = [c for c in every if admitted(c, "engineer")[0]]
    assert len(tools) < len(every)  # the write tools are not admitted
    assert len(QUESTIONS) >= 100
    index = cat.index_of(tools)
    assert cat.index_of(list(tools)) is index  # built once per catalogue
    hits = 0
    start = time.process_time()
    for question, service, op, server in QUESTIONS:
        wanted = gold(every, service, op, server)
        assert wanted, question
        selection = cat.select(tools, question=question, plan=GENERAL, open_ids=set())
        assert len(selection.chosen) == 8 and len(selection.prefiltered) == 30
        hits += bool({c.name for c in selection.chosen} & wanted)
    spent = time.process_time() - start
    assert hits / len(QUESTIONS) >= RECALL
    assert spent / len(QUESTIONS) < CPU_S_PER_QUESTION


def test_the_catalogue_is_deterministic_and_its_schemas_trim() -> None:
    first, again = catalogue(600, seed=7), catalogue.__wrapped__(600, seed=7)
    assert [c.name for c in first] == [c.name for c in again]
    assert [c.description for c in first] == [c.description for c in again]
    for c in first[:50]:
        spec = cat.trimmed_spec(c)["function"]
        assert spec["parameters"]["additionalProperties"] is False
        assert set(spec["parameters"]["properties"]) == set(c.input_schema()["properties"])
