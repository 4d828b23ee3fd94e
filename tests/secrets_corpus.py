"""Secret shapes as they turn up in real log lines, events, job logs, configs and pastes.

Each entry is (name, text, secret): `text` is a line a source could return, `secret` the
part that must never be shown (the password, not the user; the token, not the header
name). Every value is fake and distinct, long enough not to appear by accident. The shapes
follow the public rule sets of secret scanners (gitleaks, trufflehog, detect-secrets) and
the way the software in question prints them. Used by the redaction unit tests and by the
end-to-end test that plants them in every source (tests/e2e/test_secrets_everywhere.py).
"""

# ruff: noqa: E501  (the corpus lines are data, kept whole)

from __future__ import annotations

import base64
import json
from urllib.parse import quote

_JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5xVzdrIn0.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwi"
    "c3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OmRlZmF1bHQ6cnVubmVyIn0.Qm9ndXNTaWduYXR1cmVabVhx7Kp"
)
_PEM_BODY = "MIIEpQIBAAKCAQEAq7VfTr3m2Wn9XkzJv0QpLrT8sYhG4bNcD1aEu5wFiO6xKlMzPp"
_PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{_PEM_BODY}\n-----END RSA PRIVATE KEY-----"
_OPENSSH_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
_OPENSSH = (
    f"-----BEGIN OPENSSH PRIVATE KEY-----\n{_OPENSSH_BODY}\n-----END OPENSSH PRIVATE KEY-----"
)
_DOCKER_AUTH = base64.b64encode(b"ci-pusher:Dk7vQm2LxR9tWz4p").decode()
_DOCKER_CONFIG = base64.b64encode(
    json.dumps({"auths": {"registry.corp.example": {"auth": _DOCKER_AUTH}}}).encode()
).decode()
_KEY_DATA = base64.b64encode(_PEM.encode()).decode()
_SA_JSON_KEY = "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkQm7Tz\\n"

