"""Secret shapes written blind: from the real output formats of the software named in each
group, without reading how the bot redacts.

Each entry is (name, text, secret). `text` is a line or record as that software prints it
(a log line, a config file, a command echoed by a CI shell, an object printed by kubectl, an
audit event, a language's dump of a struct, a stack trace); `secret` is the exact substring
that must never be shown: the password, token or key itself, never the key name or the
user. Every value is fake, random-looking and distinct; no secret is a substring of another
one, nor of one in tests/secrets_corpus.py. Where a record holds a secret only in an encoded
form (base64 in a Kubernetes Secret, a URL-encoded signature), `secret` is what is literally
in the text: for base64 of a JSON document it is the stretch of base64 that encodes the
password alone.

The shapes deliberately avoid the ones already in tests/secrets_corpus.py (plain key=value,
single escaped JSON, the common URL DSNs, the common provider prefixes), and aim at the
places those rules are weakest: key material spread over several log lines, values
escaped two or three times, values whose key name says nothing, positional arguments,
foreign-language keys, and secrets inside whole objects.
"""

# ruff: noqa: E501  (the corpus lines are data, kept whole)

from __future__ import annotations

import base64
import json


def _b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode()


def _b64_inner(document: str, password: str) -> tuple[str, str]:
    """base64 of `document`, and the stretch of it that encodes only bytes of `password`
    (whole 3-byte groups inside the password), which is what must not be shown."""
    raw = document.encode()
    start = raw.index(password.encode())
    end = start + len(password.encode())
    first = -(-start // 3) * 3
    last = (end // 3) * 3
    encoded = base64.b64encode(raw).decode()
    return encoded, encoded[first // 3 * 4 : last // 3 * 4]


# --- private key material ---------------------------------------------------------------

_RSA_L1 = "MIIEowIBAAKCAQEAl2lM7eokxA0FYmY1u3pbpvNJQgsc0EdWITCmmWIAALy8i/yw"
_RSA_L2 = "q5WIbpcSW9Q4Knyg2GohqVZQ0x+E2QkxWfOOvwmZKo0sTVNPzXOh+WG+67K1cUQV"
_RSA_L3 = "ZJWx4CR4zbnVscHs9pnrn2eNEBQpAFUf7ju1gbksTYzApYXpNUImJ+iJFA8SJTj6"
# containerd/CRI-O log file lines: "<RFC3339Nano> <stream> <F|P> <message>"
_CRI = "2026-07-20T11:31:02.118342911Z stderr F "
_PEM_CRI = "\n".join(
    _CRI + line
    for line in (
        "-----BEGIN RSA PRIVATE KEY-----",
        _RSA_L1,
        _RSA_L2,
        _RSA_L3,
        "-----END RSA PRIVATE KEY-----",
    )
)

_P8_L1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCxRHm4zwst5vo8"
_P8_L2 = "uzRwAehfk4IDd3uJRZ0vkt+p+X9cb9aYzun1w7m5525SE+ODlGi9fbgEDekxPw32"
_P8_L3 = "IbhD2uRpNXHZoJ73pcWBB7fD7/XL7GpyDuPzXymvvJR+cWzmd1AdZhFcsGlRUiP9"
# `kubectl logs --timestamps`: "<RFC3339Nano> <message>"
_PEM_KUBECTL_TS = "\n".join(
    f"2026-07-20T11:31:04.5021{i:02d}Z {line}"
    for i, line in enumerate(
        (
            "loading TLS key from env TLS_KEY:",
            "-----BEGIN PRIVATE KEY-----",
            _P8_L1,
            _P8_L2,
            _P8_L3,
            "-----END PRIVATE KEY-----",
        )
    )
)

_EC_L1 = "MHcCAQEEIK6sV1Du0KzPn6xyN7eR5uOwBCeqG+bTmxvAyQT5anIumW4z/DOzOPQg"
_EC = (
    "-----BEGIN EC PRIVATE KEY-----\n"
    f"{_EC_L1}\n"
    "oAoGCCqGSM49AwEHoUQDQgAEfwy+bD7ApmQhhCDT/p8h66/JTlQ2xR64mcRW3Cvx\n"
    "AZ9dJPfPDCGC/zIKb16j+w5W==\n"
    "-----END EC PRIVATE KEY-----"
)

_ENC_P8_L2 = "Pk9e91iFjFh+9xHD/Df9wd0rX3bCBQkDwyrR+ZP8U4nLXvX9A4e7POORE1oLzX6K"
_ENC_P8 = (
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQIiP4aAeFWsAtaRcYW\n"
    f"{_ENC_P8_L2}\n"
    "-----END ENCRYPTED PRIVATE KEY-----"
)

_LEGACY_ENC_BODY = "VIapDU5LEt/NktEJsi7kOZQyYHKSSikAraMQPAzbmGpBDPin2gfY5SqVk5xYuf1h"
_LEGACY_ENC = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "Proc-Type: 4,ENCRYPTED\n"
    "DEK-Info: AES-256-CBC,8A49CD7211C7C844DB15FA49E841FD3F\n"
    "\n"
    f"{_LEGACY_ENC_BODY}\n"
    "BVRag1WjWxcMPOIE17r/qWy0kfHAYldr/qY72Dq+dqR20zRlEwu1fZKI5ZnIRlkQ\n"
    "-----END RSA PRIVATE KEY-----"
)

_PGP_BODY = "Ocz23YNcgmLeJvvpcx8YjYJ6FNv4euXUOzXFcL1VXfY1ytGzkzgXgXJj8X0h/0Sg"
_PGP = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n"
    "\n"
    "lQVYBGaZJikfPLggBx4aDZ1Ze121uU7f0+NmvuInBVx6mTPEaqh77oD8tBdYX/WM\n"
    f"{_PGP_BODY}\n"
    "=q8Rm\n"
    "-----END PGP PRIVATE KEY BLOCK-----"
)

_PPK_PRIVATE = "zLL/YTcfRHTHHGGIs24sYq0dyJPo95WnMRXv45mWNxji"

# --- values escaped several times, formats nested in formats ------------------------------

# an app logs JSON whose "request" field is a JSON string; Docker's json-file driver wraps
# the line into {"log": ...}: the password is escaped twice
_DOUBLE = json.dumps(
    {
        "log": json.dumps(
            {
                "level": "error",
                "msg": "upstream login failed",
                "request": json.dumps({"username": "svc-billing", "password": "jevsaxQJqir1yw"}),
            }
        )
        + "\n",
        "stream": "stderr",
        "time": "2026-07-20T11:31:07.114220593Z",
    },
    separators=(",", ":"),
)
# the same kind of line pushed to Loki's push API: escaped three times
_TRIPLE = json.dumps(
    {
        "streams": [
            {
                "stream": {"namespace": "orders", "app": "billing"},
                "values": [
                    [
                        "1784547067114220593",
                        json.dumps(
                            {
                                "log": json.dumps(
                                    {
                                        "msg": "retrying login",
                                        "body": json.dumps(
                                            {"user": "svc-billing", "password": "dPHhB97WUFMoO"}
                                        ),
                                    }
                                ),
                                "stream": "stderr",
                            }
                        ),
                    ]
                ],
            }
        ]
    },
    separators=(",", ":"),
)

# kubectl get configmap -o json: a YAML file held in a JSON string
_YAML_IN_JSON = json.dumps(
    {
        "apiVersion": "v1",
        "data": {
            "application.yaml": "spring:\n  datasource:\n    url: jdbc:postgresql://pg-1:5432/orders\n    username: orders\n    password: xpHmtwRLdMo3v6ZkVi3N\n"
        },
        "kind": "ConfigMap",
        "metadata": {"name": "orders-app", "namespace": "orders"},
    }
)

_B64_DOC = json.dumps({"user": "svc-sync", "password": "weShA2bKZERAu2yrZly", "scope": "read"})
_B64_JSON, _B64_JSON_SECRET = _b64_inner(_B64_DOC, "weShA2bKZERAu2yrZly")

# --- Kubernetes objects ------------------------------------------------------------------

_LAST_APPLIED_DATA = _b64("VDUPYRnoL5WeTtmF96i")
_LAST_APPLIED_JSON = json.dumps(
    {
        "apiVersion": "v1",
        "data": {"api-key": _LAST_APPLIED_DATA},
        "kind": "Secret",
        "metadata": {
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": json.dumps(
                    {
                        "apiVersion": "v1",
                        "data": {"api-key": _LAST_APPLIED_DATA},
                        "kind": "Secret",
                        "metadata": {
                            "annotations": {},
                            "name": "orders-api",
                            "namespace": "orders",
                        },
                        "type": "Opaque",
                    },
                    separators=(",", ":"),
                )
                + "\n"
            },
            "name": "orders-api",
            "namespace": "orders",
        },
        "type": "Opaque",
    }
)

