"""Question text for the parser properties: arbitrary unicode, and mixtures of the tokens
real questions carry (environments, services, clock times, dates at the calendar's ends,
amounts of time, ports, addresses, ids, Russian words) joined the ways people join them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

ENVS = ["dc-a", "DC-A", "dc_a", "dca", "дц-а", "dс-a", "dc-b", "dc-c", "stage", "prod",
        "staging", "preprod", "qa", "test", "dev", "zone-1", "cluster x", "кластер b",
        "region eu"]  # fmt: skip
SERVICES = ["service-a", "сервис а", "svc a", "Service A", "service-ab", "search-api", "auth-api",
            "catalog-api", "notify-push", "worker-17", "payments", "orders", "pay.example.com/api",
            "service-a-5d8f7c9b4-x2k9p", "ingress-nginx", "x-request-id"]  # fmt: skip
TIMES = ["14:11", "в 14:11", "at 23:10", "14.11", "в 9.30", "25:61", "23:59:59", "00:00",
         "14:11 UTC", "14:11 мск", "14:11 +03:00", "14:11 +99:99", "14:11 -12:00", "14:11 +14:00",
         "с 13:05 до 13:12", "from 23:50 to 00:10", "between 10:00 and 09:00", "since 12:30",
         "начиная с 10:30", "с 10 утра", "since 9pm", "около 12 ночи", "at 12 am",
         "2 hours ago", "часа два назад", "минут десять назад", "около получаса назад",
         "a couple of hours ago", "99999999999 days ago", "1.5 h ago", "0 minutes ago",
         "за последний час", "за последние 2 часа", "last 2h", "past 30 minutes",
         "last 99999999 days", "за 0 минут", "в течение дня", "since an hour ago",
         "errors started 20 minutes ago", "начались часа два назад", "yesterday", "вчера",
         "позавчера", "сегодня", "today", "вчера вечером", "yesterday evening", "днём",
         "this morning", "с утра", "ночью", "last night", "полчаса", "now", "сейчас",
         "currently", "still", "до сих пор", "yesterday's rates", "вчерашние курсы",
         "before", "перед", "до того как"]  # fmt: skip
DATES = ["9999-12-31", "0001-01-01", "9999-12-31 23:59", "0001-01-01T00:00", "2026-07-20",
         "2026-07-20T14:11:00+03:00", "2026-07-20 14:11:05+03:00", "2026-07-20T14:11:00Z",
         "2026-13-45", "2025-02-29", "31.12.9999 23:59", "01.01.0001 00:00", "29.02.2024",
         "20.07.2026 14:11", "99.99.9999", "0000-00-00", "1969-12-31", "9000-01-01"]  # fmt: skip
NETWORK = ["port 8080", "порт 99999", "host.example.com:443", "10.0.0.1:65536", "10.0.0.1",
           "256.1.1.1", "::1", "[::1]:53", "192.0.0.8", "db.internal:5432",
           "svc.cluster.local:0", "reachable", "доступен ли"]  # fmt: skip
IDS = ["request_id 7f9e2c21a4b84d0c9e51b0d3f6a27c85", "x-request-id: abc-12345678",
       "0b7c3e2a-1d4f-4a5b-9c8d-7e6f5a4b3c2d", "commit b73e0c52", "job #5452201",
       "pipeline 87960", "джоба 123", "502", "5xx", "404s", "1.25", "v2.14"]  # fmt: skip
WORDS = ["почему", "отдавал", "отдаёт 502", "сломалось", "после выкатки", "кто выкатывал",
         "не поднимаются", "рестартует", "сколько памяти", "квота", "RPS", "latency p99",
         "то же самое", "а в", "а что в", "the same for", "what about", "again", "в обоих ДЦ",
         "in all DCs", "why", "who deployed", "is it down", "retransmits", "image", "replicas",
         "promql rate(http_requests_total[5m])", "`sum(rate(x{job=\"a\"}[5m]))`",
         "найди в логах \"timeout\"", "grep logs for OOMKilled", "@infrabot", "?", "!",
         "\u200b", "\u202e", "👍", "ё", "Ǆ", "ﬁ", "İ"]  # fmt: skip
TOKENS = ENVS + SERVICES + TIMES + DATES + NETWORK + IDS + WORDS
SEPARATORS = [" ", " ", " ", "", ", ", "\n", "\t", "/", "-", ":", "?", "  "]


def questions(*, max_tokens: int = 8) -> st.SearchStrategy[str]:
    """A question: tokens of real ones and arbitrary unicode, in any order, any spacing.
    Lone surrogates included: a Mattermost post may carry "\\ud800" in its JSON."""
    anything = st.text(st.characters(exclude_categories=()), max_size=10)
    known = st.sampled_from(TOKENS)
    token = st.one_of(known, known, known, anything)  # a real token three times in four
    part = st.tuples(token, st.sampled_from(SEPARATORS))
    return st.one_of(
        st.lists(part, max_size=max_tokens).map(lambda ps: "".join(t + s for t, s in ps)),
        st.lists(part, max_size=max_tokens).map(lambda ps: "".join(t + s for t, s in ps)),
        st.text(max_size=60),
    )


ZONES = [ZoneInfo("UTC"), ZoneInfo("Europe/Moscow"), ZoneInfo("Pacific/Kiritimati"),
         ZoneInfo("Pacific/Pago_Pago"), ZoneInfo("Asia/Kathmandu"), ZoneInfo("America/St_Johns"),
         ZoneInfo("Australia/Lord_Howe"), timezone(timedelta(hours=-12))]  # fmt: skip


def clocks() -> st.SearchStrategy[datetime]:
    """The moment a turn is asked: mostly around now, sometimes far from it, in any zone
    (around midnight and DST changes included). Built from a timestamp: cheaper to draw than
    `st.datetimes` with zones, and as good at the edges."""
    near = st.integers(int(datetime(2000, 1, 1, tzinfo=UTC).timestamp()), 4102444800)  # 2100
    far = st.integers(31536000, int(datetime(8999, 12, 1, tzinfo=UTC).timestamp()))
    return st.one_of(
        st.just(datetime(2026, 7, 20, 11, 40, tzinfo=UTC)),
        st.builds(datetime.fromtimestamp, near | far, st.sampled_from(ZONES)),
    )
