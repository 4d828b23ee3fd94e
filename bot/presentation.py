"""What an answer shows people, in which order, from the Answer structure.

Every surface (Mattermost, the web chat, the command line) renders a `Presentation`:

- the conclusion first, then the scope, hypotheses with the facts behind them, gaps,
  next steps, and the evidence last;
- the evidence ranked (the facts a hypothesis cites first, then in the answer's order),
  at most `PER_GROUP` facts of one kind from one source behind one link (the others
  counted on the last one shown), each link shown once and labelled by what it opens
  ("Kibana", "GitLab job #123"), and readings within their normal range left to the full
  report; the short form shows at most `EVIDENCE_SHOWN` facts;
- every time in the answer's timezone, the offset said once in the scope line; zoned
  ISO-8601 times inside fact texts are shown in it too;
- the frame in the question's language (planner/shapes/language.py).

Fact numbers are the answer's own (1-based), so "facts 1, 15" in a hypothesis points at
the same fact in the short form and in the full report.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, date, datetime, timedelta, tzinfo
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict

from bot.headline import short_identifiers, split_headline
from planner import Answer, AnswerFact, Language, Phrase, say
from policy.scope import format_iso_duration

EVIDENCE_SHOWN = 8
PER_GROUP = 2
# facts of one kind from one source from which they are a table rather than lines, how
# many rows it shows, and how many attribute columns (besides the number and the time)
TABLE_MIN = 4
TABLE_ROWS = 6
TABLES_SHOWN = 2  # more kinds than that stay lines, grouped and capped as lines are
TABLE_COLUMNS = 6

# a zoned ISO-8601 time as our own texts write it ("2026-07-20T11:03:30.000Z",
# "2026-07-20T14:03:30+03:00"); a bare one (no zone) is left as written
_ISO = re.compile(
    r"\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)(?:\.\d{1,9})?(Z|[+-]\d{2}:\d{2})(?!\d)"
)
# a UTC moment quoted in a Kibana link's rison ("from:'2026-07-08T09:12:30.000Z'")
_KIBANA_TIME = re.compile(r"'(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)Z'")
# a clock time with an offset and no date ("and 14:18:30+03:00"): its offset is dropped
# when it is the answer's own, the scope line having said it
_CLOCK_OFFSET = re.compile(r"\b(\d{2}:\d{2}(?::\d{2})?)([+-]\d{2}:\d{2})(?!\d)")
# links by what they open: the path shapes of the products' own URLs
_GITLAB_ITEM = re.compile(r"/-/(jobs|pipelines|merge_requests|commit)/([0-9a-f]+)")
_GITLAB_WORD = {
    "jobs": "GitLab job #{}",
    "pipelines": "GitLab pipeline #{}",
    "merge_requests": "GitLab MR !{}",
    "commit": "commit {}",
}
_PATH_LABELS = (
    ("/app/discover", "Kibana"),
    ("/app/data-explorer", "OpenSearch Dashboards"),
    ("/vmui", "VMUI"),
    ("/explore", "Grafana"),
    ("/d/", "Grafana"),
    ("/graph", "Prometheus"),
)


class ShownFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int  # the fact's place in the order shown, from 1
    index: int  # the fact's place in the Answer's facts, from 0
    text: str
    source: str
    env: str | None
    when: str
    link: str | None = None
    label: str | None = None
    command: str | None = None  # a kubectl line for an object with no web page configured
    knowledge: bool = False
    similar: int = 0  # facts like it (same kind, source and link) not shown


class ShownLink(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str
    url: str


class ShownTable(BaseModel):
    """Facts of one kind from one source that are rows of a table (pods, nodes, jobs):
    a column per typed attribute they carry, the fact's number first, its time last."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    source: str
    env: str | None
    shared: dict[str, str] = {}  # what every row has alike, said once
    columns: list[str]
    rows: list[list[str]]
    indexes: list[int] = []  # each row's fact's place in the Answer's facts
    links: list[ShownLink] = []


