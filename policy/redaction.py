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

import base64
import binascii
import logging
import re
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any
from urllib.parse import quote, unquote

from pydantic import BaseModel

from policy.secret_shapes import PASSWORD_WORDS, VALUE_RES, triggered

REDACTED = "[REDACTED]"
_RUN_RE = re.compile(r"(?:\[REDACTED\]){2,}")

# A secret-like key: an optional prefix, a secret word, an optional known suffix, and
# nothing word-like after it (so `secretName`, `token-service`, `tokenizer` are not keys).
_SECRET_WORD = (
    r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|signing[_-]?key|account[_-]?key|credentials?|(?:client[_-]?)?key[_-]?data"
    # a word part after a separator: DB_PASS, SMTP_AUTH, basic-auth (never bypass, oauth)
    r"|(?<=[_.-])(?:pass|auth|pat))"
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
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*\"|[NnEe]?'[^'\r\n]*'|(?:[^\s&;,\"']|&(?![\w.\[\]-]*=))+)",
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
    rf"(?<![\w-])(?P<key>password|passwd|passphrase|pwd|pass|{PASSWORD_WORDS})(?![\w-])"
    r"(?P<sep>[ \t]*[:=][ \t]*)(?!\[REDACTED\])(?P<value>[^\s,;\"'\[\])]+)",
    re.IGNORECASE,
)
# "token: 3fa9c2e1b7d0" in the middle of a line: a key that names a credential, and a value
# that looks like one (8 or more characters, letters and digits): "token: expired" is kept.
_INLINE_TOKEN_RE = re.compile(
    r"(?<![\w.-])(?P<key>(?:[\w.]{0,20}[_-])?(?:token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|secret[_-]?key|passphrase))(?![\w-])"
    r"(?P<sep>[ \t]*:[ \t]*)(?!\[REDACTED\])"
    r"(?P<value>(?!\d{4}-\d\d-\d\d)(?![a-z0-9]+(?:-[a-z0-9]+)+(?![\w.~+/=]))"
    r"(?=[\w.~+/=-]*\d)(?=[\w.~+/=-]*[A-Za-z])[\w.~+/=-]{8,}+)",
    re.IGNORECASE,
)
# a session cookie outside a Cookie header: `sessionid=`, `PHPSESSID=`, `JSESSIONID=`,
# `sid=`, with a value that looks like one (12 or more characters, letters and digits), so
# "session=closed" and "ORACLE_SID=ORCL" are kept
_SESSION_RE = re.compile(
    r"(?<![\w.-])(?P<key>(?:php|j|asp\.net_|connect\.)?sess(?:ion)?(?:[_-]?id)?|sid|_session)"
    r"(?P<sep>=)(?P<value>(?=[\w%.~+/-]*\d)(?=[\w%.~+/-]*[A-Za-z])[\w%.~+/-]{12,}+)",
    re.IGNORECASE,
)
# CLI flags: --db-password Q7rx2, --api-token=..., --client-secret x
_FLAG_RE = re.compile(
    r"(?<![\w-])(?P<key>--[\w-]*?(?:password|passwd|passphrase|token|secret|api-?key)[\w-]*"
    r"|--pass(?=[ \t=]))"
    # a flag that names where the secret comes from takes no value (--password-stdin)
    r"(?<!-stdin)(?<!-file)(?P<sep>[ \t]+|=)(?!\[REDACTED\])(?P<value>(?!--)[^\s\"']+)",
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
    # OpenAI-style and Anthropic API keys
    re.compile(r"\bsk-(?:proj-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})"),
    re.compile(r"\bsk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_-]{20,}"),
    # Stripe secret and restricted keys
    re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    # Google API keys
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
    # Vault service and batch tokens
    re.compile(r"\bhv[sb]\.[A-Za-z0-9_-]{20,}"),
    # npm, PyPI, Hugging Face, Shopify, Grafana, New Relic, Atlassian, Databricks, Twilio
    re.compile(r"\bnpm_[A-Za-z0-9]{36}"),
    re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"),
    re.compile(r"\bhf_[A-Za-z]{30,}"),
    re.compile(r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    re.compile(r"\bgls[a]_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|\bglc_[A-Za-z0-9+/]{32,}={0,2}"),
    re.compile(r"\bNRAK-[A-Z0-9]{27}"),
    re.compile(r"\bATATT3[A-Za-z0-9_=-]{50,}"),
    re.compile(r"\bdapi[a-h0-9]{32}"),
    re.compile(r"\bSK[0-9a-fA-F]{32}\b"),
    # SendGrid, DigitalOcean, age
    re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    re.compile(r"\bdo[por]_v1_[a-f0-9]{64}"),
    re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}"),
    # Telegram bot tokens (in a URL path: /bot<id>:<secret>/sendMessage)
    re.compile(r"(?<![\d:])\d{8,10}:AA[A-Za-z0-9_-]{32,}"),
    # password hashes: bcrypt, Apache apr1, SHA-crypt
    re.compile(r"\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}"),
    re.compile(r"\$apr1\$[./0-9A-Za-z]{1,8}\$[./0-9A-Za-z]{22}"),
    re.compile(r"\$[56]\$(?:rounds=\d{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{43,86}"),
)
# A password given to a command as a short flag, where the command reads it so: the mysql
# family glued (`-pSECRET`; a spaced `-p NAME` names a database), sshpass and `docker login`
# glued or spaced. Arguments between the command and the flag are bounded.
_COMMAND_FLAG_RE = re.compile(
    r"\b(?:(?:mysql|mysqldump|mysqladmin|mysqlsh|mariadb(?:-dump)?)(?:[ \t]+[^\s;&|<>]+){0,8}?"
    r"[ \t]+-p"
    r"|sshpass[ \t]+-p[ \t]*"
    r"|(?:docker|podman|nerdctl|helm[ \t]+registry)[ \t]+login(?:[ \t]+[^\s;&|<>]+){0,8}?"
    r"[ \t]+-p[ \t]*)"
    r"(?P<value>(?!\[REDACTED\])(?:'[^'\r\n]*'|\"[^\"\r\n]*\"|[^\s'\"]+))"
)
# Passwords other commands take as flags or input: curl's and wget's -u/--user
# user:password, the LDAP tools' -w, redis-cli's -a, a here-string fed to --password-stdin,
# Redis's requirepass and masterauth directives.
_COMMAND_SECRET_RE = re.compile(
    r"(?:\b(?:curl|wget)(?:[ \t]+[^\s;&|<>]+){0,8}?[ \t]+(?:-u|--user)[ \t=]*"
    r"|\bldap(?:search|modify|add|delete|whoami|passwd)(?:[ \t]+[^\s;&|<>]+){0,8}?[ \t]+-w[ \t]*"
    r"|\bredis-cli(?:[ \t]+[^\s;&|<>]+){0,8}?[ \t]+-a[ \t]*"
    r"|--password-stdin[^\n<]{0,40}<<<[ \t]*"
    r"|\b(?:requirepass|masterauth)[ \t]+)"
    r"(?P<value>(?!\[REDACTED\])(?:'[^'\r\n]*'|\"[^\"\r\n]*\"|[^\s'\"]+))",
    re.IGNORECASE,
)
# A secret-named variable given its value as a pair: Kubernetes env in JSON
# ({"name": "DB_PASSWORD", "value": "..."}) or YAML (- name: DB_PASSWORD / value: ...),
# and an audit patch's path (env[DB_PASSWORD].value=...).
_NAMED_VALUE_RE = re.compile(
    rf"\"name\"\s*:\s*\"(?P<key>{_SECRET_KEY}|{_HEADER_KEY}"
    # a cookie's name in a HAR file or a cookie jar: a session, a login's state
    r"|[\w.-]{0,40}?(?:sess|sid|auth|token|csrf|xsrf|jwt)[\w.-]{0,40})\"\s*,\s*\"value\"\s*:\s*"
    r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*\")",
    re.IGNORECASE,
)
_YAML_NAMED_VALUE_RE = re.compile(
    rf"name:[ \t]*[\"']?(?P<key>{_SECRET_KEY})[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*"
    r"(?P<value>[^\s#][^\r\n]*)",
    re.IGNORECASE,
)
_PATH_VALUE_RE = re.compile(
    rf"\[(?P<key>{_SECRET_KEY})\]\.value[ \t]*[=:][ \t]*(?P<value>[^\s,;]+)",
    re.IGNORECASE,
)
# An AWS secret access key written next to its key id (40 base64 characters)
_AWS_PAIR_RE = re.compile(
    r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b[\s:=,;|\"']{1,8}(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
)
# Go's MySQL driver DSN: user:password@tcp(host:3306)/db, no scheme in front.
_GO_DSN_RE = re.compile(
    r"(?<![\w/:.-])[\w.-]{1,64}:(?P<value>[^\s@/:'\"]{1,256})@(?:tcp|udp|unix)\("
)
# A map printed by Go's fmt (`map[DB_PASSWORD:x API_KEY:y]`), as controllers print a Secret.
_GO_MAP_RE = re.compile(r"map\[(?P<body>(?:[^\[\]\r\n]|\[[\d ]*\]|\[REDACTED\])++)\]")
# Sentry DSNs: the key is the userinfo, https://<32 hex>@o1.ingest.sentry.io/2
_KEY_USERINFO_RE = re.compile(r"(?P<scheme>://)[0-9a-f]{32}(?::[0-9a-f]{32})?@")
# Webhook URLs whose path is the secret: keep the host and the fixed part of the path.
_WEBHOOK_RE = re.compile(
    r"(?P<keep>hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|discord(?:app)?\.com/api/webhooks/\d{1,25}/"
    r"|\.webhook\.office\.com/webhookb2/"
    r"|://[^\s/?#\"'<>]{1,253}/hooks/(?=[a-z0-9]{20,}))[A-Za-z0-9/@%._-]+"
)
_USERINFO_RE = re.compile(
    r"(?P<scheme>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,23}://)"
    r"(?P<userinfo>[^\s/?#@:\"'<>]*:[^\s/?#@\"'<>]*)@"
)
# A whole URL token, up to whitespace or a quote; the query is found inside it in code
# (one linear scan, no backtracking between host, path and query).
_URL_RE = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,23}://[^\s\"'<>`]*+")
_TRAILING_PUNCT = ".,;:!?)]}"


