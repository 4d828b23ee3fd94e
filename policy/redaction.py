"""Redaction of secret-like data before anything is rendered, logged or attached.

Two pure functions: `redact(text)` for free text (log lines, error messages, answers) and
`redact_obj(value)` for structured data (dicts, lists, pydantic models), which also blanks
every value stored under a secret-like key. Both replace what they find with
`[REDACTED]` and are idempotent: redacting twice gives the same text as redacting once.

What is replaced, in this order (earlier rules see the text first):
    PEM private keys (a truncated block is cut to the end of the text);
    header values: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
        X-*-Token / X-*-Key / X-*-Secret, Private-Token (to the end of the line or quote);
    values of secret-like keys: `password=...`, `"api_key": "..."`, `'token': '...'`,
        `client_secret: ...` at the start of a line (YAML, env files);
    `Bearer` / `Basic` credentials anywhere;
    well-known token shapes: JWTs, AWS access key ids, GitLab (glpat-...), GitHub,
        Slack (xox?-...), OpenAI (sk-...) tokens, Slack and Mattermost webhook paths;
    user:password@ in URLs;
    the query string of URLs (`?[REDACTED]`), unless the URL's host is in
        `keep_query_hosts` (our own dashboard links).

Kept on purpose: request ids, commit SHAs, UUIDs, IPs, Kubernetes names and ordinary
error text. A key named like `secretName` or `tokenizer` is not a secret key; a bare
`token: expired` in the middle of a sentence is not treated as a key/value pair.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

REDACTED = "[REDACTED]"
_RUN_RE = re.compile(r"(?:\[REDACTED\]){2,}")

# A secret-like key: an optional prefix, a secret word, an optional known suffix, and
# nothing word-like after it (so `secretName`, `token-service`, `tokenizer` are not keys).
_SECRET_WORD = (
    r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|signing[_-]?key|credentials?)"
)
_KEY_SUFFIX = r"(?:[_-]?(?:key|id|value|access[_-]?key|hash))?"
_SECRET_KEY = rf"[\w.-]{{0,40}}?{_SECRET_WORD}{_KEY_SUFFIX}"
_HEADER_KEY = (
    r"(?:proxy-authorization|authorization|set-cookie|cookie|private-token"
    r"|x-[\w-]{0,30}?(?:token|key|secret|auth))"
)
_KEY_RE = re.compile(
    rf"(?:{_SECRET_KEY}|{_HEADER_KEY}|authorization|set[_-]?cookie|cookie)", re.IGNORECASE
)

_PEM_RE = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*)",
    re.DOTALL,
)
# `Authorization: Bearer x`, `Cookie: a=b; c=d`: the whole value up to the line end or quote.
_HEADER_RE = re.compile(
    rf"(?<![\w-])(?P<key>{_HEADER_KEY})(?P<sep>\s*:[ \t]*)(?P<value>[^\r\n\"']+)",
    re.IGNORECASE,
)
# "key": "value" and 'key': 'value' (JSON, Python reprs); backslash escapes are honoured.
_QUOTED_KV_RE = re.compile(
    rf"(?P<q>[\"'])(?P<key>{_SECRET_KEY}|{_HEADER_KEY})(?P=q)(?P<sep>\s*[:=]\s*)"
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*\"|'(?:[^'\\\r\n]|\\.)*')",
    re.IGNORECASE,
)
# The same inside a JSON string that was itself escaped: \"key\": \"value\".
_ESCAPED_KV_RE = re.compile(
    rf"\\\"(?P<key>{_SECRET_KEY}|{_HEADER_KEY})\\\"(?P<sep>\s*:\s*)\\\""
    r"(?P<value>(?:(?!\\\").)*)\\\"",
    re.IGNORECASE,
)
# key=value (query strings, logfmt, env, CLI flags); the value may be quoted.
_EQ_KV_RE = re.compile(
    rf"(?<![\w.-])(?P<key>{_SECRET_KEY})(?![\w-])(?P<sep>[ \t]*=[ \t]*)"
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*\"|'[^'\r\n]*'|[^\s&;,\"']+)",
    re.IGNORECASE,
)
# key: value at the start of a line (YAML, env-like config dumps).
_LINE_KV_RE = re.compile(
    rf"^(?P<lead>[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?)(?P<key>{_SECRET_KEY})(?![\w-])"
    r"(?P<sep>[ \t]*:[ \t]*)(?P<value>[^\s#][^\r\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
# "password: s3cr3t" in the middle of a line (log messages); only the unambiguous words, so
# "token: expired" style error text is kept.
_INLINE_PASSWORD_RE = re.compile(
    r"(?<![\w-])(?P<key>password|passwd|passphrase|pwd|pass)(?![\w-])"
    r"(?P<sep>[ \t]*[:=][ \t]*)(?!\[REDACTED\])(?P<value>[^\s,;\"'\[\])]+)",
    re.IGNORECASE,
)
# CLI flags: --db-password Q7rx2, --api-token=..., --client-secret x
_FLAG_RE = re.compile(
    r"(?<![\w-])(?P<key>--[\w-]*?(?:password|passwd|token|secret|api-?key)[\w-]*)"
    r"(?P<sep>[ \t]+|=)(?!\[REDACTED\])(?P<value>(?!--)[^\s\"']+)",
    re.IGNORECASE,
)
# `Bearer <credential>` anywhere; a plain lowercase word ("bearer authentication") is kept.
_SCHEME_RE = re.compile(
    r"\b(?P<scheme>Bearer|Basic)(?P<sep>\s+)(?-i:(?![a-z]+\b))(?P<value>[A-Za-z0-9._~+/=-]{6,})",
    re.IGNORECASE,
)
_TOKEN_RES = (
    # JWT: header.payload.signature, base64url, header starts with '{"' -> eyJ
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
    # AWS access key ids
    re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    # GitLab tokens: personal, deploy, runner, pipeline trigger, feed, OAuth, CI build ...
    re.compile(r"\bgl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|oas|wt|agent|ffct)-[A-Za-z0-9_-]{10,}"),
    re.compile(r"\bGR1348941[A-Za-z0-9_-]{10,}"),
    # GitHub tokens
    re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    # Slack tokens
    re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bxapp-[A-Za-z0-9-]{10,}"),
    # OpenAI-style API keys
    re.compile(r"\bsk-(?:proj-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})"),
)
# Webhook URLs whose path is the secret: keep the host and the fixed part of the path.
_WEBHOOK_RE = re.compile(
    r"(?P<keep>hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]+"
    r"|(?P<keep2>://[^\s/?#\"'<>]+/hooks/)[a-z0-9]{20,}",
)
_USERINFO_RE = re.compile(
    r"(?P<scheme>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,15}://)"
    r"(?P<userinfo>[^\s/?#@:\"'<>]*:[^\s/?#@\"'<>]*)@"
)
# A whole URL token, up to whitespace or a quote; the query is found inside it in code
# (one linear scan, no backtracking between host, path and query).
_URL_RE = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s\"'<>`]*+")
_TRAILING_PUNCT = ".,;:!?)]}"


def _replace_value(match: re.Match[str]) -> str:
    """Keep everything but the value group, which becomes [REDACTED] (quotes kept)."""
    value = match.group("value")
    start, end = match.span("value")
    if value[:1] in ("'", '"') and len(value) >= 2 and value[-1] == value[0]:
        value_out = f"{value[0]}{REDACTED}{value[0]}"
    else:
        value_out = REDACTED
    whole_start = match.start()
    text = match.group(0)
    return text[: start - whole_start] + value_out + text[end - whole_start :]


def _host_of(authority: str) -> str:
    host = authority.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[1 : host.find("]")].lower() if "]" in host else host.lower()
    return host.split(":", 1)[0].lower().rstrip(".")


def _query_replacer(keep_query_hosts: frozenset[str]) -> Callable[[re.Match[str]], str]:
    keep = frozenset(h.lower().rstrip(".") for h in keep_query_hosts)

    def replace(match: re.Match[str]) -> str:
        url = match.group(0)
        after_scheme = url.index("://") + 3
        rest = url[after_scheme:]
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        mark = url.find("?", after_scheme + len(authority))
        if mark < 0 or _host_of(authority) in keep:
            return url
        query = url[mark + 1 :]
        stripped = query.rstrip(_TRAILING_PUNCT)
        if not stripped or query.startswith(REDACTED):
            return url
        return f"{url[:mark]}?{REDACTED}{query[len(stripped) :]}"

    return replace


def _webhook(match: re.Match[str]) -> str:
    return (match.group("keep") or match.group("keep2")) + REDACTED


def redact(text: str, keep_query_hosts: frozenset[str] = frozenset()) -> str:
    """Replace secret-like data in `text` with [REDACTED]; never raises, idempotent.

    `keep_query_hosts`: host names (exact, case-insensitive) whose URLs keep their query
    string, such as our own dashboard links; secrets inside it are still replaced.
    """
    if not text:
        return text
    # a pass can leave text that another rule then reads as a secret ("password=&[": the
    # inline rule takes "&", the key=value rule then takes "[REDACTED]["): repeat until
    # nothing changes, so redacting twice never differs from redacting once
    out = text
    for _ in range(_MAX_PASSES):
        again = _one_pass(out, keep_query_hosts)
        if again == out:
            break  # most text: the first pass changes nothing and is the fixpoint
        out = again
    return out


_MAX_PASSES = 4


def _one_pass(text: str, keep_query_hosts: frozenset[str]) -> str:
    out = _PEM_RE.sub(REDACTED, text)
    out = _HEADER_RE.sub(_replace_value, out)
    out = _QUOTED_KV_RE.sub(_replace_value, out)
    out = _ESCAPED_KV_RE.sub(_replace_value, out)
    out = _EQ_KV_RE.sub(_replace_value, out)
    out = _LINE_KV_RE.sub(_replace_value, out)
    out = _INLINE_PASSWORD_RE.sub(_replace_value, out)
    out = _FLAG_RE.sub(_replace_value, out)
    out = _SCHEME_RE.sub(_replace_value, out)
    for pattern in _TOKEN_RES:
        out = pattern.sub(REDACTED, out)
    out = _WEBHOOK_RE.sub(_webhook, out)
    out = _USERINFO_RE.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", out)
    out = _URL_RE.sub(_query_replacer(keep_query_hosts), out)
    # two secrets side by side read as one: a second pass then finds nothing new to join
    return _RUN_RE.sub(REDACTED, out)


def is_secret_key(key: str) -> bool:
    """True for a mapping key whose value is a secret as a whole (`password`, `Cookie`)."""
    return _KEY_RE.fullmatch(key.strip()) is not None


def redact_obj(value: Any, keep_query_hosts: frozenset[str] = frozenset()) -> Any:
    """Redact a structure recursively: strings are `redact`ed, values under secret-like
    keys are blanked, containers keep their shape. A pydantic model becomes its redacted
    JSON-mode dump (a dict); validate it back into the model where one is needed. Mapping
    keys are kept as they are."""
    return _Redactor(keep_query_hosts).obj(value)


class _Redactor:
    """One structure's redaction. A tool result repeats the same strings (namespaces,
    node names, field names) many times: each is redacted once."""

    def __init__(self, keep_query_hosts: frozenset[str]) -> None:
        self._keep = keep_query_hosts
        self._texts: dict[str, str] = {}
        self._keys: dict[str, bool] = {}

    def text(self, value: str) -> str:
        done = self._texts.get(value)
        if done is None:
            done = self._texts[value] = redact(value, self._keep)
        return done

    def secret_key(self, key: str) -> bool:
        known = self._keys.get(key)
        if known is None:
            known = self._keys[key] = is_secret_key(key)
        return known

    def obj(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, BaseModel):
            return self.obj(value.model_dump(mode="json"))
        if isinstance(value, bytes | bytearray):
            return self.text(bytes(value).decode("utf-8", "replace"))
        if isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if isinstance(key, str) and self.secret_key(key) and _is_scalar(item):
                    out[key] = REDACTED
                else:
                    out[key] = self.obj(item)
            return out
        if isinstance(value, list | tuple | set | frozenset):
            items = [self.obj(item) for item in value]
            if isinstance(value, list):
                return items
            if isinstance(value, tuple):
                return tuple(items)
            return type(value)(items) if _hashable(items) else items
        return value


def _is_scalar(item: Any) -> bool:
    """A value that is replaced as a whole under a secret key (None and booleans say
    nothing secret and are kept)."""
    if item is None or isinstance(item, bool):
        return False
    return isinstance(item, str | bytes | bytearray | int | float)


def _hashable(items: list[Any]) -> bool:
    try:
        for item in items:
            hash(item)
    except TypeError:
        return False
    return True
