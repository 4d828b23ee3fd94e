"""Which tool schemas a model call carries: a few relevant ones, trimmed, in a stable order.

Sending every admitted contract's full JSON Schema on every model call costs thousands of
prompt tokens and dilutes the model's choice. The stages, each one generic (nothing here
knows a tool, a question or a language):

1. admission: the caller passes the contracts the gate admitted for this user;
2. objective relevance: the tools whose declared evidence kinds meet the open objectives'
   (all of them for a general question, or when none does);
3. lexical prefilter: BM25 over each contract's own text (name parts, description,
   evidence kinds, argument names and descriptions), up to `prefilter` tools;
4. optional model rerank of the prefiltered names (`rerank_prompt`, `parse_rerank`,
   `rerank`), the lexical order being the fallback when the model fails or answers
   something unusable;
5. at most `limit` schemas in one request, sorted by name, so that the tools block of a
   prompt is byte-identical from call to call and servers' prefix caches work;
   `trimmed_spec` drops what the model does not need from each schema (the gate still
   validates every call against the full one).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from planner.model.client import ToolSpec, our_name, wire_name
from planner.plan.objectives import Objective, QuestionPlan
from planner.question.wordforms import SoundIndex, is_cyrillic, stem
from policy.contracts import ToolContract

LIMIT = 8
PREFILTER = 30
DESCRIPTION_CHARS = 300
PROPERTY_DESCRIPTION_CHARS = 120
PROMPT_LINE_CHARS = 160
_RERANK_SCAN_CHARS = 20_000
_RERANK_SCAN_ARRAYS = 200

# BM25 parameters (the usual ones) and the weight of each field of a contract's text: the
# name and the evidence kinds say what a tool is for, the argument texts only what it takes
_K1 = 1.2
_B = 0.75
_K3 = 1.0  # saturation of a term repeated in the query (question + titles + kinds)
_W_NAME = 3.0
_W_EVIDENCE = 3.0
_W_DESCRIPTION = 1.0
_W_PROPERTY = 0.5
# a question's word read as a loanword of the catalogue's (a guess from its sound) counts
# less than the same word written as the catalogue writes it
_W_LOAN = 0.8
# the prefilter keeps at most this many tools declaring the same evidence kinds (copies of
# one operation on several servers of a service), from the best this many per slot
_PER_KIND = 2
_SCAN_PER_SLOT = 10

# keywords whose value is a schema, a list of schemas or a map of name -> schema; any other
# keyword's value is data (enum, const, default, required) and is copied as it is
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_SCHEMA_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"}
)
# noise for a model: pydantic's titles repeat the property names, and the string length
# bounds and patterns are checked by the gate, whose refusal names the field
_DROPPED = frozenset({"title", "pattern", "minLength", "maxLength"})
_NULL: dict[str, Any] = {"type": "null"}

_WORD = re.compile(r"\w+")
# a run of word characters, dots and dashes: an identifier as written in text (an evidence
# kind, a dotted tool name, a hyphenated object name) is such a run, kept whole as well.
# One character class, so a scan is linear on any text (tests/unit/test_regex_bounded.py)
_CHUNK = re.compile(r"[\w.\-]+")
_JOINERS = frozenset("._-")


@dataclass(frozen=True)
class Selection:
    """The tools for one model call. `prefiltered`: in lexical order, at most `prefilter`
    (what a reranking model chooses from); `chosen`: at most `limit`, sorted by name."""

    prefiltered: tuple[ToolContract, ...]
    chosen: tuple[ToolContract, ...]


class _Ref:
    """A contract as a cache key, by identity: contracts are shared, immutable objects, and
    the cache holding this reference keeps the id from being reused by another one."""

    __slots__ = ("contract",)

    def __init__(self, contract: ToolContract) -> None:
        self.contract = contract

    def __hash__(self) -> int:
        return id(self.contract)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ref) and other.contract is self.contract


# --- tokens -------------------------------------------------------------------------------


def _tokens(text: str, words: set[str] | None = None) -> list[str]:
    """Unicode words, lowercased, split on underscores and stemmed, plus every
    identifier-looking token whole: a question in any language still matches a tool by the
    names it cites. The words before stemming are added to `words` when given."""
    out: list[str] = []
    for chunk in _CHUNK.findall(text.lower()):
        parts = [part for word in _WORD.findall(chunk) for part in word.split("_") if part]
        if words is not None:
            words.update(parts)
        out += [stem(part) for part in parts]
        whole = chunk.strip(".-")
        if _JOINERS.intersection(whole):
            out.append(whole)
    return out


def _property_texts(schema: Any) -> Iterable[str]:
    """Argument names and descriptions of a schema, nested ones included."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                for name, sub in value.items():
                    yield str(name)
                    yield from _property_texts(sub)
            elif key == "description" and isinstance(value, str):
                yield value
            elif key in _SCHEMA_LISTS or key in _SCHEMA_ONE:
                yield from _property_texts(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _property_texts(item)


def _document(c: ToolContract, words: set[str]) -> dict[str, float]:
    """A contract's weighted term frequencies; its words before stemming go to `words`."""
    weighted = [
        (c.name, _W_NAME),  # its parts (split on dots and underscores) and itself whole
        (" ".join(c.agent.evidence), _W_EVIDENCE),
        (c.description, _W_DESCRIPTION),
        *((text, _W_PROPERTY) for text in _property_texts(c.input_schema())),
    ]
    freq: dict[str, float] = {}
    for text, weight in weighted:
        for token in _tokens(text, words):
            freq[token] = freq.get(token, 0.0) + weight
    return freq


class CatalogueIndex:
    """An inverted index of a set of contracts, built once and shared by every question
    about it: for each term, the contracts whose text has it with the query-independent
    part of their BM25 score. Contracts are held in name order, so that the ranking
    depends on the set, never on the order they come in. Immutable once built."""

    def __init__(self, contracts: Iterable[ToolContract]) -> None:
        unique = {id(c): c for c in contracts}
        self.contracts: tuple[ToolContract, ...] = tuple(
            sorted(unique.values(), key=lambda c: c.name)
        )
        self.key = frozenset(unique)
        self._position = {id(c): i for i, c in enumerate(self.contracts)}
        words: set[str] = set()
        docs = [_document(c, words) for c in self.contracts]
        self._sounds = SoundIndex(words)
        self.size = n = len(docs)
        lengths = [math.fsum(freq.values()) for freq in docs]
        avgdl = math.fsum(lengths) / n if n else 1.0
        avgdl = avgdl or 1.0
        postings: dict[str, list[tuple[int, float]]] = {}
        for i, freq in enumerate(docs):
            norm = _K1 * (1.0 - _B + _B * lengths[i] / avgdl)
            for term, f in freq.items():
                postings.setdefault(term, []).append((i, f * (_K1 + 1.0) / (f + norm)))
        self._postings = {t: tuple(p) for t, p in postings.items()}
        kinds: dict[str, list[int]] = {}
        for i, c in enumerate(self.contracts):
            for kind in dict.fromkeys(c.agent.evidence):
                kinds.setdefault(kind, []).append(i)
        self._kinds = {k: frozenset(v) for k, v in kinds.items()}

    def positions(self, contracts: Iterable[ToolContract]) -> set[int]:
        """Where the given contracts are in the index (those it does not hold: nowhere)."""
        where = self._position
        return {where[id(c)] for c in contracts if id(c) in where}

    def serving(self, kinds: Collection[str]) -> set[int]:
        """The positions of the contracts declaring any of `kinds`."""
        out: set[int] = set()
        for kind in kinds:
            out |= self._kinds.get(kind, frozenset())
        return out

    def scores(self, query: str) -> list[float]:
        """The BM25 score of `query` for each contract, by position (0 for those sharing
        no term with it)."""
        words: set[str] = set()
        wanted = Counter(_tokens(query, words))
        # a Cyrillic stem's word as written (its inflection tells a loanword from a
        # preposition); the first in order, so the same query scores the same every time
        written: dict[str, str] = {}
        for w in sorted(words):
            if is_cyrillic(w):
                written.setdefault(stem(w), w)
        n = self.size
        acc = [0.0] * n
        for t in sorted(wanted):
            if t in self._postings:
                matches = [(t, 1.0)]
            else:  # a loanword in another script (planner/question/wordforms.py), or nothing
                matches = [(loan, _W_LOAN) for loan in self._sounds.loans(written.get(t, t))]
            for term, factor in matches:
                posting = self._postings.get(term, ())
                df = len(posting)
                idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
                weight = factor * idf * (_K3 + 1.0) * wanted[t] / (_K3 + wanted[t])
                for i, part in posting:
                    acc[i] += weight * part
        return acc

    def rank(
        self, query: str, among: Collection[int] | None = None, top: int | None = None
    ) -> list[ToolContract]:
        """The contracts (those at positions `among`, else all) by score, best first,
        equal scores by name; at most `top` of them when given."""
        acc = self.scores(query)
        candidates = range(self.size) if among is None else sorted(among)
        # a stable sort: equal scores stay in position order, which is name order
        order = sorted(candidates, key=acc.__getitem__, reverse=True)
        if top is not None:
            order = order[: max(top, 0)]
        return [self.contracts[i] for i in order]


# (the contracts as given, their index), the latest used first
_INDEXES: list[tuple[tuple[ToolContract, ...], CatalogueIndex]] = []
_INDEXES_KEPT = 8


def index_of(contracts: Iterable[ToolContract]) -> CatalogueIndex:
    """The index of a set of contracts, built on the first call and kept (a few sets, the
    latest used): the admitted catalogue of a running bot is the same set every turn. A
    kept index holds its contracts, so that their ids stay theirs."""
    given = tuple(contracts)
    for i, (seen, index) in enumerate(_INDEXES):
        if seen == given:  # the same contracts in the same order: compared by identity
            if i:
                _INDEXES.insert(0, _INDEXES.pop(i))
            return index
    key = frozenset(map(id, given))
    index = next((ix for _, ix in _INDEXES if ix.key == key), None) or CatalogueIndex(given)
    _INDEXES.insert(0, (given, index))
    del _INDEXES[_INDEXES_KEPT:]
    return index


# --- stages -------------------------------------------------------------------------------


def relevant(
    contracts: Iterable[ToolContract], open_evidence: Collection[str]
) -> list[ToolContract]:
    """The tools whose declared evidence meets the open objectives' kinds, in the order
    given; every tool when no kind is open (a general question) or no tool serves one."""
    every = list(contracts)
    if not open_evidence:
        return every
    wanted = set(open_evidence)
    serving = [c for c in every if c.serves(wanted)]
    return serving or every


def lexical_rank(contracts: Iterable[ToolContract], query: str) -> list[ToolContract]:
    """The contracts by BM25 score of `query` over their own text, best first; equal scores
    by name. The order depends on the set of contracts, never on the order they come in.
    The set's index is built once (`index_of`)."""
    return index_of(contracts).rank(query)


def _query(question: str, objectives: Sequence[Objective]) -> str:
    """The question, the open objectives' titles and their evidence kinds (each kind once);
    a required objective's title and kinds twice, as they weigh more."""
    parts = [question]
    for o in objectives:
        parts += [o.title] * (2 if o.required else 1)
    every = dict.fromkeys(k for o in objectives for k in o.evidence)
    required = dict.fromkeys(k for o in objectives if o.required for k in o.evidence)
    parts += [" ".join(every), " ".join(required)]
    return "\n".join(parts)


def _covering(objectives: Sequence[Objective], ranked: Sequence[ToolContract]) -> list[str]:
    """For each open required objective, the best-ranked tool able to close it (for a union
    objective, one for each of its kinds): the names, without repeats. The optional ones
    are left to the lexical order."""
    out: list[str] = []
    for o in objectives:
        if not o.required:
            continue
        groups = [[k] for k in o.evidence] if o.all_of else [o.evidence]
        for kinds in groups:
            best = next((c for c in ranked if c.serves(kinds)), None)
            if best is not None and best.name not in out:
                out.append(best.name)
    return out


def _diverse(ranked: Sequence[ToolContract], size: int) -> list[ToolContract]:
    """The first `size` of `ranked` with at most `_PER_KIND` tools declaring the same
    evidence kinds, then the others in their order if too few remain: a catalogue holding
    one service many times over (a server per cluster, region, team or version) has the
    same operation under near-identical text many times, and eight copies of it would
    leave the model no choice. A question that names a server still ranks that server's
    copy first."""
    seen: Counter[tuple[str, ...]] = Counter()
    picked: list[ToolContract] = []
    held: list[ToolContract] = []
    for c in ranked:
        if len(picked) >= size:
            break
        kinds = tuple(sorted(set(c.agent.evidence)))
        if seen[kinds] < _PER_KIND:
            seen[kinds] += 1
            picked.append(c)
        else:
            held.append(c)
    return picked + held[: max(size - len(picked), 0)]


def _by_name(tools: Iterable[ToolContract]) -> tuple[ToolContract, ...]:
    return tuple(sorted(tools, key=lambda c: c.name))


def select(
    contracts: Iterable[ToolContract],
    *,
    question: str,
    plan: QuestionPlan,
    open_ids: Collection[str],
    limit: int = LIMIT,
    prefilter: int = PREFILTER,
) -> Selection:
    """The tools for a model call about `question` while the objectives `open_ids` of
    `plan` are open. `chosen`: a tool for each open required objective the prefilter holds
    one for, then the lexical order; at most `limit`, sorted by name."""
    objectives = [o for o in plan.objectives if o.id in open_ids]
    kinds = {k for o in objectives for k in o.evidence}
    index = index_of(contracts)
    among = index.serving(kinds) if kinds else None  # objective relevance, as `relevant`
    query = _query(question, objectives)
    size = max(prefilter, 0)
    ranked = index.rank(query, among or None, top=size * _SCAN_PER_SLOT)
    prefiltered = tuple(_diverse(ranked, size))
    names = _covering(objectives, prefiltered)[: max(limit, 0)]
    for c in prefiltered:
        if len(names) >= limit:
            break
        if c.name not in names:
            names.append(c.name)
    keep = set(names)
    return Selection(prefiltered, _by_name(c for c in prefiltered if c.name in keep))


def rerank(
    selection: Selection, ranked_names: Sequence[str] | None, limit: int = LIMIT
) -> tuple[ToolContract, ...]:
    """The model's order (the names it gave that the prefilter holds, each once; a wire
    name is read as the tool's), filled up with the lexical choice and then the lexical
    order; with no usable answer (None), the lexical choice. At most `limit`, by name."""
    by_name = {c.name: c for c in selection.prefiltered}
    picked: list[str] = []
    for name in ranked_names or ():
        if len(picked) >= limit:
            break
        if not isinstance(name, str):
            continue
        key = name if name in by_name else our_name(name)
        if key in by_name and key not in picked:
            picked.append(key)
    chosen = {c.name for c in selection.chosen}
    fill = [c for c in selection.prefiltered if c.name in chosen]
    fill += [c for c in selection.prefiltered if c.name not in chosen]
    for c in fill:
        if len(picked) >= limit:
            break
        if c.name not in picked:
            picked.append(c.name)
    return _by_name(by_name[n] for n in picked)


def _first_line(text: str, limit: int) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return _cut(line, limit)


def rerank_prompt(selection: Selection, question: str, limit: int = LIMIT) -> str:
    """A short prompt asking a model to order the prefiltered tools for the question."""
    lines = [
        f"{n}. {c.name}: {_first_line(c.description, PROMPT_LINE_CHARS)}"
        for n, c in enumerate(selection.prefiltered, 1)
    ]
    return (
        "Choose the tools most useful to investigate the question below.\n"
        f"Question: {question}\n"
        "Tools:\n" + "\n".join(lines) + "\n"
        f"Reply with only a JSON array of at most {limit} tool names from this list, most "
        "useful first."
    )


_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


def _string_array(text: str) -> list[str] | None:
    decoder = json.JSONDecoder()
    tried = 0
    start = text.find("[")
    while start != -1 and tried < _RERANK_SCAN_ARRAYS:
        tried += 1
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        start = text.find("[", start + 1)
    return None


def parse_rerank(content: str | None) -> list[str] | None:
    """The first JSON array of strings in a model's answer (a fenced block first), else
    None. Never raises."""
    if not isinstance(content, str):
        return None
    try:
        text = content[:_RERANK_SCAN_CHARS]
        for block in _FENCE.findall(text):
            found = _string_array(block)
            if found is not None:
                return found
        return _string_array(text)
    except Exception:  # an answer is untrusted text: nothing in it may break the turn
        return None


# --- trimmed schemas ----------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut at a word where one is near."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space > limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:-") + "…"


def _collapse_null(node: dict[str, Any]) -> dict[str, Any]:
    """{anyOf: [X, {type: null}], ...} -> {...X, ...}: an optional argument is one the
    model leaves out, which is what it should do rather than send null."""
    options = node.get("anyOf")
    if not (isinstance(options, list) and len(options) == 2 and _NULL in options):
        return node
    other = options[1] if options[0] == _NULL else options[0]
    if not isinstance(other, dict) or other == _NULL:
        return node
    merged = {k: v for k, v in node.items() if k != "anyOf"}
    for key, value in other.items():
        merged.setdefault(key, value)
    return merged


def _trim(schema: Any) -> Any:
    """A trimmed copy of a schema; the schema itself is never changed."""
    if isinstance(schema, list):
        return [_trim(item) for item in schema]
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in _collapse_null(schema).items():
        if key in _DROPPED or (key == "default" and value is None):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _trim(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS or key in _SCHEMA_ONE:
            out[key] = _trim(value)
        elif key == "description" and isinstance(value, str):
            out[key] = _cut(value, PROPERTY_DESCRIPTION_CHARS)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _first_paragraph(text: str) -> str:
    paragraph = next((p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()), "")
    return _cut(paragraph, DESCRIPTION_CHARS)


@functools.lru_cache(maxsize=1024)
def _trimmed(ref: _Ref) -> ToolSpec:
    c = ref.contract
    return {
        "type": "function",
        "function": {
            "name": wire_name(c.name),
            "description": _first_paragraph(c.description),
            "parameters": _trim(c.input_schema()),
        },
    }


def trimmed_spec(contract: ToolContract) -> ToolSpec:
    """The OpenAI tool spec of a contract (as `planner.model.client.tool_spec`) with the noise
    trimmed: the description's first paragraph, no titles, an optional argument's null
    alternative and null default gone, argument descriptions cut short, no string length
    bounds or patterns. Types, enums, required and additionalProperties stay. Built once
    per contract and shared: do not mutate it."""
    return _trimmed(_Ref(contract))


def schema_chars(specs: Iterable[ToolSpec]) -> int:
    """The size of tool specs as a request carries them (compact JSON, UTF-8 text as it is:
    how the OpenAI client's HTTP layer writes a body), for measuring."""
    return len(json.dumps([dict(s) for s in specs], ensure_ascii=False, separators=(",", ":")))
