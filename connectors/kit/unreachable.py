"""Why a source could not be reached, said the same way by every connector, `doctor` and the
logs: the URL (never its credentials) and the kind of failure a person acts on differently.

A name that does not resolve is a typo or a DNS view; a refused port is a wrong port or a
server down; a certificate not verified is a CA to give (`ca_cert_path`); a timeout is a
firewall or a slow server. Every client library wraps the socket's error its own way
(httpx, urllib3, requests, elastic-transport), so the kind is read from the chain of
exceptions (causes, contexts, wrapped reasons) down to the socket's own error, and only
then from the words of their messages.
"""

from __future__ import annotations

import re
import socket
import ssl
from enum import StrEnum
from urllib.parse import urlsplit, urlunsplit

__all__ = ["Unreachable", "safe_url", "unreachable_said", "why_unreachable"]


class Unreachable(StrEnum):
    """How a connection failed."""

    NAME = "name not resolved"
    REFUSED = "connection refused"
    TLS = "TLS certificate not verified"
    HANDSHAKE = "TLS handshake failed"
    TIMEOUT = "timed out"
    RESET = "connection reset"
    OTHER = "connection failed"


# the words of the resolvers' and the libraries' messages, when no typed error is reachable
_WORDS: tuple[tuple[Unreachable, re.Pattern[str]], ...] = (
    (
        Unreachable.NAME,
        re.compile(
            r"name or service not known|nodename nor servname|temporary failure in name "
            r"resolution|getaddrinfo failed|no address associated|name resolution|"
            r"failed to resolve",
            re.I,
        ),
    ),
    (Unreachable.REFUSED, re.compile(r"connection refused|errno 111\b|actively refused", re.I)),
    (Unreachable.TLS, re.compile(r"certificate[ _]verify[ _]failed", re.I)),
    (Unreachable.HANDSHAKE, re.compile(r"\bssl\b|\btls\b|wrong version number", re.I)),
    (Unreachable.TIMEOUT, re.compile(r"timed? ?out", re.I)),
    (Unreachable.RESET, re.compile(r"connection reset|errno 104\b|broken pipe", re.I)),
)
# an exception chain deeper than this is not followed further
_DEPTH = 12


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and everything it wraps: causes, contexts, a urllib3 `reason`, the
    exceptions in `args` and elastic-transport's `errors`."""
    out: list[BaseException] = []
    todo = [exc]
    while todo and len(out) < _DEPTH:
        seen = todo.pop(0)
        if any(seen is o for o in out):
            continue
        out.append(seen)
        wrapped = [seen.__cause__, seen.__context__, getattr(seen, "reason", None)]
        wrapped += list(getattr(seen, "errors", ()) or ()) + list(seen.args)
        todo += [w for w in wrapped if isinstance(w, BaseException)]
    return out


def why_unreachable(exc: BaseException) -> tuple[Unreachable, str]:
    """The kind of failure and its detail (the resolver's or the TLS library's words)."""
    chain = _chain(exc)
    for seen in chain:
        if isinstance(seen, socket.gaierror):
            return Unreachable.NAME, seen.strerror or str(seen)
        if isinstance(seen, ssl.SSLCertVerificationError):
            return Unreachable.TLS, seen.verify_message or str(seen)
        if isinstance(seen, ssl.SSLError):
            return Unreachable.HANDSHAKE, seen.reason or str(seen)
        if isinstance(seen, ConnectionRefusedError):
            return Unreachable.REFUSED, ""
        if isinstance(seen, ConnectionResetError):
            return Unreachable.RESET, ""
        if isinstance(seen, TimeoutError):
            return Unreachable.TIMEOUT, ""
    text = " ".join(str(seen) for seen in chain)[:2000]
    for kind, words in _WORDS:
        if words.search(text):
            return kind, ""
    return Unreachable.OTHER, type(exc).__name__


def safe_url(url: str) -> str:
    """The URL without its user, password, query or fragment (a token may ride in any)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "?"
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address keeps its brackets
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def unreachable_said(url: str, exc: BaseException, timeout_s: float | None = None) -> str:
    """ "cannot connect to https://host:6443: name not resolved (Name or service not known)"."""
    kind, detail = why_unreachable(exc)
    if kind is Unreachable.TIMEOUT and timeout_s is not None:
        detail = detail or f"after {timeout_s:g} s"
    said = f"cannot connect to {safe_url(url)}: {kind.value}"
    return f"{said} ({detail})" if detail else said


def certificate_untrusted(
    url: str, ca_path: str | None = None, timeout_s: float = 3.0
) -> str | None:
    """For an https URL whose server presents a certificate that the CA given (or the
    system's) does not verify: who the certificate says it is and who issued it, as a
    person checks it against the CA they hold. None when it verifies, or for plain HTTP or
    a server that cannot be reached at all (the connection's own failure says that). Runs
    a handshake: call it from a thread."""
    from cryptography import x509

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or 443
    except ValueError:
        return None
    if parts.scheme != "https" or not host:
        return None
    verifying = ssl.create_default_context(cafile=ca_path)
    try:
        with (
            socket.create_connection((host, port), timeout=timeout_s) as sock,
            verifying.wrap_socket(sock, server_hostname=host),
        ):
            return None
    except ssl.SSLCertVerificationError as exc:
        why = exc.verify_message or str(exc)
    except (OSError, ssl.SSLError):
        return None
    plain = ssl.create_default_context()
    plain.check_hostname = False
    plain.verify_mode = ssl.CERT_NONE
    try:
        with (
            socket.create_connection((host, port), timeout=timeout_s) as sock,
            plain.wrap_socket(sock, server_hostname=host) as tls,
        ):
            der = tls.getpeercert(binary_form=True)
    except (OSError, ssl.SSLError):
        return f"its certificate is not trusted ({why})"
    if not der:
        return f"its certificate is not trusted ({why})"
    cert = x509.load_der_x509_certificate(der)
    return (
        f"its certificate ({cert.subject.rfc4514_string()}, issued by "
        f"{cert.issuer.rfc4514_string()}) is not trusted ({why})"
    )