# a Kubernetes Secret printed whole (JSON, or YAML as kubectl prints it): every value under
# its `data` and `stringData` is the secret, whatever the key is called
_SECRET_KIND_RE = re.compile(r"[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?Secret\b")
_SECRET_DATA_RE = re.compile(
    r"(?P<json>\"(?:data|stringData)\"[ \t]*:[ \t]*\{(?P<body>[^{}]{0,16384})\})"
    r"|(?m:^(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\r?\n"
    r"(?P<block>(?:(?P=indent)[ \t]+[^\r\n]*(?:\r?\n|$)){1,256}))"
)
_JSON_VALUE_RE = re.compile(
    r"(?P<key>\"[^\"\r\n]{1,253}\"[ \t]*:[ \t]*)\"(?:[^\"\\\r\n]|\\.){0,65536}\""
)
_YAML_VALUE_RE = re.compile(
    r"(?m)^(?P<key>[ \t]+[^\s:#][^:\r\n]{0,252}:[ \t]*)(?![|>][ \t]*$)\S[^\r\n]*"
)


def _secret_data(match: re.Match[str]) -> str:
    if match.group("json") is not None:
        body = _JSON_VALUE_RE.sub(lambda m: f'{m.group("key")}"{REDACTED}"', match.group("body"))
        return match.group(0).replace(match.group("body"), body)
    block = _YAML_VALUE_RE.sub(lambda m: f"{m.group('key')}{REDACTED}", match.group("block"))
    return match.group(0).replace(match.group("block"), block)


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
        if mark < 0:
            return url
        query = url[mark + 1 :]
        if _host_of(authority) in keep:
            # our own link keeps its query, but a link inside it (a search for a URL) is
            # judged by its own host
            return url[: mark + 1] + _URL_RE.sub(replace, query)
        # trailing punctuation is the sentence's, not the query's ("...?a=1)."), but the
        # bracket closing an earlier [REDACTED] is the query's
        stripped = query if query.endswith(REDACTED) else query.rstrip(_TRAILING_PUNCT)
        if not stripped or query.startswith(REDACTED):
            return url
        return f"{url[:mark]}?{REDACTED}{query[len(stripped) :]}"

    return replace