class ShownHypothesis(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    confidence: str
    refs: list[int]


class ShownGap(BaseModel):
    """One thing not checked, as an engineer reads it: `line` (what, where, what it means,
    in the answer's language, no internal id), `source` the system it is about (gaps are
    shown grouped by it), `detail` the full sentence (which read, index, counts) for the
    full report; `objective` and `reason` as the Answer has them."""

    model_config = ConfigDict(extra="forbid")

    objective: str
    reason: str
    line: str = ""
    source: str = ""
    detail: str = ""


class Presentation(BaseModel):
    """`conclusion` is the headline (bot/headline.py): short identifiers, whole sentences
    within HEADLINE_MAX; `details` what of the summary did not fit it; `lead` the
    confidence and facts of the hypothesis the headline states (not listed again)."""

    model_config = ConfigDict(extra="forbid")

    language: Language
    conclusion: str
    scope: str
    details: str = ""
    lead: ShownHypothesis | None = None
    lead_in_details: bool = False  # the lead hypothesis is stated in the details, not above
    full: bool = False  # the full report: every fact, and each gap's detail
    hypotheses: list[ShownHypothesis]
    gaps: list[ShownGap]
    next_steps: list[str]
    evidence: list[ShownFact]
    tables: list[ShownTable] = []
    more: int = 0  # facts left to the full report
    held_back: int = 0  # of them, readings within their normal range

    def say(self, phrase: Phrase, **fields: object) -> str:
        return say(phrase, self.language, **fields)


def zone(name: str) -> tzinfo:
    """The answer's timezone; UTC for a name this machine's zone database lacks."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return UTC


def in_zone(moment: datetime, tz: tzinfo) -> datetime:
    """`moment` in `tz`; a moment at the calendar's ends (Go's zero time 0001-01-01, a
    9999 sentinel) that cannot move into the zone stays in its own. A naive one is UTC."""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(tz)
    except OverflowError:
        return moment


def _offset_text(tz: tzinfo, at: datetime) -> str:
    """The offset of `tz` at `at`, as ISO writes it ("+03:00")."""
    off = in_zone(at, tz).utcoffset()
    minutes = int(off.total_seconds() // 60) if off is not None else 0
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def offset_label(tz: tzinfo, at: datetime) -> str:
    """ "UTC+03:00" (with the zone's name when it has one: "UTC+03:00, Europe/Moscow")."""
    text = f"UTC{_offset_text(tz, at)}"
    key = getattr(tz, "key", None)
    return f"{text}, {key}" if key and key != "UTC" else text


def origin_of(url: str) -> str:
    """ "http://127.0.0.1:8080" of a URL: where it is served from."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def without_links_to(answer: Answer, origins: set[str]) -> tuple[Answer, int]:
    """`answer` with the fact links served from `origins` left out (a demo's simulated
    sources, which serve their APIs, not the apps a link opens), and how many were: the
    fact still says its source, env and time, which is where the record is."""
    facts = [
        f.model_copy(update={"link": None})
        if f.link and f.link.startswith(("http://", "https://")) and origin_of(f.link) in origins
        else f
        for f in answer.facts
    ]
    dropped = sum(1 for a, b in zip(answer.facts, facts, strict=True) if a.link != b.link)
    return (answer.model_copy(update={"facts": facts}) if dropped else answer), dropped


def link_label(url: str, language: Language = Language.EN) -> str:
    """What a link opens, short: "Kibana", "GitLab job #4711", else the host's name."""
    parts = urlsplit(url)
    path = f"{parts.path}#{parts.fragment}" if parts.fragment else parts.path
    if found := _GITLAB_ITEM.search(path):
        word, ident = found.groups()
        return _GITLAB_WORD[word].format(ident[:8] if word == "commit" else ident)
    for shape, label in _PATH_LABELS:
        if shape in path:
            return label
    return parts.hostname or say(Phrase.LINK, language)


# the Kubernetes connector's own link when no dashboard is configured:
# k8s://{env}/{namespace}/{kind}/{name}, namespace "-" for a cluster-scoped object
_K8S_LINK = re.compile(r"k8s://([^/\s]+)/([^/\s]+)/([^/\s]+)/([^/\s]+)")


def kubectl_line(link: str) -> str | None:
    """The command that shows the object a `k8s://` link names (the env is the kubectl
    context to use, said after it), else None: such a link opens nowhere."""
    m = _K8S_LINK.fullmatch(link)
    if m is None:
        return None
    env, namespace, kind, name = m.groups()
    where = "" if namespace == "-" else f" -n {namespace}"
    return f"kubectl{where} describe {kind} {name}  # {env}"


class _Clock:
    """Times in the answer's timezone, with the date only where it differs from the day
    the answer is about."""

    def __init__(self, tz: tzinfo, day: date | None) -> None:
        self.tz = tz
        self.day = day

    def show(self, moment: datetime, *, dated: bool = False) -> str:
        local = in_zone(moment, self.tz)
        if not dated and self.day is not None and local.date() == self.day:
            return local.strftime("%H:%M:%S")
        return local.strftime("%Y-%m-%d %H:%M:%S")

    def text(self, text: str) -> str:
        """`text` with each zoned ISO time in it shown on this clock; when one of them is
        on another day, every one says its date ("between 2026-07-13 14:40:00 and
        2026-07-20 14:40:00", never "... and 14:40:00")."""

        def moment_of(m: re.Match[str]) -> datetime | None:
            day, clock, zone_part = m.groups()
            seconds = clock if clock.count(":") == 2 else f"{clock}:00"
            try:
                return datetime.fromisoformat(
                    f"{day}T{seconds}{'+00:00' if zone_part == 'Z' else zone_part}"
                )
            except ValueError:
                return None

        moments = [t for m in _ISO.finditer(text) if (t := moment_of(m)) is not None]
        dated = any(in_zone(t, self.tz).date() != self.day for t in moments)

        def local(m: re.Match[str]) -> str:
            moment = moment_of(m)
            return m.group(0) if moment is None else self.show(moment, dated=dated)

        own = self.offset()

        def bare(m: re.Match[str]) -> str:
            return m.group(1) if m.group(2) == own else m.group(0)

        return _CLOCK_OFFSET.sub(bare, _ISO.sub(local, text))

    def link(self, url: str) -> str:
        """A Kibana or OpenSearch Dashboards link with its time window in this clock's
        zone ("14:12:30.000+05:00", the "+" percent-encoded: the app decodes "+" in its
        hash as a space), so the window a person sees in the URL is the one in the answer;
        the same moments, another way of writing them. Other links are left as they are."""
        if "/app/discover" not in url and "/app/data-explorer" not in url:
            return url

        def local(m: re.Match[str]) -> str:
            try:
                moment = datetime.fromisoformat(f"{m.group(1)}+00:00")
            except ValueError:
                return m.group(0)
            shown = in_zone(moment, self.tz).isoformat(timespec="milliseconds")
            return "'" + shown.replace("+", "%2B") + "'"

        return _KIBANA_TIME.sub(local, url)

    def offset(self) -> str:
        """The answer's offset on its day, as ISO writes it ("+03:00")."""
        day = self.day or datetime.now(UTC).date()
        return _offset_text(self.tz, datetime(day.year, day.month, day.day, 12, tzinfo=self.tz))


def _day(answer: Answer, tz: tzinfo) -> date | None:
    at = answer.scope.time.at
    if at is not None:
        return in_zone(at, tz).date()
    seen = [f.observed_at for f in answer.facts if f.observed_at is not None]
    return in_zone(max(seen), tz).date() if seen else None


# (day, hour, minute, second) as each language writes them after a number
_UNITS = {Language.EN: ("d", "h", "min", "s"), Language.RU: ("дн", "ч", "мин", "с")}


def span_text(window: timedelta, language: Language) -> str:
    """A window as people write it: "15 min", "1 h 30 min", "2 d"."""
    seconds = int(window.total_seconds())
    if seconds <= 0:
        return format_iso_duration(window)
    parts = []
    for size, unit in zip((86_400, 3_600, 60, 1), _UNITS[language], strict=True):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}")
    return " ".join(parts)


