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