def _webhook(match: re.Match[str]) -> str:
    return match.group("keep") + REDACTED


def _go_map(match: re.Match[str]) -> str:
    # a []byte value prints as "[104 117 ...]": its spaces are not between pairs
    body = re.sub(r"\[[\d ]*\]", lambda m: m.group(0).replace(" ", "\0"), match.group("body"))
    pairs = []
    for pair in body.split(" "):
        key, colon, value = pair.partition(":")
        secret = colon and value and value != REDACTED and is_secret_key(key)
        pairs.append(f"{key}:{REDACTED}" if secret else pair.replace("\0", " "))
    return f"map[{' '.join(pairs)}]"


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
    if _ESCAPED_NEWLINE in text:
        # an escaped text (a repr, a JSON string printed inside another): its lines are
        # read as lines, then written back escaped
        spread = _redact(text.replace(_ESCAPED_NEWLINE, _SPREAD), keep_query_hosts, _DEPTH)
        return spread.replace(_SPREAD, _ESCAPED_NEWLINE).replace(_SPREAD[0], "")
    return _redact(text, keep_query_hosts, _DEPTH)


_ESCAPED_NEWLINE = "\\n"
# a line break the rules read (LINE SEPARATOR is whitespace to them, so no value takes
# it), and the real one after it
_SPREAD = "\u2028\n"


