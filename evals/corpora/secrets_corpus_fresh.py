"""Secrets as less common software really prints or stores them: written blind, after the fix, from real formats.

Each entry is (name, text, secret). `text` is what a source would hold or return as is: a
config file excerpt, a terminal session, a Kubernetes object, a CI job log, an HTTP access
log line, a stack trace, an audit event. `secret` is the exact substring that must never be
shown (the password, not the user name; the token, not the key that names it). Every value
is fake, distinct, at least 8 characters, and no secret is a substring of another. Where a
format encodes the secret (base64 in a Secret, URL encoding, HTTP Basic), `secret` is the
form that appears in the text.
"""

# ruff: noqa: E501  (the corpus lines are data, kept whole)

from __future__ import annotations

import base64
import hashlib
import json


def _b64u(obj: dict[str, object]) -> str:
    return (
        base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def _jwt(kid: str, claims: dict[str, object], sig: str) -> str:
    return f"{_b64u({'alg': 'RS256', 'kid': kid})}.{_b64u(claims)}.{sig}"


_SA_JWT = _jwt(
    "dG9rZW4ta2V5LTIwMjQ",
    {
        "aud": ["https://kubernetes.default.svc.cluster.local"],
        "exp": 1747216800,
        "iat": 1715680800,
        "iss": "https://kubernetes.default.svc.cluster.local",
        "kubernetes.io": {
            "namespace": "payments",
            "pod": {
                "name": "payments-api-7c9d5f6b8-x2kqp",
                "uid": "5b1f0d4e-3a27-4c61-9e8b-2f7a0c1d6e93",
            },
            "serviceaccount": {
                "name": "payments-api",
                "uid": "a4c2e91f-6d03-4b7a-8f15-c0e3b9d27a68",
            },
        },
        "nbf": 1715680800,
        "sub": "system:serviceaccount:payments:payments-api",
    },
    "OjUnq_G57Bs5GVWvejRcw6RRXArMYjOyOFkbQkwovDi__LdTXligIKOgqkZ7fAX0jWjABS457HYvUzMLoIKgbF",
)
_KUBECONFIG_JWT = _jwt(
    "c2EtY2ktZGVwbG95ZXI",
    {
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": "ci",
        "kubernetes.io/serviceaccount/secret.name": "ci-deployer-token",
        "kubernetes.io/serviceaccount/service-account.name": "ci-deployer",
        "sub": "system:serviceaccount:ci:ci-deployer",
    },
    "uopHo8bgDCzN1lRerZLeqH8zkSCfN2MNT1xH1GA8v9lTwr1xef15ugHXDSgwA4fTpwOBLb5LAxJ8nuZOhqDyQp",
)
_ARGO_JWT = _jwt(
    "YXJnby1zZXJ2ZXI",
    {
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": "argo",
        "kubernetes.io/serviceaccount/service-account.name": "argo-ops",
        "sub": "system:serviceaccount:argo:argo-ops",
    },
    "EeVykHA4RSZWry80Q1UQ1ZJs2yFxcU3m0a8OrDzk-m7Ol-VZflyjLg9slFNNaAKj5NubNAQLQ7g0EXWFTq_7jJ",
)

_EC_KEY_PEM = (
    "-----BEGIN EC PRIVATE KEY-----\n"
    "+OBOsXh2o1jKl6dJ5fABlIYb30n7ug1SSL6ka7d13l2FK+d3LZREmJEGsCmg5ZD3\n"
    "DP1tEQYj0eTWP4QIAA3Vg4iPcZbIhLOc+6SERRiyzfxxmtjRp2yZ+8dWKccC0bbD\n"
    "-----END EC PRIVATE KEY-----\n"
)
_CLIENT_KEY_DATA = base64.b64encode(_EC_KEY_PEM.encode()).decode()

_SAML_KEY_BODY = (
    "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDa3Wq7Ns5Rz0Hk\n"
    "Nxk8sVo5Vvftl4Az30t9sav3aXG7lG6YiJfYF8vJhFzA7xCkW7HwU5yPzxameLqt\n"
    "8ydEOJBwDMGEuFN7VR63mAYhzIvGLTf8GnH1xIyQpXGlPwxLiDhyVbW6wiwZQB9v"
)

# password "Au8Wx3Qz6Tk1Lrp" (15 chars, so no padding) as a Secret's data holds it
_AUDIT_PW_B64 = base64.b64encode(b"Au8Wx3Qz6Tk1Lrp").decode()

_TWILIO_SID = "AC7d2e9f41b06c83a5e17d4f92b0c6a8e3"
_TWILIO_BASIC = base64.b64encode(
    f"{_TWILIO_SID}:ba157eedeafbd020793f659ee136421e".encode()
).decode()

_GOOG_SIG = "".join(hashlib.sha256(f"gcs-signature-{i}".encode()).hexdigest() for i in range(8))

CORPUS_FRESH: list[tuple[str, str, str]] = [
    # --- HashiCorp: Consul, Nomad, Vault, Terraform ---
    (
        "consul agent acl tokens hcl",
        '# /etc/consul.d/consul.hcl\ndatacenter = "eu-west-1"\ndata_dir = "/opt/consul"\nacl {\n  enabled                  = true\n  default_policy           = "deny"\n  enable_token_persistence = true\n  tokens {\n    agent = "1d9df0b3-192d-48d3-837a-83b74e2c5a4c"\n  }\n}\n',
        "1d9df0b3-192d-48d3-837a-83b74e2c5a4c",
    ),
    (
        "consul kv token in ps output",
        "root      2211  0.0  0.1 741252 23104 ?        Sl   09:14   0:00 consul kv get -http-addr=https://consul.service.consul:8501 -token=a0a8c9d0-540e-480b-a15d-391de47b60d2 config/billing/feature-flags",
        "a0a8c9d0-540e-480b-a15d-391de47b60d2",
    ),
    (
        "nomad token export in terminal",
        "ops@bastion-1:~$ export NOMAD_ADDR=https://nomad.service.consul:4646\nops@bastion-1:~$ export NOMAD_TOKEN=621e3816-0e0c-4196-ae2f-cece88dd67d1\nops@bastion-1:~$ nomad job status ingest-worker\nID            = ingest-worker\nStatus        = running",
        "621e3816-0e0c-4196-ae2f-cece88dd67d1",
    ),
    (
        "nomad job inspect env json",
        '{\n    "Job": {\n        "ID": "reports-cron",\n        "TaskGroups": [\n            {\n                "Name": "reports",\n                "Tasks": [\n                    {\n                        "Driver": "docker",\n                        "Env": {\n                            "PGHOST": "pg-reports.service.consul",\n                            "PGPASSWORD": "Nd6Rt1Wq8Zx3Lm",\n                            "PGUSER": "reports"\n                        },\n                        "Name": "generate"\n',
        "Nd6Rt1Wq8Zx3Lm",
    ),
    (
        "vault token export in CI job log",
        "$ export VAULT_ADDR=https://vault.corp.example:8200\n$ export VAULT_TOKEN=hvs.hbjUi_PeHeWp1Ovc3QgiD86eXr48vHZwvi8tam4v77QF1p6dEOeYRT_Njgf6_VG5JJKQHHuoB7GrJi8CIbpV9ILuLFQ\n$ vault kv get -field=dsn secret/ci/staging/db\nError reading secret/data/ci/staging/db: Error making API request.\n\nURL: GET https://vault.corp.example:8200/v1/secret/data/ci/staging/db\nCode: 403. Errors:\n\n* permission denied",
        "hvs.hbjUi_PeHeWp1Ovc3QgiD86eXr48vHZwvi8tam4v77QF1p6dEOeYRT_Njgf6_VG5JJKQHHuoB7GrJi8CIbpV9ILuLFQ",
    ),
    (
        "vault login table output",
        '$ vault login -method=oidc role=sre\nComplete the login via your OIDC provider. Launching browser to:\n\n    https://sso.corp.example/oauth2/v1/authorize?client_id=vault\n\nSuccess! You are now authenticated. The token information displayed below\nis already stored in the token helper. You do NOT need to run "vault login"\nagain. Future Vault requests will automatically use this token.\n\nKey                  Value\n---                  -----\ntoken                hvs.OwsUaFsq6dLTncGOukXcdeF0WRgQUwjsJlYY2KY3kGqJJH5h-TDKBMX4XQSyyj_Q58yqOZMO4ci1279CxW8232TZGmn\ntoken_accessor       Xb2kq9LzT0wVn3RmC7sHd5Jf\ntoken_duration       8h\ntoken_renewable      true\ntoken_policies       ["default" "sre"]',
        "hvs.OwsUaFsq6dLTncGOukXcdeF0WRgQUwjsJlYY2KY3kGqJJH5h-TDKBMX4XQSyyj_Q58yqOZMO4ci1279CxW8232TZGmn",
    ),
    (
        "terraform cloud token in .terraformrc",
        '$ cat ~/.terraformrc\nplugin_cache_dir = "$HOME/.terraform.d/plugin-cache"\n\ncredentials "app.terraform.io" {\n  token = "cs3876rmr9P2JC.atlasv1.Otn2MMgCuWmIZOL25s212dO8cVx8k6IXbTkad7AtfqBmePPBeYgijZnCHXyaqZhiI2l"\n}\n',
        "cs3876rmr9P2JC.atlasv1.Otn2MMgCuWmIZOL25s212dO8cVx8k6IXbTkad7AtfqBmePPBeYgijZnCHXyaqZhiI2l",
    ),
    (
        "terraform state db instance password",
        '        {\n          "schema_version": 2,\n          "attributes": {\n            "allocated_storage": 100,\n            "engine": "postgres",\n            "engine_version": "15.5",\n            "identifier": "orders-prod",\n            "instance_class": "db.r6g.large",\n            "password": "Tf5Wq2Zk8Lr3Xn",\n            "username": "orders_admin",\n',
        "Tf5Wq2Zk8Lr3Xn",
    ),
    # --- Ansible, Jenkins ---
    (
        "ansible vault password file cat",
        "deploy@ci-runner-3:~/infra$ cat ~/.ansible/vault_pass.txt\nR7tqW2zLk9PmXv4c\ndeploy@ci-runner-3:~/infra$ ansible-playbook -i inventories/prod site.yml --vault-password-file ~/.ansible/vault_pass.txt\n\nPLAY [webservers] ***************************************************************",
        "R7tqW2zLk9PmXv4c",
    ),
    (
        "ansible inventory become pass",
        "[webservers]\nweb01 ansible_host=10.0.3.11 ansible_user=deploy ansible_become_pass=Bc4nTq8Vw2Ze\nweb02 ansible_host=10.0.3.12 ansible_user=deploy\n\n[webservers:vars]\nansible_python_interpreter=/usr/bin/python3",
        "Bc4nTq8Vw2Ze",
    ),
    (
        "jenkins credentials.xml encrypted password",
        "<?xml version='1.1' encoding='UTF-8'?>\n<com.cloudbees.plugins.credentials.SystemCredentialsProvider plugin=\"credentials@1337.v60b_d7b_c7b_c9f\">\n  <domainCredentialsMap class=\"hudson.util.CopyOnWriteMap$Hash\">\n    <entry>\n      <com.cloudbees.plugins.credentials.domains.Domain>\n        <specifications/>\n      </com.cloudbees.plugins.credentials.domains.Domain>\n      <java.util.concurrent.CopyOnWriteArrayList>\n        <com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n          <scope>GLOBAL</scope>\n          <id>nexus-deploy</id>\n          <description>Nexus deploy user</description>\n          <username>deployer</username>\n          <password>{AQAAABAAAAAQfniePN2HsKRRUPZ4UJaI6pYuOlZkzaxsr1kZg4pqyMs56SceWc7v3XXP5uq4bxrW}</password>\n          <usernameSecret>false</usernameSecret>\n        </com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>",
        "AQAAABAAAAAQfniePN2HsKRRUPZ4UJaI6pYuOlZkzaxsr1kZg4pqyMs56SceWc7v3XXP5uq4bxrW",
    ),
    # --- Kubernetes-native tooling ---
    (
        "kubeconfig client-key-data",
        f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lCQURBS0JnZ3Foa2pPUFFRREFqQWpNU0V3SHdZRFZRUURE\n    server: https://10.40.0.1:6443\n  name: edge-k3s\ncontexts:\n- context:\n    cluster: edge-k3s\n    user: edge-admin\n  name: edge-k3s\ncurrent-context: edge-k3s\nkind: Config\npreferences: {{}}\nusers:\n- name: edge-admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENDQVRlZ0F3SUJBZ0lJWmt4\n    client-key-data: {_CLIENT_KEY_DATA}\n",
        _CLIENT_KEY_DATA,
    ),
    (
        "kubeconfig user token",
        f"users:\n- name: ci-deployer\n  user:\n    token: {_KUBECONFIG_JWT}\ncontexts:\n- context:\n    cluster: prod-eu\n    namespace: ci\n    user: ci-deployer\n  name: ci@prod-eu",
        _KUBECONFIG_JWT,
    ),
    (
        "serviceaccount token file via kubectl exec",
        f"$ kubectl -n payments exec -it payments-api-7c9d5f6b8-x2kqp -c api -- cat /var/run/secrets/kubernetes.io/serviceaccount/token\n{_SA_JWT}$ ",
        _SA_JWT,
    ),
    (
        "argo token export",
        f'$ export ARGO_SERVER=argo.corp.example:443\n$ export ARGO_HTTP1=true\n$ export ARGO_TOKEN="Bearer {_ARGO_JWT}"\n$ argo list -n argo\nNAME                 STATUS      AGE   DURATION   PRIORITY\nnightly-etl-8kq2z    Failed      3h    14m        0',
        _ARGO_JWT,
    ),
    (
        "argo workflow parameter in argo get yaml",
        "spec:\n  arguments:\n    parameters:\n    - name: image-tag\n      value: 2024.05.14-1\n    - name: registry-user\n      value: robot-etl\n    - name: registry-password\n      value: Nq5Tw8Rz2Kx7Lm\n  entrypoint: build-and-push\nstatus:\n  finishedAt: \"2024-05-14T06:12:44Z\"\n  message: child 'nightly-etl-8kq2z-1802395816' failed\n  phase: Failed",
        "Nq5Tw8Rz2Kx7Lm",
    ),
    (
        "flux create secret git export",
        "$ flux create secret git fleet-auth --url=https://gitlab.corp.example/platform/fleet.git --username=flux --password=glpat-v43z95TSGGLUgESj7zzk --export\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: fleet-auth\n  namespace: flux-system\nstringData:\n  password: glpat-v43z95TSGGLUgESj7zzk\n  username: flux\n",
        "glpat-v43z95TSGGLUgESj7zzk",
    ),
    (
        "cert-manager acme eab hmac key",
        "$ kubectl -n cert-manager create secret generic zerossl-eab --from-literal=secret=gmxlyPYhu2D5MOwZyUhyV_ZrIG25hH-LrN7iDgdtIq6C0-wyoualC3omGOjNsnmjymJRSQc8FvE-_D557lCLUH\nsecret/zerossl-eab created\n$ kubectl apply -f clusterissuer-zerossl.yaml\nclusterissuer.cert-manager.io/zerossl-prod created",
        "gmxlyPYhu2D5MOwZyUhyV_ZrIG25hH-LrN7iDgdtIq6C0-wyoualC3omGOjNsnmjymJRSQc8FvE-_D557lCLUH",
    ),
    (
        "helm set-string in CI job log",
        '$ helm upgrade --install payments ./charts/payments --namespace payments --create-namespace --set image.tag=$CI_COMMIT_SHORT_SHA --set-string postgresql.auth.password=Hm3Wq8Zt1Lx6Rv --atomic --timeout 10m\nRelease "payments" has been upgraded. Happy Helming!\nNAME: payments\nLAST DEPLOYED: Tue May 14 09:31:07 2024\nNAMESPACE: payments\nSTATUS: deployed\nREVISION: 42',
        "Hm3Wq8Zt1Lx6Rv",
    ),
    (
        "minio root password in kubectl describe pod",
        "Name:             minio-0\nNamespace:        storage\nPriority:         0\nService Account:  minio\nNode:             worker-7/10.12.0.27\nStatus:           Running\nContainers:\n  minio:\n    Image:         quay.io/minio/minio:RELEASE.2024-05-10T01-41-38Z\n    Args:\n      server\n      /data\n      --console-address\n      :9001\n    Environment:\n      MINIO_ROOT_USER:      minioadmin\n      MINIO_ROOT_PASSWORD:  Mn4Xq9Wr2Tz7Lk5\n      MINIO_PROMETHEUS_AUTH_TYPE:  public\n    Mounts:\n      /data from export (rw)",
        "Mn4Xq9Wr2Tz7Lk5",
    ),
    (
        "kubernetes audit event secret create",
        '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"8c1f5e2a-9b34-4d07-a6e1-3f0d2c7b9e54","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/billing/secrets?fieldManager=kubectl-client-side-apply&fieldValidation=Strict","verb":"create","user":{"username":"oidc:j.doe@corp.example","groups":["oidc:sre","system:authenticated"]},"sourceIPs":["10.8.1.44"],"userAgent":"kubectl/v1.29.3 (linux/amd64) kubernetes/6813625","objectRef":{"resource":"secrets","namespace":"billing","name":"billing-db","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"billing-db","namespace":"billing"},"data":{"password":"'
        + _AUDIT_PW_B64
        + '","username":"YmlsbGluZw=="},"type":"Opaque"},"requestReceivedTimestamp":"2024-05-14T08:02:11.412093Z","stageTimestamp":"2024-05-14T08:02:11.428771Z"}',
        _AUDIT_PW_B64,
    ),
    (
        "keycloak kcadm in bash history",
        "  512  cd /opt/keycloak/bin\n  513  ./kcadm.sh config credentials --server http://localhost:8080 --realm master --user admin --password Kc9vT3mW7qLz2x\n  514  ./kcadm.sh get realms/corp/clients -q clientId=grafana\n  515  history | grep kcadm",
        "Kc9vT3mW7qLz2x",
    ),
    (
        "keycloak realm export client secret",
        '  "clients": [\n    {\n      "id": "4b8e1c2d-7f3a-49e0-b6d5-0a9c8e7f1d23",\n      "clientId": "grafana",\n      "enabled": true,\n      "clientAuthenticatorType": "client-secret",\n      "secret": "Kx2Pq7Vm4Tz9Wr1Lb6",\n      "redirectUris": ["https://grafana.corp.example/login/generic_oauth"],\n      "protocol": "openid-connect",\n',
        "Kx2Pq7Vm4Tz9Wr1Lb6",
    ),
    (
        "keycloak realm export rsa private key component",
        '      "org.keycloak.keys.KeyProvider": [\n        {\n          "id": "e7a1d3c5-2b94-4f60-8d1e-6c3b0a9f7e25",\n          "name": "rsa-generated",\n          "providerId": "rsa-generated",\n          "subComponents": {},\n          "config": {\n            "privateKey": ["MIIEowjbfT8MY2lYw+VrNclRPRlnOV8kaCtNGwwsNc+SkA8qncfCv0a2Vs2IACJ2kDRbeBZYyPcPihLOqZFANjf6gQU4f6/s6fXFCv02wVsB7JiepyoIfSA9xtbO1u"],\n            "keyUse": ["SIG"],\n            "certificate": ["MIICnTCCAYUCBgGPc2kYkjANBgkqhkiG9w0BAQsFADASMRAwDgYDVQQDDAdjb3Jw"],\n            "priority": ["100"]\n          }\n        },',
        "MIIEowjbfT8MY2lYw+VrNclRPRlnOV8kaCtNGwwsNc+SkA8qncfCv0a2Vs2IACJ2kDRbeBZYyPcPihLOqZFANjf6gQU4f6/s6fXFCv02wVsB7JiepyoIfSA9xtbO1u",
    ),
    (
        "saml sp private key cat",
        f"[root@idp-sp-1 ~]# cat /etc/shibboleth/sp-signing-key.pem\n-----BEGIN PRIVATE KEY-----\n{_SAML_KEY_BODY}\n-----END PRIVATE KEY-----\n[root@idp-sp-1 ~]# systemctl restart shibd",
        _SAML_KEY_BODY,
    ),
    # --- Kafka, databases, queues ---
    (
        "kafka connect connector config rest response",
        '$ curl -s http://connect-0.connect:8083/connectors/orders-jdbc-sink/config\n{"connector.class":"io.confluent.connect.jdbc.JdbcSinkConnector","connection.url":"jdbc:postgresql://pg-orders.db:5432/orders","connection.user":"kconnect","connection.password":"Jd4Rk8Tz1Wq6Vn","topics":"orders.v1","insert.mode":"upsert","pk.mode":"record_key","tasks.max":"2","name":"orders-jdbc-sink"}',
        "Jd4Rk8Tz1Wq6Vn",
    ),
    (
        "debezium server application.properties",
        "debezium.sink.type=kafka\ndebezium.sink.kafka.producer.bootstrap.servers=kafka-0.kafka:9092\ndebezium.source.connector.class=io.debezium.connector.mysql.MySqlConnector\ndebezium.source.database.hostname=mysql-inventory\ndebezium.source.database.port=3306\ndebezium.source.database.user=debezium\ndebezium.source.database.password=Dbz5Xq2Lm9Tw7Rk\ndebezium.source.database.server.id=184054\ndebezium.source.topic.prefix=inventory",
        "Dbz5Xq2Lm9Tw7Rk",
    ),
    (
        "kafka client sasl jaas config",
        'bootstrap.servers=kafka-broker-1.corp.example:9094\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="svc-orders" password="Ks3Wq8Tz5Lx1Rm";\nssl.truststore.location=/etc/kafka/secrets/truststore.jks',
        "Ks3Wq8Tz5Lx1Rm",
    ),
    (
        "mysql my.cnf client section",
        '$ cat /root/.my.cnf\n[client]\nuser=backup\npassword="My5Vr9Tk2Qw7Lx"\nhost=db-primary.internal\n\n[mysqldump]\nsingle-transaction\nquick',
        "My5Vr9Tk2Qw7Lx",
    ),
    (
        "pgpass line",
        "postgres@pg-replica-2:~$ cat ~/.pgpass\npg-primary.internal:5432:replication:replicator:Pg2Xw7Qt4Lz9Rk\npostgres@pg-replica-2:~$ ls -l ~/.pgpass\n-rw------- 1 postgres postgres 62 May 14 07:58 /home/postgres/.pgpass",
        "Pg2Xw7Qt4Lz9Rk",
    ),
    (
        "mongodb uri with authsource url-encoded in app log",
        '{"level":"info","ts":"2024-05-14T10:02:17.553Z","logger":"store","msg":"connecting to mongo","uri":"mongodb://reporting:Mg8Zq%40Wt6Lk1Rv%21@mongo-0.mongo:27017,mongo-1.mongo:27017,mongo-2.mongo:27017/analytics?authSource=admin&replicaSet=rs0&readPreference=secondaryPreferred"}',
        "Mg8Zq%40Wt6Lk1Rv%21",
    ),
    (
        "redis sentinel auth-pass",
        "# /etc/redis/sentinel.conf\nport 26379\nsentinel monitor mymaster 10.0.5.21 6379 2\nsentinel auth-pass mymaster Rs6Tw1Qz8Lk3Vm\nsentinel down-after-milliseconds mymaster 5000\nsentinel failover-timeout mymaster 60000",
        "Rs6Tw1Qz8Lk3Vm",
    ),
    (
        "rabbitmqctl add_user in shell",
        "[root@mq-1 ~]# rabbitmqctl add_user metrics Rq6Tw1Xz8Lk3Vm\nAdding user \"metrics\" ...\nDone. Don't forget to grant the user permissions to some virtual hosts! See 'rabbitmqctl help set_permissions' to learn more.\n[root@mq-1 ~]# rabbitmqctl set_user_tags metrics monitoring",
        "Rq6Tw1Xz8Lk3Vm",
    ),
    (
        "etcdctl user flag",
        "$ ETCDCTL_API=3 etcdctl --endpoints=https://10.0.0.11:2379 --cacert=/etc/etcd/ca.crt --user root:Ec7Wq2Tz9Lx4Rk get /registry/namespaces --prefix --keys-only | head -3\n/registry/namespaces/default\n/registry/namespaces/kube-node-lease\n/registry/namespaces/kube-public",
        "Ec7Wq2Tz9Lx4Rk",
    ),
    (
        "airflow connection env uri",
        "    Environment:\n      AIRFLOW__CORE__EXECUTOR:        KubernetesExecutor\n      AIRFLOW_CONN_WAREHOUSE:         snowflake://etl_loader:Af8Vk3Qz1Tw6Rm@xy12345/ANALYTICS/PUBLIC?account=xy12345&warehouse=ETL_WH&role=LOADER\n      AIRFLOW__LOGGING__LOGGING_LEVEL:  INFO",
        "Af8Vk3Qz1Tw6Rm",
    ),
    # --- Elastic stack, Fluent Bit, Prometheus, Alertmanager, Grafana ---
    (
        "kibana.yml elasticsearch password",
        'server.host: "0.0.0.0"\nserver.publicBaseUrl: "https://kibana.corp.example"\nelasticsearch.hosts: ["https://es-master-0.es:9200"]\nelasticsearch.username: "kibana_system"\nelasticsearch.password: "Kb3xW9qT6mZr2P"\nelasticsearch.ssl.certificateAuthorities: ["/usr/share/kibana/config/certs/ca.crt"]',
        "Kb3xW9qT6mZr2P",
    ),
    (
        "logstash pipeline elasticsearch output",
        'output {\n  elasticsearch {\n    hosts    => ["https://es-ingest-0.es:9200"]\n    user     => "logstash_writer"\n    password => "Ls8Vq2Nz5Tk1Wm"\n    index    => "app-%{+YYYY.MM.dd}"\n    cacert   => "/usr/share/logstash/config/ca.crt"\n  }\n}',
        "Ls8Vq2Nz5Tk1Wm",
    ),
    (
        "fluent bit http output passwd",
        "[OUTPUT]\n    Name        http\n    Match       kube.*\n    Host        logs.corp.example\n    Port        443\n    URI         /ingest/v1\n    Format      json_lines\n    HTTP_User   fluentbit\n    HTTP_Passwd Fb6Rt2Wq9Lz4Xk\n    tls         On\n    tls.verify  On",
        "Fb6Rt2Wq9Lz4Xk",
    ),
    (
        "prometheus scrape basic_auth",
        "scrape_configs:\n  - job_name: 'federate-eu'\n    scrape_interval: 30s\n    honor_labels: true\n    metrics_path: '/federate'\n    scheme: https\n    basic_auth:\n      username: federate\n      password: Pm4Zx8Qt2Rv7Wn\n    params:\n      'match[]':\n        - '{job=~\"node|kube-state-metrics\"}'\n    static_configs:\n      - targets: ['prom-eu.corp.example']",
        "Pm4Zx8Qt2Rv7Wn",
    ),
    (
        "alertmanager opsgenie api_key",
        "receivers:\n- name: opsgenie-primary\n  opsgenie_configs:\n  - api_key: e0fa3ebd-5659-4058-8489-81a992c6d576\n    api_url: https://api.eu.opsgenie.com/\n    priority: '{{ if eq .CommonLabels.severity \"critical\" }}P1{{ else }}P3{{ end }}'\n    responders:\n    - name: platform-oncall\n      type: team",
        "e0fa3ebd-5659-4058-8489-81a992c6d576",
    ),
    (
        "alertmanager pagerduty routing_key",
        "- name: pagerduty-payments\n  pagerduty_configs:\n  - routing_key: 9ozRySQjENj1VlTSjVBIWvEQ5fczqbI1\n    severity: '{{ .CommonLabels.severity }}'\n    send_resolved: true",
        "9ozRySQjENj1VlTSjVBIWvEQ5fczqbI1",
    ),
    (
        "alertmanager slack api_url",
        "- name: slack-infra\n  slack_configs:\n  - api_url: https://hooks.slack.com/services/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\n    channel: '#infra-alerts'\n    send_resolved: true\n    title: '[{{ .Status | toUpper }}] {{ .CommonLabels.alertname }}'",
        "iwDTa3UaXMrMxgWVoiwS4sMF",
    ),
    (
        "alertmanager telegram bot_token",
        "- name: telegram-night\n  telegram_configs:\n  - bot_token: 9731077167:AATaAvbZ4uaMMPlVFsL0tRqxLcNtukSV8AI\n    chat_id: -1001876543210\n    parse_mode: HTML",
        "9731077167:AATaAvbZ4uaMMPlVFsL0tRqxLcNtukSV8AI",
    ),
    (
        "grafana provisioning datasource secureJsonData",
        "apiVersion: 1\ndatasources:\n  - name: Postgres-Billing\n    type: postgres\n    uid: pg-billing\n    url: pg-billing.db:5432\n    user: grafana_ro\n    jsonData:\n      database: billing\n      sslmode: require\n      postgresVersion: 1500\n    secureJsonData:\n      password: 'Gf7Wm3Tq9Kz1Rx'",
        "Gf7Wm3Tq9Kz1Rx",
    ),
    (
        "grafana loki datasource basicAuthPassword",
        "  - name: Loki\n    type: loki\n    access: proxy\n    url: https://loki-gateway.monitoring.svc\n    basicAuth: true\n    basicAuthUser: grafana\n    secureJsonData:\n      basicAuthPassword: Gl2Vx8Rk5Tq1Wz",
        "Gl2Vx8Rk5Tq1Wz",
    ),
    # --- web servers, proxies, compose, systemd, cron ---
    (
        "nginx htpasswd bcrypt line",
        'root@edge-2:~# cat /etc/nginx/.htpasswd-prometheus\nprom:$2y$05$6cbdupSa1drtRpPz9lLf/88x2iU/ju0plKKY7K41V7vDLa1uYseBc\nroot@edge-2:~# grep auth_basic /etc/nginx/sites-enabled/prometheus.conf\n    auth_basic           "Prometheus";\n    auth_basic_user_file /etc/nginx/.htpasswd-prometheus;',
        "$2y$05$6cbdupSa1drtRpPz9lLf/88x2iU/ju0plKKY7K41V7vDLa1uYseBc",
    ),
    (
        "nginx htpasswd apr1 line",
        "# htpasswd -c /etc/nginx/.htpasswd ops\nNew password: \nRe-type new password: \nAdding password for user ops\n# cat /etc/nginx/.htpasswd\nops:$apr1$K1Ce6Qb9$5R9d7ko8tg.8ijLyFrjGm1",
        "$apr1$K1Ce6Qb9$5R9d7ko8tg.8ijLyFrjGm1",
    ),
    (
        "traefik basicauth label in compose",
        '  traefik:\n    image: traefik:v2.11\n    labels:\n      - "traefik.enable=true"\n      - "traefik.http.routers.dashboard.rule=Host(`traefik.corp.example`)"\n      - "traefik.http.routers.dashboard.service=api@internal"\n      - "traefik.http.middlewares.dash-auth.basicauth.users=admin:$$apr1$$q4iy9zMY$$erJRGiy6CXsOY3B.UYVLw."\n      - "traefik.http.routers.dashboard.middlewares=dash-auth"',
        "$$apr1$$q4iy9zMY$$erJRGiy6CXsOY3B.UYVLw.",
    ),
    (
        "docker compose environment list item",
        "services:\n  api:\n    image: registry.corp.example/shop/api:1.42.0\n    restart: unless-stopped\n    environment:\n      - NODE_ENV=production\n      - DATABASE_URL=postgres://api:Dc9Lw3Xq7Tz2Pm@postgres:5432/api\n      - LOG_LEVEL=info\n    depends_on:\n      - postgres",
        "Dc9Lw3Xq7Tz2Pm",
    ),
    (
        "systemd Environment= in unit file",
        '# /etc/systemd/system/postgres_exporter.service\n[Unit]\nDescription=Prometheus PostgreSQL exporter\nAfter=network-online.target\n\n[Service]\nUser=postgres_exporter\nEnvironment="DATA_SOURCE_NAME=postgresql://postgres_exporter:Sd4Qm8Wz1Rt6Kv@localhost:5432/postgres?sslmode=disable"\nExecStart=/usr/local/bin/postgres_exporter --web.listen-address=:9187\nRestart=always',
        "Sd4Qm8Wz1Rt6Kv",
    ),
    (
        "crontab mysqldump inline password",
        "# m h  dom mon dow   command\n15 3 * * * /usr/bin/mysqldump -u backup -pCr7Tw2Lq9Xz4Nm --single-transaction --all-databases | gzip > /backup/db-$(date +\\%F).sql.gz 2>> /var/log/db-backup.log\n0 4 * * 0 find /backup -name 'db-*.sql.gz' -mtime +14 -delete",
        "Cr7Tw2Lq9Xz4Nm",
    ),
    (
        "sshpass with ssh -i in CI job log",
        "$ sshpass -p 'Sp3Kx8Wq1Zv6Rt' ssh -i ~/.ssh/deploy_ed25519 -o StrictHostKeyChecking=no deploy@10.20.4.17 'sudo systemctl restart shop-api'\nWarning: Permanently added '10.20.4.17' (ED25519) to the list of known hosts.\nJob succeeded",
        "Sp3Kx8Wq1Zv6Rt",
    ),
    (
        "php-fpm pool env",
        "; /etc/php/8.2/fpm/pool.d/www.conf\n[www]\nuser = www-data\ngroup = www-data\nlisten = /run/php/php8.2-fpm.sock\npm = dynamic\npm.max_children = 20\nclear_env = no\nenv[DB_HOST] = mysql-shop.internal\nenv[DB_PASSWORD] = Pf3Tq7Wz1Xk9Lm\nenv[APP_ENV] = production",
        "Pf3Tq7Wz1Xk9Lm",
    ),
    # --- CI systems and package registries ---
    (
        "github actions add-mask after set -x trace",
        '2024-05-14T09:12:03.4471823Z ##[group]Run set -x\n2024-05-14T09:12:03.4471901Z set -x\n2024-05-14T09:12:03.4471934Z TOKEN=$(./scripts/mint-app-token.sh)\n2024-05-14T09:12:03.4471966Z echo "::add-mask::$TOKEN"\n2024-05-14T09:12:03.4472011Z shell: /usr/bin/bash -e {0}\n2024-05-14T09:12:03.4472049Z ##[endgroup]\n2024-05-14T09:12:03.9125517Z ++ ./scripts/mint-app-token.sh\n2024-05-14T09:12:04.3318230Z + TOKEN=ghs_j5t0ysuShfB9jWiPaMF4Cpakyh1jJxHEirlL\n2024-05-14T09:12:04.3320871Z + echo ::add-mask::***',
        "ghs_j5t0ysuShfB9jWiPaMF4Cpakyh1jJxHEirlL",
    ),
    (
        "gitlab ci job token in clone url error",
        "$ git clone https://gitlab-ci-token:glcbt-64_zatZx3YCZggwJO07yaSn@gitlab.corp.example/platform/shared-libs.git vendor/shared-libs\nCloning into 'vendor/shared-libs'...\nremote: HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password.\nfatal: Authentication failed for 'https://gitlab-ci-token:glcbt-64_zatZx3YCZggwJO07yaSn@gitlab.corp.example/platform/shared-libs.git/'\nCleaning up project directory and file based variables\nERROR: Job failed: exit code 128",
        "glcbt-64_zatZx3YCZggwJO07yaSn",
    ),
    (
        "gitlab private_token in nginx access log",
        '10.30.2.15 - - [14/May/2024:09:44:12 +0000] "GET /api/v4/projects/412/pipelines?ref=main&private_token=glpat-zXywrX45T3_1kqm2DhCM HTTP/1.1" 200 18233 "-" "python-requests/2.31.0" 0.087',
        "glpat-zXywrX45T3_1kqm2DhCM",
    ),
    (
        "npmrc authToken",
        "$ cat .npmrc\n@corp:registry=https://npm.corp.example/repository/npm-private/\n//npm.corp.example/repository/npm-private/:_authToken=npm_vRAHUzQKOJ15uwwT2JzTR6xRQrvoS0KxkPZY\nalways-auth=true\n$ npm ci\nnpm ERR! code E403",
        "npm_vRAHUzQKOJ15uwwT2JzTR6xRQrvoS0KxkPZY",
    ),
    (
        "pip.conf index-url credentials",
        "# /etc/pip.conf\n[global]\nindex-url = https://pypi-ro:Pp8Xw3Qz6Tk1Lm@nexus.corp.example/repository/pypi-all/simple\ntrusted-host = nexus.corp.example\ntimeout = 60",
        "Pp8Xw3Qz6Tk1Lm",
    ),
    (
        "gradle.properties artifactory key",
        "org.gradle.jvmargs=-Xmx3g -Dfile.encoding=UTF-8\norg.gradle.caching=true\nartifactoryUrl=https://artifactory.corp.example/artifactory\nartifactoryUser=ci-gradle\nartifactoryPassword=AKCp8V46liWUtKE5pnjhmU25D0O3OP9U8ChppMpkxTPaII3m3MoS6q0QAwbxRQzfaqYayyS3j",
        "AKCp8V46liWUtKE5pnjhmU25D0O3OP9U8ChppMpkxTPaII3m3MoS6q0QAwbxRQzfaqYayyS3j",
    ),
    (
        "go private modules netrc",
        "$ go env GOPRIVATE GONOSUMDB\ngitlab.corp.example/*\ngitlab.corp.example/*\n$ cat ~/.netrc\nmachine gitlab.corp.example\nlogin gitlab-ci-token\npassword glpat-ZxVyuqTD4bttbuvLXhjg\n$ go mod download\ngo: gitlab.corp.example/platform/authz@v1.8.2: reading https://gitlab.corp.example/platform/authz.git/info/refs: 401 Unauthorized",
        "glpat-ZxVyuqTD4bttbuvLXhjg",
    ),
    (
        "harbor robot docker login under set -x",
        "+ echo r7oSglJOQdJAls0myjxLSLqujqeINzk4\n+ docker login harbor.corp.example -u 'robot$ci+push' --password-stdin\nWARNING! Your password will be stored unencrypted in /root/.docker/config.json.\nLogin Succeeded",
        "r7oSglJOQdJAls0myjxLSLqujqeINzk4",
    ),
    # --- application frameworks and runtimes ---
    (
        "java keystore password in jvm args ps",
        "app       1187     1 12 08:01 ?        00:41:22 /usr/lib/jvm/java-17-openjdk/bin/java -Xms2g -Xmx2g -Djavax.net.ssl.keyStore=/etc/tls/ledger.p12 -Djavax.net.ssl.keyStoreType=PKCS12 -Djavax.net.ssl.keyStorePassword=Jk6Vt2Qw9Lz4Rx -Djavax.net.ssl.trustStore=/etc/tls/truststore.jks -jar /opt/ledger/ledger-service.jar",
        "Jk6Vt2Qw9Lz4Rx",
    ),
    (
        "dotnet appsettings.json connection string",
        '{\n  "Logging": {\n    "LogLevel": {\n      "Default": "Information",\n      "Microsoft.AspNetCore": "Warning"\n    }\n  },\n  "ConnectionStrings": {\n    "OrdersDb": "Server=tcp:sql-orders-prod.database.windows.net,1433;Initial Catalog=orders;Persist Security Info=False;User ID=orders_app;Password=Nt4Wq8Zr2Lx6Tk;MultipleActiveResultSets=False;Encrypt=True;Connection Timeout=30;"\n  },\n  "AllowedHosts": "*"\n}',
        "Nt4Wq8Zr2Lx6Tk",
    ),
    (
        "rails database.yml",
        'default: &default\n  adapter: postgresql\n  encoding: unicode\n  pool: <%= ENV.fetch("RAILS_MAX_THREADS") { 5 } %>\n\nproduction:\n  <<: *default\n  database: shop_production\n  username: shop\n  password: Rb7Xz3Wq9Tm1Lk\n  host: <%= ENV["DB_HOST"] %>',
        "Rb7Xz3Wq9Tm1Lk",
    ),
    (
        "rails master.key",
        "deploy@app-1:/srv/shop/current$ cat config/master.key\nf18188d87b44489a39fc882cec24b770deploy@app-1:/srv/shop/current$ RAILS_ENV=production bin/rails credentials:show\nActiveSupport::MessageEncryptor::InvalidMessage",
        "f18188d87b44489a39fc882cec24b770",
    ),
    (
        "django settings secret key",
        '# settings/production.py\nfrom .base import *  # noqa\n\nDEBUG = False\nALLOWED_HOSTS = ["shop.corp.example"]\nSECRET_KEY = \'E+X**t=O(L2D^uWw#N@^^ZEbubANVR8G)O%6szg4(Bk#z*+@+p\'\nCSRF_TRUSTED_ORIGINS = ["https://shop.corp.example"]',
        "E+X**t=O(L2D^uWw#N@^^ZEbubANVR8G)O%6szg4(Bk#z*+@+p",
    ),
    (
        "laravel .env app key",
        "APP_NAME=Helpdesk\nAPP_ENV=production\nAPP_KEY=base64:tFTjqUWDvrXeVGFrxCp4OICZm7NVvJO6R9Hpm4E3CDY=\nAPP_DEBUG=false\nAPP_URL=https://helpdesk.corp.example\n\nLOG_CHANNEL=stack",
        "tFTjqUWDvrXeVGFrxCp4OICZm7NVvJO6R9Hpm4E3CDY=",
    ),
    (
        "laravel .env mail password",
        'MAIL_MAILER=smtp\nMAIL_HOST=smtp.eu.mailgun.org\nMAIL_PORT=587\nMAIL_USERNAME=postmaster@mg.corp.example\nMAIL_PASSWORD=Lv5Tq9Wx2Rz7Km\nMAIL_ENCRYPTION=tls\nMAIL_FROM_ADDRESS="helpdesk@corp.example"',
        "Lv5Tq9Wx2Rz7Km",
    ),
    # --- SaaS agents and APIs ---
    (
        "datadog agent api_key",
        "## @param api_key - string - required\n## The Datadog API key used by your Agent to submit metrics and events to Datadog.\n#\napi_key: 446dc76300e91f0b8294c0ec9a0473e6\n\n## @param site - string - optional - default: datadoghq.com\nsite: datadoghq.eu",
        "446dc76300e91f0b8294c0ec9a0473e6",
    ),
    (
        "new relic newrelic.yml license key",
        "common: &default_settings\n  license_key: 'eu01xxe1a6579ea4bd9b35f0fcbaeac92d6dNRAL'\n  app_name: Ledger Service (prod)\n  distributed_tracing:\n    enabled: true\n  log_level: info",
        "eu01xxe1a6579ea4bd9b35f0fcbaeac92d6dNRAL",
    ),
    (
        "sentry-cli sentryclirc token",
        "$ cat ~/.sentryclirc\n[defaults]\nurl = https://sentry.corp.example/\norg = corp\nproject = shop-frontend\n\n[auth]\ntoken = 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\n$ sentry-cli releases new 2024.05.14",
        "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",
    ),
    (
        "twilio basic auth in http.client debug",
        "send: b'POST /2010-04-01/Accounts/"
        + _TWILIO_SID
        + "/Messages.json HTTP/1.1\\r\\nHost: api.twilio.com\\r\\nUser-Agent: twilio-python/8.10.0 (Linux x86_64) Python/3.11.6\\r\\nAccept-Encoding: gzip, deflate\\r\\nAccept: application/json\\r\\nConnection: keep-alive\\r\\nAccept-Charset: utf-8\\r\\nContent-Type: application/x-www-form-urlencoded\\r\\nContent-Length: 87\\r\\nAuthorization: Basic "
        + _TWILIO_BASIC
        + "\\r\\n\\r\\n'\nreply: 'HTTP/1.1 201 Created\\r\\n'",
        _TWILIO_BASIC,
    ),
    (
        "sendgrid key in python traceback source line",
        'Traceback (most recent call last):\n  File "/app/notify/tasks.py", line 88, in send_receipt\n    mailer.send(msg)\n  File "/app/notify/mailer.py", line 41, in send\n    sg = SendGridAPIClient("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")\n  File "/usr/local/lib/python3.11/site-packages/python_http_client/client.py", line 174, in _make_request\n    raise exc\npython_http_client.exceptions.UnauthorizedError: HTTP Error 401: Unauthorized',
        "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",
    ),
    (
        "mailgun curl user in CI job log",
        "$ curl -s --user 'api:key-88b8e085a40513d850df0691a0692ac5' https://api.eu.mailgun.net/v3/mg.corp.example/messages -F from='CI <ci@mg.corp.example>' -F to=release@corp.example -F subject='Release 2024.05.14 deployed' -F text='ok'\n{\"id\":\"<20240514093301.1b2c3d4e5f6a7b8c@mg.corp.example>\",\"message\":\"Queued. Thank you.\"}",
        "key-88b8e085a40513d850df0691a0692ac5",
    ),
    (
        "oauth client_secret in failed token request body",
        '2024-05-14T09:58:31.204Z WARN  [billing-svc] o.s.s.oauth2.client.endpoint: token request failed status=401 error=invalid_client uri=https://sso.corp.example/realms/corp/protocol/openid-connect/token body="grant_type=client_credentials&client_id=billing-svc&client_secret=Oa9Xq2Wt7%2BLz4Rk8Vm3%2F&scope=payments.read"',
        "Oa9Xq2Wt7%2BLz4Rk8Vm3%2F",
    ),
    # --- cloud object storage and key vaults ---
    (
        "s3 presigned url in access log",
        '10.30.4.9 - - [14/May/2024:10:11:45 +0000] "GET /exports/2024-05/ledger.csv.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAZ3EXAMPLE7Q2%2F20240514%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240514T101140Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=4f3ec624a1abc940cf6eb020d302d3eac361405867a3bcc8a6e1b5474e36156c HTTP/1.1" 200 7340032 "-" "curl/8.5.0"',
        "4f3ec624a1abc940cf6eb020d302d3eac361405867a3bcc8a6e1b5474e36156c",
    ),
    (
        "gcs signed url in app log",
        "INFO 2024-05-14 10:20:03,118 exports.py:57 signed download url: https://storage.googleapis.com/corp-exports-prod/reports/q2.parquet?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=exporter%40corp-prod.iam.gserviceaccount.com%2F20240514%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20240514T102003Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature="
        + _GOOG_SIG,
        _GOOG_SIG,
    ),
    (
        "azure key vault secret show",
        '$ az keyvault secret show --vault-name kv-prod-weu --name sql-admin-password\n{\n  "attributes": {\n    "created": "2024-02-01T12:40:17+00:00",\n    "enabled": true,\n    "recoverableDays": 90,\n    "recoveryLevel": "Recoverable",\n    "updated": "2024-02-01T12:40:17+00:00"\n  },\n  "contentType": null,\n  "id": "https://kv-prod-weu.vault.azure.net/secrets/sql-admin-password/5d1c0e8f2a3b4c7d9e6f1a2b3c4d5e6f",\n  "kid": null,\n  "managed": null,\n  "name": "sql-admin-password",\n  "tags": {},\n  "value": "Az7Qw2Lm9Xt4Rk"\n}',
        "Az7Qw2Lm9Xt4Rk",
    ),
    (
        "azure storage connection string",
        '$ az storage account show-connection-string -g rg-logs -n stprodlogs01\n{\n  "connectionString": "DefaultEndpointsProtocol=https;EndpointSuffix=core.windows.net;AccountName=stprodlogs01;AccountKey=yyVIOBUgzCb7N/XgxbiTrDphQQ6iskCFAU/Bam4uP7wKvxJ/0LCBMgkiKirWkOdAkRausH2ZuRiFycGgIiedkw==;BlobEndpoint=https://stprodlogs01.blob.core.windows.net/"\n}',
        "yyVIOBUgzCb7N/XgxbiTrDphQQ6iskCFAU/Bam4uP7wKvxJ/0LCBMgkiKirWkOdAkRausH2ZuRiFycGgIiedkw==",
    ),
]
