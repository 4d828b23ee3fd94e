"""Word forms for the tool catalogue (planner/question/wordforms.py): a question's inflected or
Cyrillic-written word meets the word a tool's English text uses, and no other."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from planner.model.catalogue import lexical_rank
from planner.question.wordforms import SoundIndex, distance, sound_key, stem
from policy.contracts import ToolContract
from tests.unit.toolkit import agent


def test_inflections_of_one_word_share_a_stem_in_both_languages() -> None:
    assert stem("reassigned") == stem("reassignment") == stem("reassign")
    assert stem("restarts") == stem("restarted") == stem("restart")
    assert stem("рестартуют") == stem("рестарт")
    assert stem("кластере") == stem("кластер")
    # what is neither, or too short to stem, stays as written
    assert stem("prod-eu1") == "prod-eu1" and stem("k8s") == "k8s" and stem("ok") == "ok"


def test_a_cyrillic_loanword_sounds_like_the_english_word() -> None:
    assert sound_key("neimspeis") == sound_key("namespace")
    assert sound_key("konteiner") == sound_key("container")
    assert sound_key("klaster") == sound_key("cluster")
    assert sound_key("pod") != sound_key("node")
    assert distance("log", "log") == 0 and distance("log", "lag") == 1
    assert distance("", "abc") == 3


def test_loans_are_the_nearest_spelling_with_the_same_sound_and_nothing_else() -> None:
    words = ["pods", "pod", "namespace", "container", "log", "lag", "logs", "in", "node"]
    index = SoundIndex([*words, "deny", "path", "team", "not", "two", "x" * 500])
    assert index.loans("поды") == (stem("pod"),)
    assert index.loans("логи") == (stem("log"),)  # not "lag", a letter further
    assert index.loans("ноды") == (stem("node"),)  # the final e of "node" is silent
    assert index.loans("неймспейсе") == (stem("namespace"),)
    assert index.loans("контейнера") == (stem("container"),)
    # a native word, a word too short to tell, and a Latin word have no loans
    assert index.loans("дежурит") == ()
    assert index.loans("в") == () and index.loans("ин") == ()
    assert index.loans("pod") == ()
    # function words and near-misses of a short key are not loans: "под нагрузкой" is
    # "under load", "за день" is "in a day", "потом" is "later", "там" is "there"
    for word in ("под", "день", "потом", "там", "нет", "лог"):
        assert index.loans(word) == (), word
    # a word too long to be a term is neither stemmed nor matched
    assert stem("к" + "ё" * 5000) == "к" + "ё" * 5000
    assert index.loans("х" * 500) == ()


def test_the_index_is_the_same_whatever_order_its_words_come_in() -> None:
    words = ["sync", "sink", "cql", "kql", "acks", "aks", "pod", "pods"]
    first, again = SoundIndex(words), SoundIndex(reversed(words))
    for word in ("синка", "подов", "акса"):
        assert first.loans(word) == again.loans(word)
    assert set(first.loans("синка")) == {stem("sync"), stem("sink")}


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, description="exact name of the object")


def _tool(name: str, description: str) -> ToolContract:
    return ToolContract(
        name=name,
        description=description,
        args_model=_Args,
        agent=agent([name], "test", freshness="live", current_only=True),
    )


def test_a_russian_question_in_trade_loanwords_finds_the_english_tool() -> None:
    tools = [
        _tool("cluster.list_pods", "List pods with their phase, restart count and node"),
        _tool("cluster.pod_logs", "Read a container's log lines, the previous instance too"),
        _tool("cluster.list_nodes", "List nodes with their conditions and taints"),
        _tool("cluster.list_quotas", "Resource quotas of a namespace: hard and used"),
    ]
    asked = {
        "какие поды постоянно рестартуют?": "cluster.list_pods",
        "сколько раз за день перезапускались поды api?": "cluster.list_pods",
        "покажи логи предыдущего контейнера": "cluster.pod_logs",
        "есть ли ноды NotReady?": "cluster.list_nodes",
    }
    for question, name in asked.items():
        assert lexical_rank(tools, question)[0].name == name, question
    # words with no counterpart leave the order by name
    ranked = lexical_rank(tools, "кто дежурит сегодня?")
    assert [c.name for c in ranked] == sorted(c.name for c in tools)
