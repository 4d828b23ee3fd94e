"""The secret corpus: every shape is redacted as it is, URL-encoded and inside a link to
our own dashboards (whose query is kept), and the text around it survives."""

from __future__ import annotations

import pytest

from policy.redaction import REDACTED, redact
from tests.secrets_corpus import CORPUS, ENCODED

_WINDOW = 8


def leaks(secret: str, original: str, shown: str) -> list[str]:
    """The pieces of `secret` that `shown` still holds: every run of 8 of its characters
    (the whole secret when shorter) that the rest of `original` does not also hold."""
    rest = original.replace(secret, "\0")
    if len(secret) <= _WINDOW:
        return [secret] if secret in shown else []
    windows = {secret[i : i + _WINDOW] for i in range(len(secret) - _WINDOW + 1)}
    return sorted(w for w in windows if w in shown and w not in rest)


def test_the_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 80
    assert len({name for name, _, _ in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize(
    ("text", "secret"), [(t, s) for _, t, s in CORPUS], ids=[n for n, _, _ in CORPUS]
)
def test_every_shape_is_redacted(text: str, secret: str) -> None:
    assert secret in text
    shown = redact(text)
    assert not leaks(secret, text, shown), shown
    assert REDACTED in shown
    # what the line says around the secret is kept (never the whole line blanked)
    assert shown.strip() != REDACTED


@pytest.mark.parametrize(
    ("text", "secret"), [(t, s) for _, t, s in ENCODED], ids=[n for n, _, _ in ENCODED]
)
def test_url_encoded_shapes_are_redacted(text: str, secret: str) -> None:
    shown = redact(text)
    assert not leaks(secret, text, shown), shown


@pytest.mark.parametrize(
    ("text", "secret"), [(t, s) for _, t, s in CORPUS], ids=[n for n, _, _ in CORPUS]
)
def test_a_kept_dashboard_query_keeps_no_secret(text: str, secret: str) -> None:
    from urllib.parse import quote

    link = f"https://kibana.corp.example/app/discover#/?_a=(query:(query:'{quote(text)}'))"
    shown = redact(link, keep_query_hosts=frozenset({"kibana.corp.example"}))
    assert not leaks(quote(secret), link, shown), shown
    assert not leaks(secret, link, shown), shown
    assert shown.startswith("https://kibana.corp.example/app/discover#/?_a=(query:")


# ordinary text that a rule once took for a secret (found by review): kept whole
KEPT = [
    "docker login registry.local && docker run --rm -p 8080:80 app",
    "mysql -h db app < dump.sql && ssh -p2222 deploy@host",
    "Session: opened for user root",
    "session=closed",
    "ORACLE_SID=ORCL",
    "map[session:abc sid:1]",
    "node id MDQ6VXNlcjU4MzIzMQ== not found",
    "error validating token: 2024-05-01T10:00:00Z is past expiry",
    "refresh token: 7d9f8b6c5d-x2k4q not found",
]


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_found_by_review_is_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("auth=dXNlcjpwYXNzd29yZDEyMw== sent", "dXNlcjpwYXNzd29yZDEyMw"),
        ("env map[password:[104 117 110 116 101 114 50] user:bob]", "104 117 110"),
        (
            "map[" + " ".join(f"K{i}:v{i}" for i in range(600)) + " DB_PASSWORD:Lq8Zt2Wm7Rk]",
            "Lq8Zt2Wm7Rk",
        ),
        ("GET https://es.example/?api_key=Ak7Zq2Lm9Tw", "Ak7Zq2Lm9Tw"),
    ],
)
def test_leaks_found_by_review_are_closed(text: str, secret: str) -> None:
    shown = redact(text)
    assert secret not in shown, shown
    assert "]]" not in shown.replace("[REDACTED]]", "")  # no stray bracket after a query


def test_a_traceback_in_a_log_record_is_redacted() -> None:
    import io
    import logging

    from policy.redaction import RedactingFilter

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("test.redaction.traceback")
    logger.addHandler(handler)
    try:
        raise ConnectionError("GET https://elastic:S3cretPass9@es.internal/?api_key=abc123")
    except ConnectionError:
        logger.exception("read failed")
    logger.removeHandler(handler)
    assert "ConnectionError" in out.getvalue()
    assert "S3cretPass9" not in out.getvalue() and "abc123" not in out.getvalue()
