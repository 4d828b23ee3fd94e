"""Identifiers in a message: request ids, HTTP codes, job ids, commit SHAs, hosts."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

# Bounded work on any input: the spaces around a separator are read once (`\s*+`), and the
# ending of a Russian word is at most 12 letters (a word with no \b before it is tried again
# at each repetition of it, each try reading to the end of the run: quadratic).
RX_REQUEST_ID_LABELLED = re.compile(
    r"(?:request[_\s-]?id|req[_-]?id|x-request-id|rid|реквест\w{0,12})\s*+[:=#]?\s*"
    r"([A-Za-z0-9-]{8,64})",
    re.I,
)
RX_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
RX_HEX32 = re.compile(r"\b[0-9a-f]{32}\b", re.I)
RX_SHA40 = re.compile(r"\b[0-9a-f]{40}\b", re.I)
RX_SHA_LABELLED = re.compile(r"(?:commit|коммит\w{0,12}|sha)\s*+[:#]?\s*([0-9a-f]{7,40})\b", re.I)
RX_JOB = re.compile(r"(?:job|джоб\w{0,12}|джоба|задани\w{0,12})\s*+[:#]?\s*#?(\d{3,12})\b", re.I)
RX_PIPELINE = re.compile(r"(?:pipeline|пайплайн\w{0,12})\s*+[:#]?\s*#?(\d{2,12})\b", re.I)
RX_HTTP = re.compile(r"(?<![\d.:/-])([1-5]\d\d|[1-5]xx)(?![\d.:/-])", re.I)
RX_HOST = re.compile(
    r"\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ru|dev|local|internal|example"
    r"|cloud|app|svc|cluster\.local))\b",
    re.I,
)


# "promql <expr>", "выполни promql <expr>", or an expression in backticks
RX_PROMQL = re.compile(
    r"(?:promql|prometheus query|запрос prometheus)\s*[:=]?\s*`?(?P<q>[^`]+?)`?"
    r"(?=\s+(?:и|and|then|,)\s|\s*$|\s*[?.!]\s*$)",
    re.I,
)
RX_PROMQL_WORD = re.compile(r"\b(?:promql|prometheus|metricsql)\b", re.I)
# an expression: a function call or a selector, with what follows it. It may start at the
# first place in a run of [\w:] not after a word character, dot or dash; every place in
# one run has the same end of run, so the match is tried once per run, from the run's
# start, up to that first place (atomic): a try at each ":" would be quadratic.
RX_INLINE_EXPR = re.compile(
    r"(?<![\w:])(?:(?<![.-])(?=[a-zA-Z_:])|(?>[\w:]*?(?<=:)(?=[a-zA-Z_:])))"
    r"(?P<q>[a-zA-Z_:][\w:]*\s*(?:\(|\{).*)$",
    re.S,
)
# in backticks, text with a name before "{", "(" or "[": the first such name of each run
# decides (atomic), so no run is read twice
RX_BACKTICK_PROMQL = re.compile(
    r"`(?P<q>(?>[^`]*?(?<![\w:])(?>[\w:]*?[a-zA-Z_:])[\w:]*+\s*+[{(\[])[^`]*+)`"
)
# "найди в логах X", "search the logs for X", "grep logs for X"
RX_LOG_QUERY = re.compile(
    r"(?:найди|поищи|ищи|grep|search|find)\s+(?:во?\s+)?(?:все[хм]?\s+|the\s+|all\s+)?"
    r"(?:логах|логи|logs?)\s+(?:for\s+|на\s+|по\s+)?(?:[\w-]+\s+)??"
    r"[\"'«`]?(?P<q>[^\"'»`]+?)[\"'»`]?(?=\s+(?:за|in|over|for|at|в|с)\s|\s*[?.!]?\s*$)",
    re.I,
)


RX_IPV4 = re.compile(
    r"(?<![\d.])((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})(?![\d.])"
)
RX_PORT_WORD = re.compile(r"(?:\bport\b|\bпорт\w*)\s*+[:#]?\s*(\d{1,5})\b", re.I)
# Bounded work on any input: a pattern with nested repetition (labels of a host name) is
# only ever run on one run of host characters at most a host name long; the runs are
# found by a pattern that starts only where a run starts, so each character is read once.
_RUN = re.compile(r"(?<![a-z0-9.-])[a-z0-9.-]+", re.I)
_HOST_PORT = re.compile(r"(?<![a-z0-9.-])([a-z0-9.-]{1,253}):(\d{1,5})\b", re.I)
_A_HOST = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}", re.I)
MAX_HOST = 253


def _hosts(text: str) -> list[str]:
    return [h for run in _RUN.findall(text) if len(run) <= MAX_HOST for h in RX_HOST.findall(run)]


def _ports(text: str) -> list[str]:
    """Ports as the text gives them, in order: "port 8080" and "<host or ip>:8080"."""
    found = [(m.start(), m.group(1)) for m in RX_PORT_WORD.finditer(text)]
    found += [(m.start(), m.group(2)) for m in _HOST_PORT.finditer(text) if _A_HOST.fullmatch(m[1])]
    return [port for _, port in sorted(found)]


class Identifiers(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_ids: list[str] = Field(default_factory=list)
    http_codes: list[str] = Field(default_factory=list)
    job_ids: list[int] = Field(default_factory=list)
    pipeline_ids: list[int] = Field(default_factory=list)
    commits: list[str] = Field(default_factory=list)
    hosts: list[str] = Field(default_factory=list)
    ports: list[int] = Field(default_factory=list)
    promql: str | None = None
    log_query: str | None = None


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def extract_identifiers(text: str) -> Identifiers:
    request_ids = [m.group(1) for m in RX_REQUEST_ID_LABELLED.finditer(text)]
    request_ids += RX_UUID.findall(text) + RX_HEX32.findall(text)
    commits = [m.group(1) for m in RX_SHA_LABELLED.finditer(text)] + RX_SHA40.findall(text)
    commits = [c for c in commits if c not in request_ids]
    # A number is an HTTP code only outside times, dates, ids and versions.
    scrubbed = RX_HEX32.sub(" ", RX_UUID.sub(" ", text))
    scrubbed = RX_JOB.sub(" ", RX_PIPELINE.sub(" ", scrubbed))
    codes = [c.lower() for c in RX_HTTP.findall(scrubbed)]
    codes = [c for c in codes if c.endswith("xx") or 100 <= int(c) <= 599]
    return Identifiers(
        request_ids=_unique([r for r in request_ids if any(ch.isdigit() for ch in r)]),
        http_codes=_unique(codes),
        job_ids=[int(j) for j in _unique(RX_JOB.findall(text))],
        pipeline_ids=[int(p) for p in _unique(RX_PIPELINE.findall(text))],
        commits=_unique(commits),
        hosts=_unique([h.lower() for h in _hosts(text)] + RX_IPV4.findall(text)),
        ports=[int(p) for p in _unique(_ports(text)) if 0 < int(p) < 65536],
        promql=_promql(text),
        log_query=_log_query(text),
    )


def _promql(text: str) -> str | None:
    for m in (RX_PROMQL.search(text), RX_BACKTICK_PROMQL.search(text)):
        if m is not None:
            query = m.group("q").strip().strip("`")
            # an expression has a metric selector or a function call; "promql please" is not
            if re.search(r"(?<![\w:])[\w:]+\s*[{(\[]", query):  # from a run's start: linear
                return query
    if RX_PROMQL_WORD.search(text) and (m := RX_INLINE_EXPR.search(text)):
        # "run this PromQL in <env> and tell me the value: <expression>": the words name a
        # query, and the expression follows them, to the end of the message
        return m.group("q").strip().rstrip("?.!").strip() or None
    return None


def _log_query(text: str) -> str | None:
    m = RX_LOG_QUERY.search(text)
    if not m:
        return None
    query = m.group("q").strip()
    return query or None
