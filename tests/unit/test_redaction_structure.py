"""Secrets in the places real tools put them, beyond the common shapes: a secret-named
variable by a word part (DB_PASS, SMTP_AUTH), in Russian, given as a name/value pair
(Kubernetes env in JSON or YAML, an audit patch's path), handed to a command (curl -u,
ldapsearch -w, redis-cli -a, a here-string to --password-stdin, requirepass), or written
next to its key id (an AWS secret key). Ordinary text that looks alike is kept."""

from __future__ import annotations

import pytest

from policy.redaction import REDACTED, redact

SECRET = "Hunter2pass!"

CARRIERS = [
    f"DB_PASS={SECRET}",
    f"MYSQL_ROOT_PASS: {SECRET}",
    f"smtp_auth={SECRET}",
    f"пароль: {SECRET}",
    f'{{"name":"DB_PASSWORD","value":"{SECRET}"}}',
    f"env:\n  - name: API_TOKEN\n    value: {SECRET}",
    f"set spec.template.spec.containers[0].env[DB_PASSWORD].value={SECRET}",
    f"curl -sS -u deploy:{SECRET} https://registry.example/v2/",
    f"ldapsearch -x -H ldap://dc1 -D cn=admin,dc=corp -w {SECRET} -b dc=corp",
    f"redis-cli -h cache -p 6379 -a {SECRET} ping",
    f"docker login --password-stdin -u ci <<< '{SECRET}'",
    f"requirepass {SECRET}",
    f"masterauth {SECRET}",
]


@pytest.mark.parametrize("text", CARRIERS)
def test_a_secret_in_its_carrier_is_replaced(text: str) -> None:
    out = redact(text)
    assert SECRET not in out and REDACTED in out
    assert redact(out) == out  # idempotent


def test_an_aws_secret_key_next_to_its_key_id_is_replaced() -> None:
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    for sep in (" ", ":", ",", " | "):
        assert key not in redact(f"AKIAIOSFODNN7EXAMPLE{sep}{key}")


@pytest.mark.parametrize(
    "text",
    [
        "bypass=true oauth=enabled author=bob",
        "env:\n  - name: LOG_LEVEL\n    value: debug",
        "curl -sS https://example.com/health",
        "echo x | docker login --password-stdin -u bob registry.example",
        "compass=north",
    ],
)
def test_text_that_only_looks_alike_is_kept(text: str) -> None:
    assert redact(text) == text