_AUDIT_B64 = _b64("osxUixt3rkgw4pvF")


def _audit(uri: str, resource: str, name: str, request_object: object) -> str:
    """An audit.k8s.io/v1 event at level Request, as the API server writes it (one line)."""
    return json.dumps(
        {
            "kind": "Event",
            "apiVersion": "audit.k8s.io/v1",
            "level": "Request",
            "auditID": "5c1e9a0b-2f4d-4d8e-9b7a-3e6f1c2d4a58",
            "stage": "ResponseComplete",
            "requestURI": uri,
            "verb": "patch",
            "user": {"username": "alice@corp.example", "groups": ["sre", "system:authenticated"]},
            "sourceIPs": ["10.0.4.12"],
            "userAgent": "kubectl/v1.30.2 (linux/amd64) kubernetes/3968350",
            "objectRef": {
                "resource": resource,
                "namespace": "orders",
                "name": name,
                "apiVersion": "v1",
            },
            "responseStatus": {"metadata": {}, "code": 200},
            "requestObject": request_object,
            "requestReceivedTimestamp": "2026-07-20T11:29:58.120411Z",
            "stageTimestamp": "2026-07-20T11:29:58.131006Z",
        },
        separators=(",", ":"),
    )


# --- cloud credential records ------------------------------------------------------------

_SESSION_TOKEN = (
    "IQoJb3JpZ2luX2VjEBQaDGV1LWNlbnRyYWwtMSJHMEUCIQ"
    "Chq1JXQ8ukSWsvvhxPDZh8hqde4SjWIqadp6fy1h///2cqSNavtifT5CoUv5e27zJJFBy9kiW0PYx3pIScwxibOKiSud5BeP/rfz/4otlCTK0nC9d85XZTpA"
)
# aws sts assume-role --output json
_STS = (
    "{\n"
    '    "Credentials": {\n'
    '        "AccessKeyId": "ASIAW2XQ7PLM4RTZ8KVB",\n'
    '        "SecretAccessKey": "kEcXYcdbmLVASTe7m9vJEEWC8ULbboxwxClv6b7k",\n'
    f'        "SessionToken": "{_SESSION_TOKEN}",\n'
    '        "Expiration": "2026-07-20T12:31:04+00:00"\n'
    "    },\n"
    '    "AssumedRoleUser": {\n'
    '        "AssumedRoleId": "AROAW2XQ7PLMZ3K8VBT4N:ci",\n'
    '        "Arn": "arn:aws:sts::123456789012:assumed-role/deployer/ci"\n'
    "    }\n"
    "}"
)

# GitLab's OAuth token endpoint (Doorkeeper): 64-hex access and refresh tokens
_GITLAB_OAUTH = json.dumps(
    {
        "access_token": "06e287917b29c9cbccc27b40a9d8448a56b0ab93e41fe6abb1b5b9118b2f6f48",
        "token_type": "Bearer",
        "expires_in": 7200,
        "refresh_token": "79d6ac8005c9454f0d0392a18f8087b2dc75fc4c3ebd069a90e2eef7e6775a79",
        "scope": "api read_repository",
        "created_at": 1784547064,
    }
)