# every rule needs one of these characters, or 16 characters in a row (a bare token);
# a short name (a workload, a namespace) has none, and is not read by every rule
_RULE_CHARS = frozenset("=:@%/ \t\n\r")


def _redact(text: str, keep_query_hosts: frozenset[str], depth: int) -> str:
    if len(text) < 16 and _RULE_CHARS.isdisjoint(text):
        return text
    out = text
    for _ in range(_MAX_PASSES):
        again = _one_pass(out, keep_query_hosts, depth)
        if again == out:
            break  # most text: the first pass changes nothing and is the fixpoint
        out = again
    return out


_MAX_PASSES = 4


def _one_pass(text: str, keep_query_hosts: frozenset[str], depth: int) -> str:
    out = _PEM_RE.sub(REDACTED, text)
    out = _HEADER_RE.sub(_replace_value, out)
    out = _QUOTED_KV_RE.sub(_replace_value, out)
    out = _ESCAPED_KV_RE.sub(_replace_value, out)
    out = _EQ_KV_RE.sub(_replace_value, out)
    out = _LINE_KV_RE.sub(_replace_value, out)
    out = _INLINE_PASSWORD_RE.sub(_replace_value, out)
    out = _INLINE_TOKEN_RE.sub(_replace_value, out)
    out = _SESSION_RE.sub(_replace_value, out)
    out = _FLAG_RE.sub(_replace_value, out)
    out = _SCHEME_RE.sub(_replace_value, out)
    out = _COMMAND_FLAG_RE.sub(_replace_value, out)
    out = _COMMAND_SECRET_RE.sub(_replace_value, out)
    out = _NAMED_VALUE_RE.sub(_replace_value, out)
    out = _YAML_NAMED_VALUE_RE.sub(_replace_value, out)
    out = _PATH_VALUE_RE.sub(_replace_value, out)
    out = _AWS_PAIR_RE.sub(_replace_value, out)
    out = _GO_DSN_RE.sub(_replace_value, out)
    if triggered(out):
        for pattern in VALUE_RES:
            out = pattern.sub(_replace_value, out)
    if "Secret" in out and _SECRET_KIND_RE.search(out):
        out = _SECRET_DATA_RE.sub(_secret_data, out)
    if "map[" in out:
        out = _GO_MAP_RE.sub(_go_map, out)
    for pattern in _TOKEN_RES:
        out = pattern.sub(REDACTED, out)
    out = _WEBHOOK_RE.sub(_webhook, out)
    out = _USERINFO_RE.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", out)
    out = _KEY_USERINFO_RE.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", out)
    out = _URL_RE.sub(_query_replacer(keep_query_hosts), out)
    if depth > 0:
        # a secret written in another form: percent-encoded (a kept link's query, a path)
        # or base64 (a docker config, kubeconfig key data, an Authorization value); after
        # the query rule, so a query that is not kept goes whole, never piece by piece
        if "%" in out:
            out = _PERCENT_RUN_RE.sub(_decoded_replacer(keep_query_hosts, depth), out)
        out = _BASE64_RE.sub(_base64_replacer(depth), out)
    # two secrets side by side read as one: a second pass then finds nothing new to join
    return _RUN_RE.sub(REDACTED, out)


_DEPTH = 3
"""How many encodings deep a secret is looked for: a link's percent-encoded query holding
the base64 of a docker config that holds the base64 of `user:password` is three."""
# a run of text up to whitespace or a quote (taken whole: one scan, no backtracking); the
# replacer looks only at runs holding a percent-escape
_PERCENT_RUN_RE = re.compile(r"[^\s\"'<>`]++")
_ESCAPE_RE = re.compile(r"%[0-9A-Fa-f]{2}")
# what stays literal when a decoded run is encoded again: the URL's own structure
_URL_SAFE = "/:?#[]@!$&'()*+,;=-._~"
# a base64 or base64url token: 16 characters or more, whole (not inside a longer word)
_BASE64_RE = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}+={0,2}+(?![A-Za-z0-9+/_=-])")
_MAX_BASE64 = 65536
# what a decoded `user:password` pair looks like (a docker `auth`, a Basic credential)
_CREDENTIAL_PAIR_RE = re.compile(r"[\w.@+-]{1,64}:[^\s:]{4,256}")
_CREDENTIAL_WORDS = ("auth", "basic", "cred", "login", "pass", "secret")