def _scope_line(answer: Answer, clock: _Clock, language: Language) -> str:
    s = answer.scope
    parts = [p for p in (s.env, s.namespace, s.object) if p]
    t = s.time
    span = span_text(t.window, language)
    if t.at is not None:
        local = in_zone(t.at, clock.tz)
        when = say(Phrase.AROUND, language, at=local.strftime("%Y-%m-%d %H:%M"), span=span)
    else:
        when = say(Phrase.LAST, language, span=span)
    mode = say(Phrase.MODE_NOW if t.mode == "now" else Phrase.MODE_HISTORICAL, language)
    reference = t.at or next((f.observed_at for f in answer.facts if f.observed_at), None)
    zone_text = offset_label(clock.tz, reference or datetime.now(UTC))
    head = " / ".join(parts) or say(Phrase.NO_OBJECT, language)
    return f"{head} · {when} · {mode} · {say(Phrase.TIMES_IN, language, tz=zone_text)}"


def _order(answer: Answer) -> list[int]:
    """Fact indexes: those a hypothesis cites, in citation order, then the others."""
    cited: list[int] = []
    for h in answer.hypotheses:
        cited += [i for i in h.supported_by if 0 <= i < len(answer.facts) and i not in cited]
    rest = [i for i in range(len(answer.facts)) if i not in cited]
    return cited + rest


