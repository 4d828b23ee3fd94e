"""The yes or no of a yes/no question, decided on the typed facts of the value it asks
about (planner.question.polar): a restart counter that rose, errors counted in the window.
"No" only when every env asked returned that value; otherwise no verdict is said, and the
value read (or "not determined") stands alone."""

from __future__ import annotations

from planner.conclude.reads import every_fact
from planner.question.asked import AskedValue, carries
from planner.read.executor import CallRecord
from policy.facts import HttpRate, MetricsRestarts
from policy.language import Bilingual, Language, phrase

_YES: Bilingual = ("Yes: ", "Да: ")
_NO: Bilingual = ("No: ", "Нет: ")


def verdict(
    asked: AskedValue, records: list[CallRecord], envs: list[str], language: Language
) -> str:
    """ "Yes: " or "No: " before the value, or "" when the reads cannot say."""
    seen: dict[str | None, bool] = {}
    for env, fact in every_fact(records):
        found = _shows(asked, fact.attrs)
        if found is not None:
            seen[env] = seen.get(env, False) or found
    if any(seen.values()):
        return phrase(_YES, language)
    if seen and all(env in seen for env in envs):
        return phrase(_NO, language)
    return ""


def _shows(asked: AskedValue, attrs: object) -> bool | None:
    """Whether one fact shows the thing asked (None: it says nothing of it)."""
    if not carries(asked, attrs):
        return None
    match attrs:
        case MetricsRestarts():
            return bool(attrs.increase)
        case HttpRate():
            return bool(attrs.total or attrs.value)
        case _:
            return None