def _decoded_replacer(
    keep_query_hosts: frozenset[str], depth: int
) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        run = match.group(0)
        if "%" not in run or not _ESCAPE_RE.search(run):
            return run
        decoded = unquote(run)
        if decoded == run:
            return run
        clean = _redact(decoded, keep_query_hosts, depth - 1)
        return run if clean == decoded else quote(clean, safe=_URL_SAFE + "%")

    return replace


def _base64_replacer(depth: int) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        text = _base64_text(token)
        if text is None:
            return token
        if _redact(text, frozenset(), depth - 1) != text:
            return REDACTED
        # "user:password" decoded only counts where the text says credential (a docker
        # `auth`, a Basic value): base64 of "Pipeline:4821" is a GraphQL id
        before = match.string[max(0, match.start() - 24) : match.start()].lower()
        if _CREDENTIAL_PAIR_RE.fullmatch(text) and any(w in before for w in _CREDENTIAL_WORDS):
            return REDACTED
        return token

    return replace


def _base64_text(token: str) -> str | None:
    """The text a base64 token decodes to, or None when it is not printable text (a hash,
    an id or a word decodes to bytes that are not)."""
    if len(token) > _MAX_BASE64:
        return None
    body = token.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = (
            base64.urlsafe_b64decode(padded)
            if "-" in body or "_" in body
            else base64.b64decode(padded, validate=True)
        )
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
    if len(text) < 6 or printable < len(text):
        return None
    return text


def is_secret_key(key: str) -> bool:
    """True for a mapping key whose value is a secret as a whole (`password`, `Cookie`)."""
    return _KEY_RE.fullmatch(key.strip()) is not None


def redact_obj(
    value: Any, keep_query_hosts: frozenset[str] = frozenset(), memo: dict[str, str] | None = None
) -> Any:
    """Redact a structure recursively: strings are `redact`ed, values under secret-like
    keys are blanked, containers keep their shape. A pydantic model becomes its redacted
    JSON-mode dump (a dict); validate it back into the model where one is needed. Mapping
    keys are kept as they are. `memo` (text -> redacted text) may be shared by the calls
    of one turn: a string redacted once is not read again (see `redact_memo`)."""
    return _Redactor(keep_query_hosts, memo).obj(value)


def redact_memo(text: str, keep_query_hosts: frozenset[str], memo: dict[str, str]) -> str:
    """`redact(text)` through `memo`; what it gives is remembered as clean too (redacting
    is idempotent), so the exit of a turn does not read again what a tool result already
    brought in redacted."""
    done = memo.get(text)
    if done is None:
        done = memo[text] = redact(text, keep_query_hosts)
        memo.setdefault(done, done)
    return done


class _Redactor:
    """One structure's redaction. A tool result repeats the same strings (namespaces,
    node names, field names) many times: each is redacted once."""

    def __init__(self, keep_query_hosts: frozenset[str], memo: dict[str, str] | None) -> None:
        self._keep = keep_query_hosts
        self._texts: dict[str, str] = {} if memo is None else memo
        self._keys: dict[str, bool] = {}

    def text(self, value: str) -> str:
        done = self._texts.get(value)
        if done is None:
            done = self._texts[value] = redact(value, self._keep)
            self._texts.setdefault(done, done)
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


def redact_log_event(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> Mapping[str, Any]:
    """A structlog processor: every value of a log event is redacted before it is
    rendered, whatever level it is logged at (a URL with a token, an SDK's error text)."""
    return {key: redact_obj(value) for key, value in event_dict.items()}


class RedactingFilter(logging.Filter):
    """A stdlib logging filter for the SDKs' own records (elastic_transport logs the URL it
    called, urllib3 a retried request): the formatted message is redacted in place."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, dict) and hasattr(record, "_logger"):
            # structlog's own event (`ProcessorFormatter.wrap_for_formatter` marks it) on its
            # way to the JSON formatter: every value was redacted by `redact_log_event`
            # already, and it must stay a dict; any other dict message is redacted below
            return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a record whose args do not fit its format
            message = f"{record.msg} {record.args}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info:
            # the traceback is formatted after the filters: format it now, redacted
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True