def _group(f: AnswerFact) -> tuple[str, str, str]:
    return (f.kind or "", f.source, f.link or "")


def _shown(
    answer: Answer, index: int, clock: _Clock, language: Language, link_shown: set[str]
) -> ShownFact:
    f = answer.facts[index]
    link = f.link if f.link and f.link not in link_shown else None
    if f.link:
        link_shown.add(f.link)
    command = kubectl_line(link) if link else None
    if command:
        link = None
    return ShownFact(
        number=index + 1,
        index=index,
        text=clock.text(f.text),
        source=f.source,
        env=str(f.scope.get("env")) if f.scope.get("env") else None,
        when=clock.show(f.observed_at) if f.observed_at else say(Phrase.TIME_UNKNOWN, language),
        link=clock.link(link) if link else None,
        label=link_label(link, language) if link else None,
        command=command,
        knowledge=f.knowledge,
    )


TableKey = tuple[str, str, frozenset[str]]


def _table_key(f: AnswerFact) -> TableKey | None:
    """Facts are rows of one table when they are of one kind, from one source, with the
    same typed fields: a total and per-pod readings of one kind are two shapes."""
    return (f.kind, f.source, frozenset(f.fields)) if f.kind and len(f.fields) >= 2 else None


def _constant(facts: list[AnswerFact], name: str) -> bool:
    return len({str(f.fields[name]) for f in facts}) == 1


def _tabular(facts: list[AnswerFact]) -> bool:
    """Rows a table shows whole: one text field tells each row apart (the pod, the node,
    the job), and what differs between rows fits `TABLE_COLUMNS` columns (what every row
    shares is said once above it). Otherwise the facts stay lines, which lose nothing."""
    names = list(facts[0].fields)
    keyed = any(
        all(isinstance(f.fields[n], str) for f in facts)
        and len({f.fields[n] for f in facts}) == len(facts)
        for n in names
    )
    varying = [n for n in names if not _constant(facts, n)]
    return keyed and 0 < len(varying) <= TABLE_COLUMNS


def _tabled(answer: Answer, order: list[int], cited: set[int]) -> dict[TableKey, list[int]]:
    """The facts that go into tables: at least `TABLE_MIN` facts of one shape worth
    showing, tabular; at most `TABLE_ROWS` of them, in `order`."""
    rows: dict[TableKey, list[int]] = {}
    for i in order:
        f = answer.facts[i]
        key = _table_key(f)
        if key is not None and (f.signal or i in cited):
            rows.setdefault(key, []).append(i)
    tables = {
        key: indexes
        for key, indexes in rows.items()
        if len(indexes) >= TABLE_MIN and _tabular([answer.facts[i] for i in indexes[:TABLE_ROWS]])
    }
    return dict(list(tables.items())[:TABLES_SHOWN])


def _cell(value: str | int | float | bool, clock: _Clock, language: Language) -> str:
    if isinstance(value, bool):
        return say(Phrase.YES if value else Phrase.NO, language)
    if isinstance(value, float):
        # a count or a size in full ("531789802", never "5.32e+08"), a ratio to 4 digits
        return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"
    return clock.text(str(value))


