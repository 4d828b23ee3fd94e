"""Secret shapes read from the structure around a value, beyond `key=value`: the grammar
of command lines (which argument of which command is a password), of configuration
directives (`password X`, `<password>X</password>`, `IDENTIFIED BY 'X'`), of dumps
(Go `%+v`, Rust `Debug`, PHP `print_r`), of JSON escaped at any depth, of Kubernetes
Secrets and JSON patches, and of key files (PuTTY). Each pattern's `value` group is the
secret; `policy.redaction` applies them after its own rules.

The words a password is called in the common languages are one list
(`PASSWORD_WORDS`), read by every rule that names a password key.
"""

from __future__ import annotations

import re

# "password" in the languages logs and configs are written in (any case)
_PASSWORD_WORDS = (
    "passwort", "kennwort", "contraseña", "contrasena", "mot_de_passe", "mot-de-passe",
    "senha", "hasło", "haslo", "wachtwoord", "salasana", "lösenord", "losenord",
    "adgangskode", "passord", "parola", "heslo", "jelszó", "jelszo", "şifre", "sifre",
    "пароль", "пароля", "密码", "口令", "パスワード", "비밀번호", "κωδικός",
)  # fmt: skip
PASSWORD_WORDS = "|".join(re.escape(w) for w in _PASSWORD_WORDS)
# what a key that names a secret ends with (auth_pass, insecure-password, bindPW,
# aws_secret_access_key, DB_PASSWORT)
_ENDINGS = (
    "password", "passwd", "passphrase", "pass", "secret_key", "secret-key", "secretkey",
    "secret_access_key", "secretaccesskey", "client_secret", "client-secret", "api_key",
    "api-key", "apikey", "token", "pw", "private_key", "private-key", "privatekey",
    *_PASSWORD_WORDS,
)  # fmt: skip


def _key(endings: tuple[str, ...]) -> str:
    """The key taken whole (possessively: one scan), then read for how it ends: linear on
    any text, where a lazy prefix before a list of words is tried at every length."""
    ends = sorted(set(endings), key=len, reverse=True)
    return r"[\w.-]{1,64}+(?:" + "|".join(f"(?<={re.escape(w)})" for w in ends) + ")"


_KEY = _key(_ENDINGS)
# a bare value after these is a secret when it looks like a credential; after "token" it
# may be a time or a name an error quotes ("refresh token: 7d9f8b6c5d-x2k4q not found")
_BARE_KEY = _key(tuple(w for w in _ENDINGS if w != "token"))
# (a quote may be escaped, as a repr prints it: \'x\')
_QUOTED = r"\\?[NnEe]?'[^'\r\n]{1,256}'|\"(?:[^\"\\\r\n]|\\.){1,256}\""
# a bare value that looks like a credential: letters and digits, 6 or more characters
_CREDENTIAL = r"(?=[^\s'\"]{0,256}\d)(?=[^\s'\"]{0,256}[A-Za-z])[^\s'\";,)\]}]{6,256}"
_ARG = r"[^\s;&|<>]{1,256}"