CORPUS: list[tuple[str, str, str]] = [
    # passwords in key=value, JSON, YAML, flags
    ("kv password", "db connect failed password=Vx8qLm2Tz9Rw host=db-1", "Vx8qLm2Tz9Rw"),
    ("kv passwd", "login user=ops passwd=Hq4&Zr8Lp0Wc ok", "Hq4&Zr8Lp0Wc"),
    ("kv pwd", "pwd=Lk3Zq8Wm1Tr7", "Lk3Zq8Wm1Tr7"),
    ("json password", '{"user":"svc","password":"Ow9 Rt2 Kp5 Zm"}', "Ow9 Rt2 Kp5 Zm"),
    ("json escaped", 'body={\\"client_secret\\": \\"Cs7yHk2LqP9w\\"}', "Cs7yHk2LqP9w"),
    ("python repr", "{'api_key': 'Ak4mNq7Rt2Zx9', 'retries': 3}", "Ak4mNq7Rt2Zx9"),
    ("yaml line", "  password: Yp6Tq1Lz8Wm3\n  user: svc\n", "Yp6Tq1Lz8Wm3"),
    ("yaml list item", "- token: Tk5Rq2Zm8Lp1", "Tk5Rq2Zm8Lp1"),
    ("env quoted", 'DB_PASSWORD="Ev4 Lq9 Zt2"', "Ev4 Lq9 Zt2"),
    ("env export", "export MYSQL_ROOT_PASSWORD=Mr7Kq2Lz9Tw4", "Mr7Kq2Lz9Tw4"),
    ("cli flag eq", "/app --db-password=Fl3Zq8Tm2Rw --verbose", "Fl3Zq8Tm2Rw"),
    ("cli flag space", "migrate --api-token Fs9Lq2Zm7Tk4 up", "Fs9Lq2Zm7Tk4"),
    ("helm set", "helm upgrade x --set db.password=Hs2Kq9Lm4Zt7", "Hs2Kq9Lm4Zt7"),
    (
        "kubectl literal",
        "kubectl create secret generic a --from-literal=password=Kl8Zq3Tm",
        "Kl8Zq3Tm",
    ),
    ("inline password colon", "auth failed, password: Ip5Zq8Lm2Tw for user", "Ip5Zq8Lm2Tw"),
    ("ini spaced", "aws_secret_access_key = wJ4lrXUtnFEMIK7MDENGbPxRfiCYZQ9kLm", "wJ4lrXUtnFEMI"),
    ("mysql -p", "sh -c 'mysql -uroot -pMq7Zt2Lk9Rw -h db-2 shop'", "Mq7Zt2Lk9Rw"),
    ("mysqldump -p", "mysqldump --user=bk -pMd4Lq8Zt1 shop > /b/shop.sql", "Md4Lq8Zt1"),
    ("sshpass", "sshpass -p 'Sp3Zq7Lm1Tk' ssh deploy@10.2.0.7", "Sp3Zq7Lm1Tk"),
    ("sshpass glued", "sshpass -pSg8Lq2Zm6 scp a b", "Sg8Lq2Zm6"),
    ("sqlserver conn", "Server=sql-1;User Id=sa;Password=Sq9Lz3Km7Tw;Encrypt=true", "Sq9Lz3Km7Tw"),
    ("pgpassword env", "PGPASSWORD=Pg5Tq8Lz2Wm psql -h pg-1 -U app", "Pg5Tq8Lz2Wm"),
    # credentials in URLs and DSNs
    ("postgres url", "dsn postgres://app:Pu7Zq2Lm9Tk@pg.internal:5432/app", "Pu7Zq2Lm9Tk"),
    ("redis url", "redis://:Rd4Lq8Zt1Wm@cache:6379/0", "Rd4Lq8Zt1Wm"),
    ("amqp url", "amqp://orders:Aq3Zm9Lt6Rw@rabbit-0:5672/%2f", "Aq3Zm9Lt6Rw"),
    ("mongodb srv", "mongodb+srv://ro:Mg2Tq7Lz4Kp@c0.mongo.example/db", "Mg2Tq7Lz4Kp"),
    (
        "git clone token",
        "clone https://oauth2:Gt6Zq1Lm8Rw@gitlab.example.com/g/p.git",
        "Gt6Zq1Lm8Rw",
    ),
    ("go mysql dsn", "Error 1045: dial shop:My8Kq3Zt5Lw@tcp(mysql-0:3306)/shop", "My8Kq3Zt5Lw"),
    ("go mysql unix", "open billing:Mu2Lq9Zt4Kw@unix(/run/mysqld.sock)/billing", "Mu2Lq9Zt4Kw"),
    ("jdbc password", "jdbc:postgresql://pg-1/app?user=app&password=Jd7Zq3Lm1Tk", "Jd7Zq3Lm1Tk"),
    ("url query token", "GET /export?access_token=Qa9Zt2Lm6Rk&page=2 401", "Qa9Zt2Lm6Rk"),
    (
        "url signed",
        "GET https://s3.example.com/b/o?X-Amz-Signature=5e1f9a7c3b2d&x=1",
        "5e1f9a7c3b2d",
    ),
    ("azure sas", "https://acct.blob.core.windows.net/c?sv=2022&sig=Az5Lq8Zt2Wm%3D", "Az5Lq8Zt2Wm"),
    (
        "azure account key",
        "DefaultEndpointsProtocol=https;AccountName=logs;AccountKey=Ak7Zq2Lm9TwRx4Vb==;",
        "Ak7Zq2Lm9TwRx4Vb",
    ),
    (
        "azure shared access",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=r;SharedAccessKey=Sb3Lq9Zt7",
        "Sb3Lq9Zt7",
    ),
    (
        "telegram bot path",
        "POST https://api.telegram.org/bot7312845590:AAHq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6Ys0Df5Gh/sendMessage",
        "AAHq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6Ys0Df5Gh",
    ),
    (
        "sentry dsn",
        "sentry dsn https://4f8a2c9e7b1d4e6fa3c5b8d0e2f7a9c1@o41.ingest.sentry.io/55",
        "4f8a2c9e7b1d4e6fa3c5b8d0e2f7a9c1",
    ),
    # headers and cookies
    ("authorization bearer", "Authorization: Bearer Hb4Zq8Lm2Tk7.x", "Hb4Zq8Lm2Tk7"),
    (
        "basic header",
        'curl -H "Authorization: Basic Y2k6Qm4xWnE3THQ=" https://x',
        "Y2k6Qm4xWnE3THQ=",
    ),
    ("bearer inline", "forwarded Bearer Bi7Zq2.Lm9-Tk4 upstream", "Bi7Zq2.Lm9-Tk4"),
    (
        "proxy authorization",
        "proxy-authorization: Digest response=6c29fae4939a05397",
        "6c29fae4939a05397",
    ),
    ("x-api-key", "X-Api-Key: 9f2d4c6b8a0e1f3d5c7b9a1e", "9f2d4c6b8a0e1f3d5c7b9a1e"),
    (
        "x-vault-token",
        "X-Vault-Token: hvs.CAESIJq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6",
        "CAESIJq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6",
    ),
    ("private-token", "PRIVATE-TOKEN: Pt8Zq3Lm6Tk1Rw", "Pt8Zq3Lm6Tk1Rw"),
    ("set-cookie", "Set-Cookie: session=Sc4Lq9Zt2Wm; Path=/; HttpOnly", "Sc4Lq9Zt2Wm"),
    ("cookie header", "Cookie: MMAUTHTOKEN=Ck7Zq2Lm8Tk; MMUSERID=u1", "Ck7Zq2Lm8Tk"),
    ("json cookie", '{"Cookie": "sid=Jc3Lq8Zt5Wm"}', "Jc3Lq8Zt5Wm"),
    ("sessionid", "GET /cart sessionid=Si9Zq4Lm2Tk7Rw ua=curl", "Si9Zq4Lm2Tk7Rw"),
    (
        "phpsessid",
        "upstream cookie PHPSESSID=ph5lq8zt2wm7rk4vb1xc8 expired",
        "ph5lq8zt2wm7rk4vb1xc8",
    ),
    ("jsessionid", "redirect /app;jsessionid=Js6Zq1Lm9Tk3Rw", "Js6Zq1Lm9Tk3Rw"),
    ("json authorization", '{"authorization":"Bearer Ja2Zq7Lm4Tk9"}', "Ja2Zq7Lm4Tk9"),
    ("nginx escaped header", 'hdr="authorization: Bearer Ne8Lq3Zt6Wm1"', "Ne8Lq3Zt6Wm1"),
    # provider token shapes (no key needed)
    ("jwt", f"token {_JWT} rejected: expired", _JWT),
    ("aws access key id", "using AKIAQ7ZT2LM9RK4VB1XC for s3", "AKIAQ7ZT2LM9RK4VB1XC"),
    ("aws temp key id", "assumed ASIAZ2LM8TK4RW6QP1XN", "ASIAZ2LM8TK4RW6QP1XN"),
    ("gitlab pat", "git push with glpat-Gp7Zq2Lm9Tk4Rw1Xc8Wn", "Gp7Zq2Lm9Tk4Rw1Xc8Wn"),
    ("gitlab deploy", "deploy token gldt-Gd3Lq8Zt1Wm6Rk4Vb9Xc", "Gd3Lq8Zt1Wm6Rk4Vb9Xc"),
    ("gitlab runner", "runner glrt-Gr5Zq2Lm7Tk1Rw9Xc4Vb", "Gr5Zq2Lm7Tk1Rw9Xc4Vb"),
    ("gitlab ci job", "CI_JOB_TOKEN glcbt-64_Gc2Lq9Zt4Wm7Rk1Vb", "Gc2Lq9Zt4Wm7Rk1Vb"),
    ("gitlab registration", "register GR1348941Gx8Zq3Lm6Tk1Rw4Vb", "GR1348941Gx8Zq3Lm6Tk1Rw4Vb"),
    (
        "github pat",
        "gh ghp_Hp7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
        "ghp_Hp7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
    ),
    (
        "github fine",
        "push with github_pat_11AB7ZQ2LM0Hq7Zt2Lm9Rk4Vb1Xc8Wn",
        "github_pat_11AB7ZQ2LM0Hq7Zt2Lm9Rk4Vb1Xc8Wn",
    ),
    (
        "github app",
        "installation token ghs_Hs3Lq8Zt1Wm6Rk4Vb9Xc2Pj7Ys0Df5Gh",
        "ghs_Hs3Lq8Zt1Wm6Rk4Vb9Xc2Pj7Ys0Df5Gh",
    ),
    ("slack bot", "slack xoxb-412345678901-512345678901-Sb7Zq2Lm9Tk4Rw1X", "Sb7Zq2Lm9Tk4Rw1X"),
    ("slack app", "socket mode xapp-1-A05Q7ZT2LM9-6123456789012-9f2d4c6b8a0e", "9f2d4c6b8a0e"),
    (
        "slack webhook",
        "POST https://hooks.slack.com/services/T05Q7ZT2L/B05M9RK4V/Wh7Zq2Lm9Tk4Rw1X",
        "Wh7Zq2Lm9Tk4Rw1X",
    ),
    (
        "discord webhook",
        "https://discord.com/api/webhooks/1185012345678901234/Dw7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
        "Dw7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
    ),
    (
        "teams webhook",
        "https://corp.webhook.office.com/webhookb2/7a1c2e3f-1111-4c2d-9e8f-0a1b2c3d4e5f@1b2c/"
        "IncomingWebhook/Tw3Lq8Zt1Wm6Rk4Vb9Xc/9d8e",
        "Tw3Lq8Zt1Wm6Rk4Vb9Xc",
    ),
    (
        "mattermost webhook",
        "hook https://chat.corp.example/hooks/m7zq2lm9tk4rw1xc8wn3pj6ys0",
        "m7zq2lm9tk4rw1xc8wn3pj6ys0",
    ),
    ("openai project", "llm key sk-proj-Op7Zq2Lm9Tk4Rw1Xc8Wn3Pj6", "Op7Zq2Lm9Tk4Rw1Xc8Wn3Pj6"),
    (
        "anthropic",
        "x-api-key sk-ant-api03-An7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
        "An7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
    ),
    (
        "stripe secret",
        "charge failed key=sk_live_51Hq7Zt2Lm9Rk4Vb1Xc8Wn3Pj",
        "51Hq7Zt2Lm9Rk4Vb1Xc8Wn3Pj",
    ),
    ("stripe restricted", "stripe rk_live_51Rq2Lm8Tk4Zw6Vb1Xc9Wn", "51Rq2Lm8Tk4Zw6Vb1Xc9Wn"),
    (
        "google api key",
        "maps AIzaSyB7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2K quota",
        "AIzaSyB7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2K",
    ),
    (
        "vault service",
        "vault login hvs.CAESIHq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6Ys0",
        "CAESIHq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6Ys0",
    ),
    ("vault batch", "using hvb.AAAAAQKq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6", "AAAAAQKq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6"),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=npm_Np7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
        "Np7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl",
    ),
    (
        "npm bare",
        "publish with npm_Nb3Lq8Zt1Wm6Rk4Vb9Xc2Pj7Ys0Df5Gh3Klx",
        "Nb3Lq8Zt1Wm6Rk4Vb9Xc2Pj7Ys0Df5Gh3Kl",
    ),
    (
        "sendgrid",
        "mail SG.Sg7Zq2Lm9Tk4Rw1Xc8Wn3P.Pj6Ys0Df5Gh2Kl9Zq3Lm6Tk1Rw4Vb8Xc2Wn7",
        "Pj6Ys0Df5Gh2Kl9Zq3Lm6Tk1Rw4Vb8Xc2Wn7",
    ),
    (
        "digitalocean",
        "doctl auth init -t dop_v1_7a1c2e3f4b5d6a7c8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e",
        "7a1c2e3f4b5d6a7c8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e",
    ),
    (
        "pypi",
        "twine upload -p pypi-AgEIcHlwaS5vcmcCJDd7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl9Zq",
        "AgEIcHlwaS5vcmcCJDd7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh2Kl9Zq",
    ),
    (
        "hugging face",
        "HF 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",
        "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",
    ),
    (
        "shopify",
        "shop token 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",
        "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",
    ),
    (
        "grafana sa",
        "grafana glsa_Gs7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh_7a1c2e3f",
        "Gs7Zq2Lm9Tk4Rw1Xc8Wn3Pj6Ys0Df5Gh",
    ),
    ("new relic", "NR key NRAK-7ZQ2LM9TK4RW1XC8WN3PJ6YS0DF", "NRAK-7ZQ2LM9TK4RW1XC8WN3PJ6YS0DF"),
    (
        "atlassian",
        "jira ATATT3xFfGF0Hq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6Ys0Df5Gh2Kl9Zq3Lm6Tk1Rw4V",
        "ATATT3xFfGF0Hq7Zt2Lm9Rk4Vb1Xc8Wn3Pj6Ys0Df5Gh2Kl9Zq3Lm6Tk1Rw4V",
    ),
    (
        "databricks",
        "dbx dapi7a1c2e3f4b5d6a7c8e9f0a1b2c3d4e5f",
        "dapi7a1c2e3f4b5d6a7c8e9f0a1b2c3d4e5f",
    ),
    (
        "twilio api key",
        "twilio SK7a1c2e3f4b5d6a7c8e9f0a1b2c3d4e5f",
        "SK7a1c2e3f4b5d6a7c8e9f0a1b2c3d4e5f",
    ),
    (
        "age key",
        "identity file holds AGE-SECRET-KEY-1QZ7ZQ2LM9TK4RW1XC8WN3PJ6YS0DF5GH2KL9ZQ3LM6TK1RW4VB8XC2WN7Q",
        "QZ7ZQ2LM9TK4RW1XC8WN3PJ6YS0DF5GH2KL9ZQ3LM6TK1RW4VB8XC2WN7Q",
    ),
    (
        "bcrypt hash",
        "htpasswd admin:$2y$10$Bc7Zq2Lm9Tk4Rw1Xc8Wn3uPj6Ys0Df5Gh2Kl9Zq3Lm6Tk1Rw4Vb8x",
        "Bc7Zq2Lm9Tk4Rw1Xc8Wn3uPj6Ys0Df5Gh2Kl9Zq3Lm6Tk1Rw4Vb8x",
    ),
    ("apr1 hash", "ops:$apr1$Ap7Zq2Lm$9Tk4Rw1Xc8Wn3Pj6Ys0Df5", "9Tk4Rw1Xc8Wn3Pj6Ys0Df5"),
    # private keys
    ("pem block", f"key dump:\n{_PEM}\nend", _PEM_BODY),
    ("openssh key", f"id_ed25519:\n{_OPENSSH}", _OPENSSH_BODY),
    (
        "truncated pem",
        "dump: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0Tq7Zm2L",
        "MIIEvQIBADANBgkqhkiG9w0Tq7Zm2L",
    ),
    (
        "gcp sa json",
        f'{{"type":"service_account","private_key":"{_SA_JSON_KEY}"}}',
        "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkQm7Tz",
    ),
    # Kubernetes Secret data, kubeconfig, docker config
    (
        "secret as go map",
        "Error: container env from secret: map[DB_PASSWORD:Gm7Zq2Lm9Tk API_KEY:Gk3Lq8Zt1Wm]",
        "Gm7Zq2Lm9Tk",
    ),
    (
        "secret go map second key",
        "invalid value map[API_KEY:Gk3Lq8Zt1Wm5 DB_PASSWORD:Gm7Zq2Lm9Tk0]",
        "Gk3Lq8Zt1Wm5",
    ),
    (
        "secret data yaml",
        "data:\n  db-password: UGc1VHE4THoyV20=\n  username: YXBw\n",
        "UGc1VHE4THoyV20=",
    ),
    ("secret data json", '{"data":{"api-token":"QXQ3WnEyTG05VGs0"}}', "QXQ3WnEyTG05VGs0"),
    ("kubeconfig key data", f"    client-key-data: {_KEY_DATA}", _KEY_DATA[:40]),
    (
        "kubeconfig token",
        "users:\n- name: ci\n  user:\n    token: Kt7Zq2Lm9Tk4Rw1Xc8",
        "Kt7Zq2Lm9Tk4Rw1Xc8",
    ),
    (
        "docker config auth",
        f'{{"auths":{{"registry.corp.example":{{"auth":"{_DOCKER_AUTH}"}}}}}}',
        _DOCKER_AUTH,
    ),
    ("dockerconfigjson b64", f".dockerconfigjson: {_DOCKER_CONFIG}", _DOCKER_CONFIG[:40]),
    (
        "docker login",
        "docker login -u ci -p Dl8Zq3Lm6Tk1Rw registry.corp.example",
        "Dl8Zq3Lm6Tk1Rw",
    ),
    # encoded forms
    (
        "url-encoded kv",
        "GET /search?q=password%3DUe7Zq2Lm9Tk4%20user%3Dbob",
        "Ue7Zq2Lm9Tk4",
    ),
    (
        "url-encoded json",
        "body=%7B%22password%22%3A%22Uj3Lq8Zt1Wm6%22%7D",
        "Uj3Lq8Zt1Wm6",
    ),
    (
        "base64 credentials",
        f"upstream auth header value {base64.b64encode(b'svc-sync:Bs4Lq8Zt2Wm7Rk').decode()}",
        base64.b64encode(b"svc-sync:Bs4Lq8Zt2Wm7Rk").decode(),
    ),
    (
        "base64 kv",
        "payload " + base64.b64encode(b"user=ops&password=Bk9Zq3Lm6Tk1").decode() + " rejected",
        base64.b64encode(b"user=ops&password=Bk9Zq3Lm6Tk1").decode(),
    ),
    # where tools put them beyond the common shapes (issue "Hardening II")
    ("env word part", "startup: DB_PASS=Qv4Rt8Lm2Zx7Wk config loaded", "Qv4Rt8Lm2Zx7Wk"),
    ("smtp auth", "mailer settings smtp_auth=Rz6Tk1Lq9Wm3Vb", "Rz6Tk1Lq9Wm3Vb"),
    ("russian password", "доступ к базе: пароль: Tk7Wq2Lz5Rm8Xc", "Tk7Wq2Lz5Rm8Xc"),
    ("k8s env json", '{"name":"DB_PASSWORD","value":"Wm3Zq8Lk1Tv6Rb"}', "Wm3Zq8Lk1Tv6Rb"),
    ("k8s env yaml", "env:\n- name: API_TOKEN\n  value: Lq5Tz9Wk2Rm7Xv\n", "Lq5Tz9Wk2Rm7Xv"),
    (
        "audit patch path",
        "set env[DB_PASSWORD].value=Zt4Lm8Wq1Rk6Vc on deployment",
        "Zt4Lm8Wq1Rk6Vc",
    ),
    ("curl user", "+ curl -sS -u deploy:Rk2Wz7Lq4Tm9Xb https://reg.example/v2/", "Rk2Wz7Lq4Tm9Xb"),
    (
        "ldap bind",
        "ldapsearch -x -D cn=admin,dc=corp -w Tq8Lm3Wz6Rk1Vd -b dc=corp",
        "Tq8Lm3Wz6Rk1Vd",
    ),
    ("redis-cli auth", "redis-cli -h cache -a Wz5Rk9Lq2Tm6Xe ping", "Wz5Rk9Lq2Tm6Xe"),
    ("here-string", "docker login --password-stdin -u ci <<< 'Lm7Tz1Wq4Rk8Vf'", "Lm7Tz1Wq4Rk8Vf"),
    ("redis requirepass", "requirepass Zq3Wm6Lt9Rk2Xg", "Zq3Wm6Lt9Rk2Xg"),
    (
        "aws secret beside its id",
        "aws creds AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in env",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
]

# the URL-encoded form of each secret (a link, a query in a dashboard URL)
ENCODED: list[tuple[str, str, str]] = [
    (f"{name} (url-encoded)", quote(text, safe=""), quote(secret, safe=""))
    for name, text, secret in CORPUS
    if quote(secret, safe="") != secret or quote(text, safe="") != text
][:40]


def secret_values() -> list[str]:
    """Every secret of the corpus, with its URL-encoded form where it differs."""
    out: list[str] = []
    for _, _, secret in CORPUS:
        out.append(secret)
        if (encoded := quote(secret, safe="")) != secret:
            out.append(encoded)
    return out