def _table(
    answer: Answer,
    key: TableKey,
    indexes: list[int],
    clock: _Clock,
    language: Language,
    link_shown: set[str],
) -> ShownTable:
    indexes = sorted(indexes)
    facts = [answer.facts[i] for i in indexes]
    names = list(facts[0].fields)
    shared = {n: _cell(facts[0].fields[n], clock, language) for n in names if _constant(facts, n)}
    columns = [n for n in names if n not in shared]
    rows = []
    links: list[ShownLink] = []
    for i, f in zip(indexes, facts, strict=True):
        cells = [_cell(f.fields[n], clock, language) for n in columns]
        when = clock.show(f.observed_at) if f.observed_at else ""
        rows.append([str(i + 1), *cells, when])
        if f.link and f.link not in link_shown and f.link.startswith(("https://", "http://")):
            link_shown.add(f.link)
            links.append(ShownLink(label=link_label(f.link, language), url=clock.link(f.link)))
    envs = {str(f.scope.get("env")) for f in facts if f.scope.get("env")}
    return ShownTable(
        kind=key[0],
        source=key[1],
        env=envs.pop() if len(envs) == 1 else None,
        shared=shared,
        columns=["#", *columns, say(Phrase.TIME, language)],
        rows=rows,
        indexes=indexes,
        links=links,
    )


def present(answer: Answer, *, evidence: int | None = EVIDENCE_SHOWN) -> Presentation:
    """The answer as people read it; `evidence=None`: every fact (the full report), else at
    most that many, ranked and grouped. Facts are numbered in the order shown, and the
    hypotheses cite those numbers."""
    language = answer.lang
    tz = zone(answer.timezone)
    clock = _Clock(tz, _day(answer, tz))
    cited = {i for h in answer.hypotheses for i in h.supported_by}
    link_shown: set[str] = set()
    shown: list[ShownFact] = []
    tables: list[ShownTable] = []
    held_back = more = 0
    order = _order(answer)
    if evidence is None:
        shown = [_shown(answer, i, clock, language, link_shown) for i in order]
    else:
        tabled = _tabled(answer, order, cited)
        in_tables = {i for rows in tabled.values() for i in rows[:TABLE_ROWS]}
        tables = [
            _table(answer, key, rows[:TABLE_ROWS], clock, language, link_shown)
            for key, rows in tabled.items()
        ]
        more += sum(max(0, len(rows) - TABLE_ROWS) for rows in tabled.values())
        left_over = {i for rows in tabled.values() for i in rows[TABLE_ROWS:]}
        groups: Counter[tuple[str, str, str]] = Counter()
        last_of: dict[tuple[str, str, str], ShownFact] = {}
        for i in order:
            f = answer.facts[i]
            key = _group(f)
            if i in in_tables or i in left_over:
                continue
            if not f.signal and i not in cited:
                held_back += 1
                continue
            if groups[key] >= PER_GROUP and i not in cited and key in last_of:
                last_of[key].similar += 1  # said on the last one of its group shown
                continue
            if len(shown) >= evidence:
                more += 1
                continue
            groups[key] += 1
            item = _shown(answer, i, clock, language, link_shown)
            last_of[key] = item
            shown.append(item)
        more += sum(s.similar for s in shown)
    numbers = _renumber(shown, tables)
    summary = clock.text(answer.summary)
    headline, details = split_headline(summary)
    lead, hypotheses = _hypotheses(answer, clock, language, numbers, summary)
    return Presentation(
        language=language,
        conclusion=headline,
        details=details,
        lead=lead,
        lead_in_details=bool(lead and details and not restates(lead.text, headline)),
        scope=_scope_line(answer, clock, language),
        hypotheses=hypotheses,
        gaps=_gaps(answer, clock),
        next_steps=[clock.text(r) for r in answer.recommendations],
        evidence=shown,
        tables=tables,
        more=more + held_back,
        held_back=held_back,
        full=evidence is None,
    )