VALUE_RES: tuple[re.Pattern[str], ...] = (
    # a directive and its value with spaces between: `password X` (.netrc, HAProxy's
    # insecure-password, keepalived's auth_pass), `aws_secret_access_key X`, SQL's
    # `PASSWORD 'X'`, `IDENTIFIED BY 'X'`, `WITH PASSWORD = N'X'`
    re.compile(
        rf"(?<![\w.-])(?P<key>{_KEY}|identified[ \t]+by)(?P<sep>[ \t]+(?:=[ \t]*)?)"
        rf"(?P<value>{_QUOTED})",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?<![\w.-])(?P<key>{_BARE_KEY})(?P<sep>[ \t]+(?:=[ \t]*)?)(?P<value>{_CREDENTIAL})",
        re.IGNORECASE,
    ),
    # a dump: Go `Password:"x"`, Rust `password: "x"`, Python `Config(password='x')`; and
    # any secret-named key given a value that looks like a credential (`Passwort=J0e8x`,
    # `bindPW: 8hw9i`, `AZURE_DEVOPS_EXT_PAT=...`)
    re.compile(
        rf"(?<![\w.-])(?P<key>{_KEY})(?P<sep>[ \t]*[:=][ \t]*)(?P<value>{_QUOTED})",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?<![\w.-])(?P<key>{_BARE_KEY})(?P<sep>[ \t]*[:=][ \t]*)(?P<value>{_CREDENTIAL})",
        re.IGNORECASE,
    ),
    # PHP print_r / var_export: `[password] => x`, `'password' => 'x'`
    re.compile(
        rf"[\['\"](?P<key>{_KEY})[\]'\"](?P<sep>[ \t]*=>[ \t]*)"
        rf"(?P<value>{_QUOTED}|[^\s,;)\]]{{1,256}})",
        re.IGNORECASE,
    ),
    # XML: <password>x</password>, <auth_pass>x</auth_pass>
    re.compile(rf"<(?P<key>{_KEY})>(?P<value>[^<\r\n]{{1,256}})</(?P=key)>", re.IGNORECASE),
    # JSON escaped at any depth: \"password\": \"x\", \\\"password\\\": \\\"x\\\", ...
    re.compile(
        rf"(?P<e>\\{{1,31}})\"(?P<key>{_KEY})(?P=e)\"(?P<sep>[ \t]*:[ \t]*)(?P=e)\""
        r"(?P<value>(?:(?!(?P=e)\")[^\r\n]){1,512})(?P=e)\"",
        re.IGNORECASE,
    ),
    # a JSON patch of a Secret's data or of a secret-named path
    re.compile(
        r"\"path\"[ \t]*:[ \t]*\"(?P<key>[^\"]{0,200}/(?:data|stringData)/[^\"]{1,200}"
        rf"|[^\"]{{0,200}}/(?:{_KEY}))\"[ \t]*,[ \t]*\"value\"[ \t]*:[ \t]*"
        r"(?P<value>\"(?:[^\"\\\r\n]|\\.){1,8192}\")",
        re.IGNORECASE,
    ),
    # a Secret's value decoded on the terminal: `... get secret x -o jsonpath=... | base64 -d`
    # and the next line
    re.compile(
        r"(?m)^[^\n]{0,300}\bsecrets?\b[^\n]{0,300}\|[ \t]*base64[ \t]+(?:-d|--decode|-D)\b"
        r"[ \t]*(?:\n|[ \t](?=\S))(?P<value>[^\s$#]{1,512})",
        re.IGNORECASE,
    ),
    # a secret-named key whose value is a list (Keycloak's "privateKey": ["MIIE..."])
    re.compile(
        rf"\"(?P<key>{_KEY})\"[ \t]*:[ \t]*\[[ \t]*(?P<value>\"(?:[^\"\\\r\n]|\\.){{1,65536}}\")",
        re.IGNORECASE,
    ),
    # a file that holds a secret printed on a terminal (`cat ~/.ansible/vault_pass.txt`,
    # `cat master.key`): the lines it printed, up to the next prompt
    re.compile(
        r"(?m)^[^\n]{0,200}?\b(?:cat|head|tail|more|less|type|Get-Content)[ \t]+[^\s|;&<>]{0,200}?"
        r"(?:pass|secret|token|cred|\.key\b|\.pem\b|\.p12\b|\.pfx\b|htpasswd|shadow)"
        r"[^\s|;&<>]{0,200}[ \t]*\r?\n"
        r"(?P<value>(?:(?![^\n]{0,80}(?:\$|#|>)[ \t])[^\n]{1,512}(?:\r?\n|$)){1,40})",
        re.IGNORECASE,
    ),
    # --user name:password (etcdctl, and any tool that takes the pair so)
    re.compile(r"(?<![\w-])--user(?:name)?(?:[ \t]+|=)[^\s:'\"]{1,64}:(?P<value>[^\s'\"]{1,256})"),
    # token-only userinfo: https://<token>@host
    re.compile(
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://"
        r"(?P<value>(?=[^\s/?#@:\"'<>]{0,256}\d)(?=[^\s/?#@:\"'<>]{0,256}[A-Za-z])"
        r"[^\s/?#@:\"'<>]{12,256})@"
    ),
    # command lines --------------------------------------------------------------------
    # single-dash password flags (keytool -storepass, -keypass, openssl's -pass)
    re.compile(
        r"(?<![\w-])-(?P<key>(?:store|key|src|dest|srcstore|deststore|new)?pass(?:word|phrase|wd)?)"
        r"(?P<sep>[ \t]+|=)(?P<value>(?!-)(?!pass:|env:|file:|fd:|stdin\b)[^\s'\"]{1,256}|"
        rf"{_QUOTED})",
        re.IGNORECASE,
    ),
    # `-P <password>` (sqlcmd, ipmitool, bcp): a value with letters and digits, never a
    # port number or a path
    re.compile(rf"(?<![\w-])-P[ \t]*(?P<value>{_QUOTED}|(?![/-]){_CREDENTIAL})"),
    # openssl enc -k <password>
    re.compile(
        r"\bopenssl[ \t]+(?:[^\s;&|<>]{1,256}[ \t]+){0,10}?-k[ \t]+(?P<value>[^\s|;&]{1,256})"
    ),
    # archivers glue the password to -p (7z a -pSECRET), zip takes -P
    re.compile(
        r"\b(?:7z|7za|7zr|rar|unrar)(?:[ \t]+[^\s;&|<>]{1,256}){0,6}?[ \t]+-p"
        r"(?P<value>[^\s'\"]{1,256})"
    ),
    # htpasswd -b [-c] file user password
    re.compile(
        r"\bhtpasswd(?=[^\n]{0,200}[ \t]-\w{0,4}b)(?:[ \t]+-\w{1,5}){1,4}[ \t]+[^\s-]\S{0,255}"
        r"[ \t]+[^\s-]\S{0,255}[ \t]+(?P<value>[^\s|;&]{1,256})"
    ),
    # vault login <token>
    re.compile(
        r"\bvault[ \t]+login(?:[ \t]+-\S{1,64})*[ \t]+(?P<value>(?![\w-]{1,64}=)[^\s-]\S{7,255})"
    ),
    # echo <password> | ... --password-stdin
    re.compile(
        # (a variable's name, "$CI_TOKEN", or a one-letter placeholder is no secret)
        rf"\b(?:echo|printf)(?:[ \t]+-\w{{1,3}})*[ \t]+(?![\"']?\$)"
        rf"(?P<value>{_QUOTED}|[^\s|'\"]{{4,256}})"
        r"[ \t]*\|(?=[^\n]{0,200}--password-stdin)"
    ),
    # Oracle tools: sqlplus user/password@service
    re.compile(
        r"\b(?:sqlplus|rman|expdp|impdp|exp|imp|dgmgrl)(?:[ \t]+-\w{1,10})*[ \t]+[\w$#.]{1,64}/"
        r"(?P<value>[^@\s/]{1,256})@"
    ),
    # MinIO client: mc alias set NAME URL ACCESS_KEY SECRET_KEY
    re.compile(
        rf"\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+{_ARG}[ \t]+{_ARG}"
        rf"[ \t]+{_ARG}[ \t]+(?P<value>{_ARG})"
    ),
    # RabbitMQ: rabbitmqctl add_user NAME PASSWORD
    re.compile(
        rf"\brabbitmqctl[ \t]+(?:add_user|change_password|authenticate_user)[ \t]+{_ARG}"
        rf"[ \t]+(?P<value>{_ARG})"
    ),
    # Windows: net use \\share /user:DOMAIN\name PASSWORD
    re.compile(r"\bnet[ \t]+use\b[^\n]{0,200}?/user:\S{1,128}[ \t]+(?P<value>(?!/)[^\s]{1,256})"),
    # Samba tools: -U user%password
    re.compile(r"(?<![\w-])-U[ \t]*[^\s%]{1,64}%(?P<value>[^\s'\"]{1,256})"),
    # credential flags taking user:password (skopeo --src-creds, podman --creds)
    re.compile(r"(?<![\w-])--[\w-]{0,20}creds?(?:[ \t]+|=)[^\s:]{1,64}:(?P<value>[^\s'\"]{1,256})"),
    # chpasswd fed user:password
    re.compile(
        r"\b(?:echo|printf)[ \t]+['\"]?[\w.-]{1,64}:(?P<value>[^\s'\":]{1,256})['\"]?[ \t]*\|"
        r"[ \t]*(?:sudo[ \t]+)?chpasswd"
    ),
    # Redis AUTH in MONITOR output or a command: "AUTH" ["user"] "password"
    re.compile(
        r"\"AUTH\"(?:[ \t]+\"[^\"\r\n]{0,64}\")?[ \t]+\"(?P<value>[^\"\r\n]{1,256})\"",
        re.IGNORECASE,
    ),
    # files ----------------------------------------------------------------------------
    # ~/.pgpass: host:port:database:user:password
    re.compile(
        r"(?<![\w.:-])[\w.-]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,64}:[^\s:]{1,64}:"
        r"(?P<value>[^\s:]{1,256})(?!\S)"
    ),
    # Postfix sasl_passwd: [relay]:port user:password
    re.compile(
        r"\[(?!REDACTED\])[\w.-]{1,253}\](?::[^\s:]{1,12})?[ \t]+[^\s:\[\]]{1,128}:"
        r"(?P<value>\S{1,256})"
    ),
    # PuTTY key files: the private lines and their MAC
    re.compile(r"Private-Lines:[ \t]*\d{1,3}\s+(?P<value>(?:[A-Za-z0-9+/=]{1,128}\s?){1,64})"),
    re.compile(r"Private-MAC:[ \t]*(?P<value>[0-9a-fA-F]{16,128})"),
)

# what every rule above needs somewhere in the text: most log lines hold none of it, and
# are not read by each rule in turn (substring tests, then one small pattern)
_TRIGGER_WORDS = (
    "pass", "secret", "token", "key", "pw", "pat", "auth", "cred", "private", "identified",
    "vault", "openssl", "sqlplus", "rman", "expdp", "impdp", "dgmgrl", "exp ", "imp ", "mc ",
    "rabbitmqctl", "net use", "--user", "7z", "rar", "/data/", "-p", "-u", "-k", "@", "]",
    *_PASSWORD_WORDS,
)  # fmt: skip
# .pgpass's host:port:database:user: (lines with no trigger word)
_PGPASS_HINT = re.compile(r"[\w.-]:(?:\d{1,5}|\*):[^\s:]{1,64}:[^\s:]{1,64}:")


def triggered(text: str) -> bool:
    """Whether any rule of VALUE_RES could match `text`."""
    low = text.lower()
    return any(word in low for word in _TRIGGER_WORDS) or bool(_PGPASS_HINT.search(text))
