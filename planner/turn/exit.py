"""The exit of every turn: what the user pasted (the question), what tools returned
(facts, links, errors in gaps and tool calls) and what was derived from them (summary,
hypotheses, scope) are redacted here, once, whichever way the turn ended."""

from __future__ import annotations

from planner.shapes.answer import Answer, ToolCallRecord
from policy.hostile import describe, describe_obj
from policy.redaction import redact_memo, redact_obj


def redact_answer(
    answer: Answer,
    keep_query_hosts: frozenset[str] = frozenset(),
    memo: dict[str, str] | None = None,
) -> Answer:
    memo = {} if memo is None else memo

    def r(text: str) -> str:
        return describe(redact_memo(text, keep_query_hosts, memo))

    def maybe(text: str | None) -> str | None:
        return r(text) if text is not None else None

    scope = answer.scope.model_copy(
        update={
            "env": maybe(answer.scope.env),
            "namespace": maybe(answer.scope.namespace),
            "object": maybe(answer.scope.object),
            "subject": maybe(answer.scope.subject),
        }
    )
    return answer.model_copy(
        update={
            "question": r(answer.question),
            "scope": scope,
            "summary": r(answer.summary),
            "facts": [
                f.model_copy(
                    update={
                        "text": r(f.text),
                        "link": maybe(f.link),
                        "scope": describe_obj(redact_obj(f.scope, keep_query_hosts, memo)),
                        "fields": describe_obj(redact_obj(f.fields, keep_query_hosts, memo)),
                    }
                )
                for f in answer.facts
            ],
            "hypotheses": [h.model_copy(update={"text": r(h.text)}) for h in answer.hypotheses],
            "gaps": [g.model_copy(update={"reason": r(g.reason)}) for g in answer.gaps],
            "recommendations": [r(x) for x in answer.recommendations],
            "tool_calls": [
                ToolCallRecord.model_validate(
                    describe_obj(redact_obj(c.model_dump(mode="json"), keep_query_hosts, memo))
                )
                for c in answer.tool_calls
            ],
        }
    )