def _renumber(shown: list[ShownFact], tables: list[ShownTable]) -> dict[int, int]:
    """Number the facts 1, 2, 3 in the order shown (lines, then table rows); returns
    the answer's own number of each (1-based) -> its shown one."""
    numbers: dict[int, int] = {}
    for f in shown:
        numbers[f.number] = len(numbers) + 1
        f.number = numbers[f.number]
    for table in tables:
        for row in table.rows:
            own = int(row[0])
            numbers[own] = len(numbers) + 1
            row[0] = str(numbers[own])
    return numbers


_LEVELS = {"low": Phrase.LOW, "medium": Phrase.MEDIUM, "high": Phrase.HIGH}


# share of a hypothesis's words the summary holds from which it restates it (a pod's
# suffix or a "(combined from similar events)" differs between two events of one cause)
_RESTATED = 0.8


def _words(text: str) -> list[str]:
    return re.sub(r"[^\w]+", " ", short_identifiers(text).lower()).split()


def restates(text: str, said: str) -> bool:
    """`said` already says `text`: nearly every word of it is there."""
    words, there = _words(text), set(_words(said))
    return bool(words) and sum(w in there for w in words) >= _RESTATED * len(words)


def _hypotheses(
    answer: Answer, clock: _Clock, language: Language, numbers: dict[int, int], summary: str
) -> tuple[ShownHypothesis | None, list[ShownHypothesis]]:
    """(lead, listed): a hypothesis the summary already states is not listed again; the
    first such is the headline's lead (its confidence, and the facts of every one the
    summary states), the others are listed as what they add."""
    lead: ShownHypothesis | None = None
    listed: list[ShownHypothesis] = []
    for h in answer.hypotheses:
        refs = [numbers[i + 1] for i in h.supported_by if i + 1 in numbers]
        shown = ShownHypothesis(
            text=clock.text(h.text), confidence=say(_LEVELS[h.confidence], language), refs=refs
        )
        if not restates(shown.text, summary):
            listed.append(shown)
        elif lead is None:
            lead = shown
        else:
            lead.refs += [r for r in refs if r not in lead.refs]
    return lead, listed


_SOURCE_NAMES = {
    "kubernetes": "Kubernetes",
    "victoriametrics": "VictoriaMetrics",
    "prometheus": "Prometheus",
    "elasticsearch": "Elasticsearch",
    "opensearch": "OpenSearch",
    "gitlab": "GitLab",
}


def source_name(source: str) -> str:
    """A source as people call it ("elasticsearch/edge-access" -> "Elasticsearch")."""
    family = source.split("/", 1)[0]
    return _SOURCE_NAMES.get(family.lower(), family)


# a title's closing parenthesis that spells out what it covers ("changes (releases, ...)")
_ELABORATION = re.compile(r" \([^()]*\)$")


def _gaps(answer: Answer, clock: _Clock) -> list[ShownGap]:
    """One line per thing not checked, grouped by the source it is about (the question's
    own first), identical lines said once with their details joined."""
    shown: dict[str, ShownGap] = {}
    for g in answer.gaps:
        reason = clock.text(g.reason)
        if g.meaning:
            title = _ELABORATION.sub("", g.title)  # the detail says what it covers
            what = title[:1].upper() + title[1:] if title else ""
            where = f" ({g.env})" if g.env and what else (f"{g.env}: " if g.env else "")
            line = f"{what}{where}: {clock.text(g.meaning)}" if what else where + g.meaning
        else:  # an answer from before gaps had their lines
            line = reason
        # the detail adds what the line does not say: not the same words again
        detail = "" if reason == line or (g.meaning and reason.endswith(g.meaning)) else reason
        if line in shown:
            if detail and detail not in shown[line].detail:
                shown[line].detail = f"{shown[line].detail}; {detail}".strip("; ")
            continue
        shown[line] = ShownGap(
            objective=g.objective,
            reason=reason,
            line=line,
            source=source_name(g.source) if g.source else "",
            detail=detail,
        )
    groups = list(dict.fromkeys(g.source for g in shown.values()))
    return sorted(shown.values(), key=lambda g: groups.index(g.source) if g.source else -1)