def _b64url(data: dict[str, object]) -> str:
    return (
        base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


_ID_TOKEN = ".".join(
    (
        _b64url({"alg": "RS256", "kid": "4f7c2a91d0"}),
        _b64url(
            {
                "iss": "https://dex.corp.example",
                "sub": "CgNib2ISBGxkYXA",
                "aud": "infra-portal",
                "exp": 1784550664,
                "email": "bob@corp.example",
                "nonce": "r8Kq2vXm",
            }
        ),
        "LOGvz1O2oJnG1U11ofKwgIwJXXoGfO7zKlyMlvU2PHEl-lzUe1XPSu1Rq-h_UFk5SfybmSmpGUOf_ALg5UvM9m",
    )
)
# Dex /token response (OpenID Connect)
_DEX_TOKEN = json.dumps(
    {
        "access_token": "PPV-kSzU9R16Al2RuFRI5bnSEAeffn1WSdIbWFdK6Fx",
        "token_type": "bearer",
        "expires_in": 86399,
        "id_token": _ID_TOKEN,
    }
)

_ES_API_KEY = _b64("xQMY3VC2aI1n2pPqY25VX:dxAEYYoUa5L2VcsYtdZ")
_NGINX_BASIC = _b64("grafana:7sfBSL8IoFNh9GZCqjt")
_NPM_PASSWORD = _b64("md5YbBuI4fCExliW18kI")


CORPUS_BLIND: list[tuple[str, str, str]] = [
    # PEM / PKCS#8 / SEC1 / PGP / PuTTY / WireGuard key material (RFC 7468 armour; the log
    # prefixes are containerd's CRI log format and `kubectl logs --timestamps`)
    ("pem over cri lines", _PEM_CRI, _RSA_L2),
    ("pkcs8 over kubectl ts lines", _PEM_KUBECTL_TS, _P8_L2),
    ("ec private key", f"2026-07-20 11:31:05,118 DEBUG tls: loaded key material\n{_EC}", _EC_L1),
    ("encrypted pkcs8", f"--- key.pem\n{_ENC_P8}", _ENC_P8_L2),
    ("legacy encrypted pem", f"cat /etc/ssl/private/orders.key\n{_LEGACY_ENC}", _LEGACY_ENC_BODY),
    ("pgp private block", f"$ gpg --armor --export-secret-keys ci@corp.example\n{_PGP}", _PGP_BODY),
    (
        "putty ppk",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@bastion\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOq2xN8cVb0Tz4mH7sKpR1wFjY5uLdA9eGiQ3nWt\nZ6hC\nPrivate-Lines: 1\n"
        f"{_PPK_PRIVATE}\nPrivate-MAC: 5d2c9f0e8b1a7c4d3e6f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
        _PPK_PRIVATE,
    ),
    (
        "wireguard private key",
        "[Interface]\nPrivateKey = DZ40lgGZ+0X/ChFfEQERKYJutq1cGDd4N3ansnXO6ws=\nAddress = 10.8.0.2/24\nListenPort = 51820",
        "DZ40lgGZ+0X/ChFfEQERKYJutq1cGDd4N3ansnXO6ws=",
    ),
    # values escaped two and three times (Docker json-file log driver, Loki push API)
    ("json escaped twice", _DOUBLE, "jevsaxQJqir1yw"),
    ("json escaped thrice", _TRIPLE, "dPHhB97WUFMoO"),
    # JSON in a YAML string and YAML in a JSON string (kubectl get configmap -o yaml / -o json)
    (
        "json inside yaml string",
        'apiVersion: v1\ndata:\n  config.json: \'{"db":{"host":"pg-1.orders.svc","user":"orders","password":"65bxr6XQHxfjkjgxNMWb"},"pool":10}\'\nkind: ConfigMap\nmetadata:\n  name: orders-config\n',
        "65bxr6XQHxfjkjgxNMWb",
    ),
    ("yaml inside json string", _YAML_IN_JSON, "xpHmtwRLdMo3v6ZkVi3N"),
    (
        "base64 of json",
        f"POST /hooks/sync payload={_B64_JSON} rejected: 401 Unauthorized",
        _B64_JSON_SECRET,
    ),
    # Kubernetes objects printed whole (kubectl get -o yaml/json, kubectl describe, helm)
    (
        "last-applied stringData",
        'apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n      {"apiVersion":"v1","kind":"Secret","metadata":{"annotations":{},"name":"orders-db","namespace":"orders"},"stringData":{"password":"tdpIyE8VZtTTED","username":"orders"},"type":"Opaque"}\n  name: orders-db\n  namespace: orders\ntype: Opaque\n',
        "tdpIyE8VZtTTED",
    ),
    ("last-applied data json", _LAST_APPLIED_JSON, _LAST_APPLIED_DATA),
    (
        "secret decoded by base64 -d",
        "$ kubectl -n orders get secret orders-redis -o jsonpath='{.data.redis-password}' | base64 -d\nvNzt8q3CV3QyzMd\n$ redis-cli -h orders-redis ping",
        "vNzt8q3CV3QyzMd",
    ),
    (
        "pod env innocuous name",
        '"env":[{"name":"LOG_LEVEL","value":"info"},{"name":"REDIS_AUTH","value":"2lcg09eJoyU6vOEC"},{"name":"PORT","value":"8080"}]',
        "2lcg09eJoyU6vOEC",
    ),
    (
        "kubectl describe env",
        "    Environment:\n      DB_HOST:          pg-1.orders.svc\n      DB_USER:          orders\n      ORDERS_DB_PASS:   4Bsou1Q5Ea1nxDQ1cFn\n      LOG_LEVEL:        info\n    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-7xk2p (ro)",
        "4Bsou1Q5Ea1nxDQ1cFn",
    ),
    (
        "helm get values",
        "USER-SUPPLIED VALUES:\nauth:\n  postgresPassword: 8WFgbIlsiJeExYG\n  username: orders\nprimary:\n  persistence:\n    size: 20Gi\n",
        "8WFgbIlsiJeExYG",
    ),
    (
        "kubectl run env flag",
        '+ kubectl -n orders run pg-debug --rm -it --image=postgres:16 --env="PGPASSWORD=GTcaY8wHPbL9KiPeAUZy" -- psql -h pg-1 -U orders',
        "GTcaY8wHPbL9KiPeAUZy",
    ),
    (
        "docker inspect env",
        '"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",\n    "POSTGRES_USER=orders",\n    "POSTGRES_PASSWORD=aMeMr1mv7TmjFE",\n    "PGDATA=/var/lib/postgresql/data"\n]',
        "aMeMr1mv7TmjFE",
    ),
    # kubelet's mount error (pkg/util/mount): "Mounting arguments:" carries the cifs options
    (
        "kubelet cifs mount args",
        'MountVolume.SetUp failed for volume "reports" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t cifs -o dir_mode=0777,file_mode=0777,username=svc-reports,password=y9mcRzAM35jlI0Bl,vers=3.0 //fs01.corp.example/reports /var/lib/kubelet/pods/5b1c0e7a/volumes/kubernetes.io~csi/reports/mount\nOutput: mount error(13): Permission denied',
        "y9mcRzAM35jlI0Bl",
    ),
    (
        "kubeadm bootstrap token",
        "kubeadm join 10.20.0.10:6443 --token 39u9ui.q45u9kl6kxoiu4ip --discovery-token-ca-cert-hash sha256:1c3e5a7b9d0f2e4c6a8b0d1f3e5c7a9b2d4f6e8a0c1e3b5d7f9a2c4e6b8d0f1a",
        "q45u9kl6kxoiu4ip",
    ),
    # audit.k8s.io/v1 events at level Request: patch bodies in requestObject
    (
        "audit json-patch data",
        _audit(
            "/api/v1/namespaces/orders/secrets/orders-db",
            "secrets",
            "orders-db",
            [{"op": "replace", "path": "/data/password", "value": _AUDIT_B64}],
        ),
        _AUDIT_B64,
    ),
    (
        "audit json-patch env add",
        _audit(
            "/apis/apps/v1/namespaces/orders/deployments/service-d",
            "deployments",
            "service-d",
            [
                {
                    "op": "add",
                    "path": "/spec/template/spec/containers/0/env/-",
                    "value": {"name": "PAYMENT_API_SECRET", "value": "GVEd4ccPK0y6uR"},
                }
            ],
        ),
        "GVEd4ccPK0y6uR",
    ),
    (
        "audit strategic merge",
        _audit(
            "/apis/apps/v1/namespaces/orders/deployments/service-d?fieldManager=kubectl-set",
            "deployments",
            "service-d",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "app",
                                    "env": [{"name": "REDIS_PASSWORD", "value": "tjFTxdimW39bU"}],
                                }
                            ]
                        }
                    }
                }
            },
        ),
        "tjFTxdimW39bU",
    ),
    (
        "audit merge stringData",
        _audit(
            "/api/v1/namespaces/orders/secrets/orders-api",
            "secrets",
            "orders-api",
            {"stringData": {"api-key": "6S7Fprmp7Znp1Xv"}},
        ),
        "6S7Fprmp7Znp1Xv",
    ),
    (
        "kubectl patch body",
        '+ kubectl -n orders patch secret orders-api --type=merge -p \'{"stringData":{"token":"6p93d3FWI2fFHOiXi"}}\'',
        "6p93d3FWI2fFHOiXi",
    ),
    # command lines as a CI shell echoes them (set -x "+ ", GitLab "$ ")
    (
        "curl --user",
        "+ curl -fsS --user 'ci-bot:0wXWrp5PW6F6OYx6C' -X POST 'https://nexus.corp.example/service/rest/v1/components?repository=raw'",
        "0wXWrp5PW6F6OYx6C",
    ),
    (
        "curl url userinfo",
        "$ curl -s https://metrics:7Aq54qjB0JyVqBSVQkU@prometheus.corp.example/api/v1/query?query=up",
        "7Aq54qjB0JyVqBSVQkU",
    ),
    (
        "wget --password",
        "+ wget --user=backup --password=DETt4tcsVMDUg8qR https://files.corp.example/db/latest.sql.gz",
        "DETt4tcsVMDUg8qR",
    ),
    (
        "wget --http-password",
        "+ wget -q --http-user=ops --http-password='f3felhxz69cxwlqaT' -O - https://status.corp.example/health",
        "f3felhxz69cxwlqaT",
    ),
    (
        "psql uri",
        '$ psql "postgresql://orders:5RmysPCIXir3D@pg-1.orders.svc:5432/orders?sslmode=require" -c "select 1"',
        "5RmysPCIXir3D",
    ),
    (
        "mongosh --password",
        '+ mongosh "mongodb://mongo-0.mongo:27017/admin" --username root --password ZsXGFxNKVl6sD6l --authenticationDatabase admin --eval "rs.status()"',
        "ZsXGFxNKVl6sD6l",
    ),
    (
        "sqlcmd -P",
        "+ /opt/mssql-tools18/bin/sqlcmd -S tcp:sql-1,1433 -U sa -P 'lnclhhXHzveuG8QPE0' -C -Q \"SELECT @@VERSION\"",
        "lnclhhXHzveuG8QPE0",
    ),
    (
        "openssl -passin",
        "+ openssl rsa -in /tls/server.key -passin pass:LaGfqtQpj88OBofD4I -out /tmp/server.key",
        "LaGfqtQpj88OBofD4I",
    ),
    (
        "openssl enc -k",
        "+ openssl enc -aes-256-cbc -salt -pbkdf2 -in dump.sql -out dump.sql.enc -k SlcsCyORqm8aIa0uV",
        "SlcsCyORqm8aIa0uV",
    ),
    (
        "openssl -passout",
        "+ openssl pkcs12 -export -in tls.crt -inkey tls.key -out keystore.p12 -passout pass:GPJI3NPTPcHa9gvlR",
        "GPJI3NPTPcHa9gvlR",
    ),
    (
        "htpasswd -b",
        "+ htpasswd -b -c /etc/nginx/.htpasswd admin ccArAlws9Qc7GW7iby",
        "ccArAlws9Qc7GW7iby",
    ),
    (
        "git token-only userinfo",
        "fatal: unable to access 'https://QeZWsngD5VgkMD8U@git.corp.example/platform/orders.git/': The requested URL returned error: 403",
        "QeZWsngD5VgkMD8U",
    ),
    (
        "docker login --password",
        "+ docker login --username ci-pusher --password DGbvpe8cWF6Jo registry.corp.example",
        "DGbvpe8cWF6Jo",
    ),
    (
        "echo into password-stdin",
        '+ echo "hLuEv44laLQGaOS" | docker login registry.corp.example -u ci-pusher --password-stdin',
        "hLuEv44laLQGaOS",
    ),
    (
        "helm repo add --password",
        "+ helm repo add corp-charts https://charts.corp.example/stable --username ci --password dVBur59zOdAlXOeEtr2",
        "dVBur59zOdAlXOeEtr2",
    ),
    (
        "vault login legacy token",
        "$ vault login s.AEcvBYHnhrM6Qf4N16oesbm3",
        "AEcvBYHnhrM6Qf4N16oesbm3",
    ),
    (
        "vault approle secret_id",
        "+ vault write auth/approle/login role_id=e61a0809-19df-4b77-8f73-6589e7f15a96 secret_id=d41fe9f4-eea8-4ee6-9b44-2b412a1566a4",
        "d41fe9f4-eea8-4ee6-9b44-2b412a1566a4",
    ),
    (
        "kubectl --token",
        "+ kubectl --server=https://10.20.0.10:6443 --insecure-skip-tls-verify --token=QWkXYhKi3p9U9kjh get pods -n orders",
        "QWkXYhKi3p9U9kjh",
    ),
    (
        "az login --password",
        "+ az login --service-principal --username 21ee6230-79e8-403b-a787-4fc2da549035 --password hNy8Q~tgdGlb-Cy_RDyMFONvX~5ICuXyNsccSHJK --tenant 7ecb06cc-6c89-4f91-9e14-5e8d68039263",
        "hNy8Q~tgdGlb-Cy_RDyMFONvX~5ICuXyNsccSHJK",
    ),
    (
        "gcloud access token env",
        "+ export CLOUDSDK_AUTH_ACCESS_TOKEN=ya29.u7OzjUrr8VxUa1V18lnMFYrDF5qm0GcTlGtbaoQFYpwvi0XwGEYKJJgodbCtGm36wkDn1IcsiDd8u8UOQcTttvCC5F",
        "u7OzjUrr8VxUa1V18lnMFYrDF5qm0GcTlGtbaoQFYpwvi0XwGEYKJJgodbCtGm36wkDn1IcsiDd8u8UOQcTttvCC5F",
    ),
    (
        "heredoc create user",
        "$ mysql -uroot <<'SQL'\nCREATE USER 'reports'@'%' IDENTIFIED BY 't3dOKj40voeKeptI6';\nGRANT SELECT ON shop.* TO 'reports'@'%';\nSQL",
        "t3dOKj40voeKeptI6",
    ),
    (
        "skopeo creds",
        "+ skopeo copy --src-creds ci:bRxVJ0Ov5lXKLMWez docker://registry.corp.example/orders:1.4 docker://mirror.corp.example/orders:1.4",
        "bRxVJ0Ov5lXKLMWez",
    ),
    (
        "mc alias positional",
        "+ mc alias set minio http://minio.storage.svc:9000 minio-admin tphn9TzMAHe2pwV9yh3i",
        "tphn9TzMAHe2pwV9yh3i",
    ),
    (
        "aws configure set",
        "+ aws configure set aws_secret_access_key GfN+7Qic9VHMRciTnfwL53WT40dVLk/gH2eu3HvS --profile prod",
        "GfN+7Qic9VHMRciTnfwL53WT40dVLk/gH2eu3HvS",
    ),
    (
        "argocd login",
        "+ argocd login argocd.corp.example --username admin --password 1fgqPmCQZ5ksj0qNQ --grpc-web",
        "1fgqPmCQZ5ksj0qNQ",
    ),
    (
        "ipmitool -P",
        "+ ipmitool -I lanplus -H 10.30.0.21 -U ADMIN -P mN9ulwhpoUj76TO8 chassis power status",
        "mN9ulwhpoUj76TO8",
    ),
    (
        "ansible inventory",
        "db-1 ansible_host=10.30.1.5 ansible_user=deploy ansible_password=JExDC4EhSSt59FGxGQ ansible_become=true",
        "JExDC4EhSSt59FGxGQ",
    ),
    (
        "ps java keystore",
        "app          1       0  3 11:30 ?        00:00:41 java -Xmx512m -Djavax.net.ssl.keyStorePassword=YT27w2sYk4cs0KzfRJ -jar /app/orders.jar",
        "YT27w2sYk4cs0KzfRJ",
    ),
    (
        "pip index-url",
        "+ pip install --index-url https://ci:w4cW4TojDve07kW6F@nexus.corp.example/repository/pypi/simple orders-client==1.4.2",
        "w4cW4TojDve07kW6F",
    ),
    (
        "rabbitmqctl add_user",
        "+ rabbitmqctl add_user orders-svc vkdhfN76NOh0a8I",
        "vkdhfN76NOh0a8I",
    ),
    ("chpasswd", "+ echo 'deploy:YphmQk9rGMuaqN' | chpasswd", "YphmQk9rGMuaqN"),
    (
        "windows net use",
        "C:\\> net use \\\\fs01\\backup /user:CORP\\svc-backup W5j6KlEw7gJGq /persistent:no",
        "W5j6KlEw7gJGq",
    ),
    (
        "smbclient user%pass",
        "+ smbclient //fs01.corp.example/reports -U svc-reports%buK1sUKsl6PswK7SyL -c 'ls'",
        "buK1sUKsl6PswK7SyL",
    ),
    (
        "keytool -storepass",
        "+ keytool -importcert -noprompt -alias corp-ca -file ca.crt -keystore truststore.jks -storepass Y9HDXQyAN7TWLtkL",
        "Y9HDXQyAN7TWLtkL",
    ),
    (
        "gpg --passphrase",
        "+ gpg --batch --pinentry-mode loopback --passphrase tA3xiqfvisFACA6Equn --decrypt secrets.env.gpg",
        "tA3xiqfvisFACA6Equn",
    ),
    (
        "7z glued -p",
        "+ 7z a -p2GBhCO1OzowV6oAOL -mhe=on /backup/etcd-2026-07-20.7z /var/lib/etcd/snapshot.db",
        "2GBhCO1OzowV6oAOL",
    ),
    (
        "sqlplus user/pass@",
        "+ sqlplus -s system/6EdzXoLBI6UxiYIf29y@//ora-1.corp.example:1521/ORCLPDB1 @/scripts/check.sql",
        "6EdzXoLBI6UxiYIf29y",
    ),
    # Redis: MONITOR output and redis.conf
    (
        "redis monitor auth",
        '1784547064.221337 [0 10.42.3.17:51834] "AUTH" "default" "1eyaX2D5ggpfU4uop"',
        "1eyaX2D5ggpfU4uop",
    ),
    (
        "redis masterauth",
        "# Replication\nreplicaof redis-0.redis 6379\nmasterauth ieBryHTadmQa98k\nreplica-read-only yes",
        "ieBryHTadmQa98k",
    ),
    # configuration files (netrc(5), libpq .pgpass, Spring, Maven settings.xml, TOML, my.cnf,
    # nginx, HAProxy, Kafka JAAS, Alertmanager, npm, Terraform plan, Dex, keepalived,
    # Postfix sasl_passwd, Grafana ini)
    (
        "netrc",
        "machine gitlab.corp.example login deploy-bot password 3qgFg80dwox75xd",
        "3qgFg80dwox75xd",
    ),
    ("pgpass", "pg-1.orders.svc:5432:orders:orders:4YlqyO.yWlB-g6h", "4YlqyO.yWlB-g6h"),
    (
        "spring properties",
        "spring.datasource.url=jdbc:postgresql://pg-1:5432/orders\nspring.datasource.username=orders\nspring.datasource.password=je5AOaOF7xpJdpE",
        "je5AOaOF7xpJdpE",
    ),
    (
        "maven settings xml",
        "<server>\n  <id>corp-nexus</id>\n  <username>deployment</username>\n  <password>ZEHQD5LUxaiNIJ</password>\n</server>",
        "ZEHQD5LUxaiNIJ",
    ),
    (
        "toml table",
        '[database]\nhost = "pg-1"\nuser = "orders"\npassword = "r4PmlMro7f1jD"\n',
        "r4PmlMro7f1jD",
    ),
    (
        "cargo credentials toml",
        '[registries.corp]\ntoken = "LQ7U7ChXzqAdTj"\n',
        "LQ7U7ChXzqAdTj",
    ),
    (
        "my.cnf ini",
        "[client]\nuser=root\npassword=5Byh6k!zNgR_hfj\nhost=mysql-0.mysql",
        "5Byh6k!zNgR_hfj",
    ),
    (
        "nginx basic header",
        f'        proxy_set_header Authorization "Basic {_NGINX_BASIC}";',
        _NGINX_BASIC,
    ),
    (
        "haproxy userlist",
        "userlist stats-users\n    group admin users admin\n    user admin insecure-password YnBsxWeVPF4nwXfJpSJ",
        "YnBsxWeVPF4nwXfJpSJ",
    ),
    (
        "kafka jaas scram",
        'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="orders-producer" password="OytW7f4t0iQWPzD1LH";',
        "OytW7f4t0iQWPzD1LH",
    ),
    (
        "alertmanager smtp",
        "global:\n  smtp_smarthost: smtp.corp.example:587\n  smtp_from: alerts@corp.example\n  smtp_auth_username: alerts@corp.example\n  smtp_auth_password: KpMbiBt0Uzcent10S\n",
        "KpMbiBt0Uzcent10S",
    ),
    (
        "smtp_pass env",
        "SMTP_HOST=smtp.corp.example SMTP_USER=alerts SMTP_PASS=2mAAb1L7E0bxe SMTP_PORT=587",
        "2mAAb1L7E0bxe",
    ),
    (
        "npmrc _password",
        f"//npm.corp.example/repository/npm/:username=ci\n//npm.corp.example/repository/npm/:_password={_NPM_PASSWORD}",
        _NPM_PASSWORD,
    ),
    (
        "terraform plan",
        '  # aws_db_instance.orders will be created\n  + resource "aws_db_instance" "orders" {\n      + engine                  = "postgres"\n      + password                = "3afuuUbp4XfdmQ8"\n      + username                = "orders"\n',
        "3afuuUbp4XfdmQ8",
    ),
    (
        "dex ldap bindPW",
        "connectors:\n- type: ldap\n  id: corp\n  config:\n    host: ldap.corp.example:636\n    bindDN: cn=dex,ou=svc,dc=corp,dc=example\n    bindPW: 8hw9igCDfr6oO\n",
        "8hw9igCDfr6oO",
    ),
    (
        "keepalived auth_pass",
        "vrrp_instance VI_1 {\n    authentication {\n        auth_type PASS\n        auth_pass SjTRah7sDpA2rI\n    }\n}",
        "SjTRah7sDpA2rI",
    ),
    (
        "postfix sasl_passwd",
        "[smtp.corp.example]:587 alerts@corp.example:FMEFEPBQ1urZL",
        "FMEFEPBQ1urZL",
    ),
    (
        "grafana ini",
        "[security]\nadmin_user = admin\nadmin_password = d369nOPogofCYeeplg",
        "d369nOPogofCYeeplg",
    ),
    # password keys in other languages and in mixed case
    (
        "german passwort",
        "Datenbank-Verbindung: Benutzer=orders Passwort=J0eZ8GHxZ6GyBpv",
        "J0eZ8GHxZ6GyBpv",
    ),
    (
        "spanish contrasena",
        "conexión rechazada; usuario: ops, contraseña: 36am6MMDGVrOlBv4PrJ",
        "36am6MMDGVrOlBv4PrJ",
    ),
    ("french mot_de_passe", "utilisateur=ops mot_de_passe=5Z9By8SWoUMfl", "5Z9By8SWoUMfl"),
    ("chinese mima", "数据库连接失败 用户名=orders 密码=xwrZd5QnFSTyXsWb", "xwrZd5QnFSTyXsWb"),
    (
        "japanese pasuwado",
        "ログイン失敗: ユーザー名 admin パスワード: GmO7h1OrWhEo2X9YXCeD",
        "GmO7h1OrWhEo2X9YXCeD",
    ),
    ("portuguese senha", "usuario=ops senha=sYws4y9jbDDl84Wa76B", "sYws4y9jbDDl84Wa76B"),
    ("polish haslo", "użytkownik: ops, hasło: KMq8HLJmn3Xpg", "KMq8HLJmn3Xpg"),
    ("dutch wachtwoord", "gebruiker=ops wachtwoord=AgpIaLqYjhEC8DI2IXf", "AgpIaLqYjhEC8DI2IXf"),
    ("russian caps", "ПАРОЛЬ=WwNjbH324AVAbGYH9i ПОЛЬЗОВАТЕЛЬ=admin", "WwNjbH324AVAbGYH9i"),
    ("mixed case key", "DbPassWord=d7WUzLHgo7Wcy7;DbUser=orders", "d7WUzLHgo7Wcy7"),
    (
        "rds camel field",
        '{"DBInstanceIdentifier":"orders","MasterUsername":"admin","MasterUserPassword":"lHhFhoi7cxHh5x"}',
        "lHhFhoi7cxHh5x",
    ),
    (
        "restic password env",
        "+ RESTIC_PASSWORD=frifIg6JAr9x7A6zVg1R restic -r s3:s3.amazonaws.com/corp-backups backup /data",
        "frifIg6JAr9x7A6zVg1R",
    ),
    # AWS (sts assume-role output, IAM credentials.csv, Terraform provider block)
    ("aws sts secret", _STS, "kEcXYcdbmLVASTe7m9vJEEWC8ULbboxwxClv6b7k"),
    ("aws sts session token", _STS, _SESSION_TOKEN[46:106]),
    (
        "aws credentials csv",
        "User name,Password,Access key ID,Secret access key,Console login link\nci-deployer,,AKIAX4T7QPLM2RZW9KVN,QBu+dhijLtJfGSk0JL8p/qWVtJBozLLJmMu9DOVV,https://123456789012.signin.aws.amazon.com/console",
        "QBu+dhijLtJfGSk0JL8p/qWVtJBozLLJmMu9DOVV",
    ),
    (
        "terraform aws provider",
        'provider "aws" {\n  region     = "eu-central-1"\n  access_key = "AKIAR7VN2QXT5LMP8WZC"\n  secret_key = "jFHRea+vqo6EDB7+XIhdbJ8By4L5+2XojnflAivk"\n}',
        "jFHRea+vqo6EDB7+XIhdbJ8By4L5+2XojnflAivk",
    ),
    # GCP service-account key file
    (
        "gcp private_key_id",
        '{"type": "service_account", "project_id": "corp-prod-4471", "private_key_id": "e1401771d121d5801fd89350f56406f44dbb6602", "client_email": "ci-deployer@corp-prod-4471.iam.gserviceaccount.com", "client_id": "104827365512098347561"}',
        "e1401771d121d5801fd89350f56406f44dbb6602",
    ),
    # Azure (Service Bus SAS token, blob SAS URL, client secret, DevOps PAT)
    (
        "azure servicebus sas",
        "Authorization: SharedAccessSignature sr=https%3A%2F%2Forders-bus.servicebus.windows.net%2Forders&sig=qdr397m22kxxuD6NmFLFQ1tG70aMcor5NyPe4%2FlD%2B8t%3D&se=1784550664&skn=RootManageSharedAccessKey",
        "qdr397m22kxxuD6NmFLFQ1tG70aMcor5NyPe4",
    ),
    (
        "azure blob sas sig mid",
        "GET https://corpbackups.blob.core.windows.net/etcd/snap.db?sp=r&st=2026-07-20T10:00:00Z&se=2026-07-21T10:00:00Z&spr=https&sv=2022-11-02&sr=b&sig=uCW3S0VEK%2BUyVllYmLNI5VxJVLdvtVDv2H%2BlZ4Y4nFL%3D 403",
        "UyVllYmLNI5VxJVLdvtVDv2H",
    ),
    (
        "azure client secret env",
        "AZURE_CLIENT_ID=0f3c2a9e-5b7d-4e1f-8a6c-2d9b0e4f7a13 AZURE_CLIENT_SECRET=Xk28Q~Vn3pLr.7Tq_Wd5sYbZ0mCeHu9gAaFj2K",
        "Xk28Q~Vn3pLr.7Tq_Wd5sYbZ0mCeHu9gAaFj2K",
    ),
    (
        "azure devops pat",
        "+ AZURE_DEVOPS_EXT_PAT=yku5mncs4ycroh6zb4rcu5wcxbppqv4246nduzohymncjp5wwpjn az devops login --organization https://dev.azure.com/corp",
        "yku5mncs4ycroh6zb4rcu5wcxbppqv4246nduzohymncjp5wwpjn",
    ),
    # SaaS tokens (DigitalOcean OAuth, Heroku v2, Stripe webhook, Slack user token and
    # workflow trigger, Twilio, Mailgun, Datadog, Cloudflare, GitHub CLI, Google Chat,
    # Elasticsearch ApiKey, Splunk HEC)
    (
        "digitalocean oauth",
        "+ doctl auth init --access-token doo_v1_5fef3322fb1ba0a3c8ff8800e041605f96b4753c2e57294d1d24a0e3a30f5d7c",
        "5fef3322fb1ba0a3c8ff8800e041605f96b4753c2e57294d1d24a0e3a30f5d7c",
    ),
    (
        "heroku v2 key",
        "+ HEROKU_API_KEY=HRKU-AAP6z5WzJmt3YnZUcPsjEZyCnxRUIaOaZfmFvzCsuknTSSiLJ6Sx1d7gUy4g heroku container:release web -a orders",
        "P6z5WzJmt3YnZUcPsjEZyCnxRUIaOaZfmFvzCsuknTSSiLJ6Sx1d7gUy4g",
    ),
    (
        "stripe webhook secret",
        "STRIPE_WEBHOOK_SECRET=whsec_pfhuQX8RAlYTiBTfrbPIvozt0MTm3sSn",
        "pfhuQX8RAlYTiBTfrbPIvozt0MTm3sSn",
    ),
    (
        "slack user token",
        "slack: posting as user with xoxp-2948173650-5817263049-7261835490-65f0e93bb8b9b3bf2265c11fd5a6a8a9",
        "65f0e93bb8b9b3bf2265c11fd5a6a8a9",
    ),
    (
        "slack workflow trigger",
        "POST https://hooks.slack.com/triggers/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 200",
        "e38fdcb714bbb591f056766d03d60716",
    ),
    (
        "twilio auth token",
        "+ curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC6d069e6cd6a8e61c88bf846c6b64613d/Messages.json -u AC6d069e6cd6a8e61c88bf846c6b64613d:a3b4d94f4432acd22f6ea9821785d742",
        "a3b4d94f4432acd22f6ea9821785d742",
    ),
    (
        "mailgun key",
        "+ curl -s --user 'api:key-1fb46f2aad53b779d2a4c191df5254cb' https://api.eu.mailgun.net/v3/mg.corp.example/messages",
        "1fb46f2aad53b779d2a4c191df5254cb",
    ),
    (
        "datadog api key",
        "DD_API_KEY=7ab4e70d4ebe4908ec5bbd81de0fe68e DD_SITE=datadoghq.eu",
        "7ab4e70d4ebe4908ec5bbd81de0fe68e",
    ),
    (
        "cloudflare token",
        "CF_API_TOKEN=L24xREvUkMRCgp0wIfDpzhVQNlkSAbnxhQt-unGB",
        "L24xREvUkMRCgp0wIfDpzhVQNlkSAbnxhQt-unGB",
    ),
    (
        "gh hosts.yml",
        "github.com:\n    user: ci-bot\n    oauth_token: gho_acAb5wmB7ixoqZnOmMPmDuPVKOzX2tDpwtW3\n    git_protocol: https",
        "gho_acAb5wmB7ixoqZnOmMPmDuPVKOzX2tDpwtW3",
    ),
    (
        "github refresh token",
        '{"access_token":"ghu_X15a1aLjtJASn1GUnNZvT1xBWo95TzRG30z0","expires_in":28800,"refresh_token":"ghr_EVhf2WrfC1oZyHGWhCpkP3Lq9T0mVb7sXn2ZaQe41RkYdHgU8cJiWo6FtMe","refresh_token_expires_in":15811200,"scope":"","token_type":"bearer"}',
        "ghr_EVhf2WrfC1oZyHGWhCpkP3Lq9T0mVb7sXn2ZaQe41RkYdHgU8cJiWo6FtMe",
    ),
    (
        "google chat webhook",
        "POST https://chat.googleapis.com/v1/spaces/AAAAq9xZ3bE/messages?key=AIzaSyXq4Tb9Lm2Vc7Rk0Wd5Hn8Jp3Fs6Ge1Ya&token=t2bEpEVtXozsR5Z5v-9dKq1wYBPn0fLcGm4sJxHa7Uo%3D 200",
        "t2bEpEVtXozsR5Z5v",
    ),
    ("elasticsearch apikey", f"Authorization: ApiKey {_ES_API_KEY}", _ES_API_KEY),
    (
        "splunk hec",
        'curl -k https://splunk.corp.example:8088/services/collector/event -H "Authorization: Splunk b8e2c4d1-93fa-4c6e-a7d5-2f10e9c83b46" -d \'{"event":"deploy"}\'',
        "b8e2c4d1-93fa-4c6e-a7d5-2f10e9c83b46",
    ),
    # token responses (Vault API, GitLab OAuth, Dex OIDC) and browser captures (HAR 1.2)
    (
        "vault client_token",
        '{"request_id":"c0a17e52-1d3b-4f8e-a9c6-7b2e5d0f4a91","lease_id":"","renewable":false,"lease_duration":0,"data":null,"wrap_info":null,"warnings":null,"auth":{"client_token":"hvs.CAESIKbHnZYtNgi71CNkL0r7Xq9mW","accessor":"Qh3tV8cK1nZp0yRx","policies":["default","orders-read"],"metadata":{"role_name":"orders"},"lease_duration":2764800,"renewable":true,"token_type":"service","orphan":true}}',
        "CAESIKbHnZYtNgi71CNkL0r7Xq9mW",
    ),
    (
        "gitlab oauth access",
        _GITLAB_OAUTH,
        "06e287917b29c9cbccc27b40a9d8448a56b0ab93e41fe6abb1b5b9118b2f6f48",
    ),
    (
        "gitlab oauth refresh",
        _GITLAB_OAUTH,
        "79d6ac8005c9454f0d0392a18f8087b2dc75fc4c3ebd069a90e2eef7e6775a79",
    ),
    ("oidc access token", _DEX_TOKEN, "PPV-kSzU9R16Al2RuFRI5bnSEAeffn1WSdIbWFdK6Fx"),
    ("oidc id_token", _DEX_TOKEN, _ID_TOKEN),
    (
        "har cookie",
        '{"name": "_oauth2_proxy", "value": "nQ1c32EyJ8k5azM64p5W|1784547064|RgLCDcM59LeNdxiVF=", "path": "/", "domain": "grafana.corp.example", "expires": "2026-07-27T11:31:04.000Z", "httpOnly": true, "secure": true}',
        "nQ1c32EyJ8k5azM64p5W",
    ),
    (
        "har header token",
        '"headers": [{"name": "Accept", "value": "application/json"}, {"name": "Authorization", "value": "Token 5Pg1KjsWycPvYr3MLGtRCYhlQ2ms"}]',
        "5Pg1KjsWycPvYr3MLGtRCYhlQ2ms",
    ),
    # structs printed by the language (Go fmt %+v and %#v, Python dataclass repr, Java
    # toString by hand and by Lombok, Rust {:?}, Ruby Struct#inspect, PHP print_r)
    (
        "go %+v",
        "db config: {Host:pg-1.orders.svc Port:5432 User:orders Password:47fYIGIqF1gk4Tb Database:orders SSLMode:require}",
        "47fYIGIqF1gk4Tb",
    ),
    (
        "go %#v",
        'config.SMTP{Host:"smtp.corp.example", Port:587, Username:"alerts", Password:"8ZCMmRw3nXntPsTZGzz"}',
        "8ZCMmRw3nXntPsTZGzz",
    ),
    (
        "python dataclass repr",
        "DatabaseSettings(host='pg-1.orders.svc', port=5432, user='orders', password='pkP77KMCB1u8x9ZkY', sslmode='require')",
        "pkP77KMCB1u8x9ZkY",
    ),
    (
        "java toString",
        "DataSourceConfig{url='jdbc:postgresql://pg-1:5432/orders', username='orders', password='UsEw9XkjLQC4W2', maxPoolSize=10}",
        "UsEw9XkjLQC4W2",
    ),
    (
        "lombok toString",
        "HikariSettings(jdbcUrl=jdbc:mysql://mysql-0:3306/shop, username=shop, password=5ZO3xS3s7oK9iSlI, maximumPoolSize=20)",
        "5ZO3xS3s7oK9iSlI",
    ),
    (
        "rust debug",
        'Config { host: "pg-1", port: 5432, user: "orders", password: "BYV6MbhrpEfqctii6nPA45" }',
        "BYV6MbhrpEfqctii6nPA45",
    ),
    (
        "ruby struct inspect",
        '#<struct DbConfig host="pg-1", user="orders", password="2OvrngPXAUq3Dq">',
        "2OvrngPXAUq3Dq",
    ),
    (
        "php print_r",
        "Array\n(\n    [driver] => mysql\n    [username] => shop\n    [password] => 1DEheqrDDZYHG5AW0iGE\n)",
        "1DEheqrDDZYHG5AW0iGE",
    ),
    # stack traces carrying a DSN (CPython traceback, SQLAlchemy, JDBC DriverManager,
    # Node.js WHATWG URL, Go net/url)
    (
        "python traceback dsn",
        'Traceback (most recent call last):\n  File "/app/orders/db.py", line 14, in <module>\n    engine = create_engine("postgresql+psycopg2://orders:AfRqf7PqkKbg3LBkYPeBiRd@pg-1.orders.svc:5432/orders")\n  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/create.py", line 560, in create_engine\n    u = _url.make_url(url)\nsqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "pg-1.orders.svc" (10.43.0.17), port 5432 failed: Connection refused',
        "AfRqf7PqkKbg3LBkYPeBiRd",
    ),
    (
        "sqlalchemy url error",
        "sqlalchemy.exc.ArgumentError: Could not parse SQLAlchemy URL from string 'mysql+pymysql://shop:8VE3QBQi6upvXfRpI25@mysql-0:3306/shop?charset=utf8mb4 '",
        "8VE3QBQi6upvXfRpI25",
    ),
    (
        "jdbc no suitable driver",
        "java.sql.SQLException: No suitable driver found for jdbc:mysql//mysql-0:3306/shop?user=shop&useSSL=false&password=f8GxgB5ackfakdRU3wtA0l\n\tat java.sql/java.sql.DriverManager.getConnection(DriverManager.java:706)\n\tat com.zaxxer.hikari.util.DriverDataSource.<init>(DriverDataSource.java:110)",
        "f8GxgB5ackfakdRU3wtA0l",
    ),
    (
        "node invalid url",
        "TypeError [ERR_INVALID_URL]: Invalid URL\n    at new URL (node:internal/url:816:29)\n    at parseURL (/app/node_modules/@redis/client/dist/lib/client/index.js:120:21) {\n  code: 'ERR_INVALID_URL',\n  input: 'redis://:wVmtboEAfd0FPktWm@redis-master.cache.svc:6379/0 '\n}",
        "wVmtboEAfd0FPktWm",
    ),
    (
        "go url parse panic",
        'panic: parse "postgres://orders:oCWRj496n7xdo7vpH@pg-1:5432/orders?sslmode=disable%": invalid URL escape "%"',
        "oCWRj496n7xdo7vpH",
    ),
    # connection strings (ODBC, SQL Server JDBC, MongoDB seed list)
    (
        "odbc pwd braces",
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql-1.corp.example,1433;Database=shop;Uid=sa;Pwd={OndN5DA40dUujW};Encrypt=yes;",
        "OndN5DA40dUujW",
    ),
    (
        "sqlserver jdbc",
        "jdbc:sqlserver://sql-1.corp.example:1433;databaseName=shop;user=sa;password=59WGynHIOqBkkWY;encrypt=true;trustServerCertificate=true",
        "59WGynHIOqBkkWY",
    ),
    (
        "mongodb seed list",
        "mongodb://orders:vE7tkLYVqrCBAM@mongo-0.mongo:27017,mongo-1.mongo:27017/orders?replicaSet=rs0&authSource=admin",
        "vE7tkLYVqrCBAM",
    ),
    # SQL statements in database logs (PostgreSQL log_statement, MySQL general log, T-SQL)
    (
        "postgres alter role log",
        "2026-07-20 11:31:04.221 UTC [812] orders@orders LOG:  statement: ALTER ROLE orders_ro WITH LOGIN PASSWORD 'IQsxRFYEAqtmNb2ZeFEo';",
        "IQsxRFYEAqtmNb2ZeFEo",
    ),
    (
        "mysql general log",
        "2026-07-20T11:31:04.221117Z\t   14 Query\tALTER USER 'shop'@'%' IDENTIFIED BY 'xvCLwIIAWYpF2VlxTi'",
        "xvCLwIIAWYpF2VlxTi",
    ),
    (
        "tsql create login",
        "CREATE LOGIN reports WITH PASSWORD = N'rxz18u#jPAA%9jJ', CHECK_POLICY = OFF;",
        "rxz18u#jPAA%9jJ",
    ),
    # GitLab: a CI job name, a commit title and a commit body that carry a token
    ("ci job name", "e2e:staging [API_KEY=YCK4FI7bZAlOR3sDYqgy]", "YCK4FI7bZAlOR3sDYqgy"),
    (
        "commit title",
        "ci: pin REGISTRY_PASSWORD=Y0av5J4iYm9cvafgE until vault sync is fixed",
        "Y0av5J4iYm9cvafgE",
    ),
    (
        "commit body",
        'Revert "add staging creds"\n\nThis reverts commit 4e1d2a9c.\nThe leaked value was SENTRY_AUTH_TOKEN=IAq7hsKG5BWuOCBT9wFY, rotated since.',
        "IAq7hsKG5BWuOCBT9wFY",
    ),
    (
        "pypirc private index",
        "[corp]\nrepository = https://nexus.corp.example/repository/pypi-internal/\nusername = ci\npassword = Bw5XfLs83E2V1OvQqz0T6",
        "Bw5XfLs83E2V1OvQqz0T6",
    ),
]
