"""The count asked for, as the answer's first line: "<service> logged “<phrase>” 28
times in <env> (elasticsearch/app-*)". The number is the total the
source counted for the phrase in the window, not the lines shown; a read cut short says
"at least", an empty complete read says 0, a failed read says nothing (its gap does)."""

from __future__ import annotations

from planner.read.executor import CallRecord
from policy.language import Bilingual, Language, phrase
from policy.numbers import Nouns, count_said

_COUNTED: Bilingual = (
    "{obj} logged “{text}” {count}{where} ({source})",
    "{obj} записал «{text}» {count}{where} ({source})",
)
_AT_LEAST: Bilingual = ("at least {n}", "не меньше {n}")
_IN: Bilingual = (" in {env}", " в {env}")


def count_sentence(
    text: str, obj: str, objectives: set[str], records: list[CallRecord], language: Language
) -> str | None:
    """One clause per read that served one of `objectives` and did not fail; None when
    none did."""
    said: list[str] = []
    for rec in records:
        result = rec.result
        if not objectives & rec.objectives or result.failed:
            continue
        cov = result.coverage
        if cov.total is not None and cov.total_is_exact:
            count = count_said(cov.total, Nouns.TIME, language)
        elif result.status == "empty" and cov.complete_for_negative:
            count = count_said(0, Nouns.TIME, language)
        else:
            seen = cov.total or cov.returned
            count = phrase(_AT_LEAST, language, n=count_said(seen, Nouns.TIME, language))
        env = result.scope.env or rec.call.env
        said.append(
            phrase(
                _COUNTED,
                language,
                obj=obj,
                text=text,
                count=count,
                where=phrase(_IN, language, env=env) if env else "",
                source=cov.source,
            )
        )
    return "; ".join(said) or None
