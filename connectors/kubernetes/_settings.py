"""Per-environment settings of the Kubernetes connector (resolved by the composition root).

A target reaches its API server one of three ways (`KubernetesTarget.mode`):

    url         `url` + an optional bearer `token`, CA bundle and client certificate
    kubeconfig  `kubeconfig_path` + `context`: server, CA and credentials of that context
    in_cluster  the pod's ServiceAccount: token, CA and namespace under `serviceaccount_dir`,
                the address from KUBERNETES_SERVICE_HOST/PORT, which the composition root
                reads (`in_cluster_address`) and passes in as `service_host`/`service_port`

Every file a target names is checked when the target is made, and each error names the
field and the path, so a bad configuration stops start-up instead of failing a turn.
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from policy.errors import ConfigError

DEFAULT_LINK = "k8s://{env}/{namespace}/{kind}/{name}"
_LINK_FIELDS = {"url": "u", "env": "e", "namespace": "n", "kind": "k", "name": "x"}
SERVICEACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
SERVICE_HOST_VAR, SERVICE_PORT_VAR = "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"

AccessMode = Literal["url", "kubeconfig", "in_cluster"]
_URL_ONLY = ("token", "ca_cert_path", "client_cert_path", "client_key_path")


class ServiceAddress(NamedTuple):
    """The in-cluster API address; its field names are the target's, so
    `KubernetesTarget(in_cluster=True, **address._asdict(), ...)` works."""

    service_host: str
    service_port: int


def in_cluster_address(environ: Mapping[str, str]) -> ServiceAddress:
    """The API server address every pod is given (KUBERNETES_SERVICE_HOST/PORT), read from
    the mapping the composition root passes in (connectors never read os.environ)."""
    host = environ.get(SERVICE_HOST_VAR, "").strip()
    port = environ.get(SERVICE_PORT_VAR, "").strip()
    missing = [
        name for name, value in ((SERVICE_HOST_VAR, host), (SERVICE_PORT_VAR, port)) if not value
    ]
    if missing:
        raise ConfigError(
            f"kubernetes in_cluster: {' and '.join(missing)} not set; the kubelet sets them in "
            "every pod, so in_cluster works only when infrabot runs in one"
        )
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError(f"kubernetes in_cluster: {SERVICE_PORT_VAR}={port!r} is not a port")
    return ServiceAddress(host.strip("[]"), int(port))


def join_host_port(host: str, port: int) -> str:
    """`host:port`, an IPv6 address in brackets (as Go's net.JoinHostPort)."""
    return f"[{host}]:{port}" if ":" in host or "%" in host else f"{host}:{port}"


def _file(value: str | None) -> str | None:
    """An existing, readable file; `~` expanded. The error names the path."""
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    if not os.access(path, os.R_OK):
        raise ValueError(f"cannot read {path}")
    return str(path)


class KubernetesTarget(BaseModel):
    """One Kubernetes API server, the one serving `env`.

    `link_template` builds the link a human opens for an object: a dashboard URL such as
    "https://k8s-dashboard.example.com/#/{kind}/{namespace}/{name}?cluster={env}" (fields:
    url, env, namespace, kind, name; namespace is "-" for cluster-scoped objects). Without
    one, links are `k8s://{env}/{namespace}/{kind}/{name}`, which names the object exactly
    and pretends to be no web page.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    env: str = Field(min_length=1)
    url: str | None = Field(default=None, pattern=r"^https?://", description="API server base URL")
    token: SecretStr | None = Field(default=None, description="bearer token, already resolved")
    verify_tls: bool = True
    ca_cert_path: str | None = Field(default=None, description="CA bundle for the API server")
    client_cert_path: str | None = Field(default=None, description="client certificate (PEM)")
    client_key_path: str | None = Field(default=None, description="its private key (PEM)")
    kubeconfig_path: str | None = Field(default=None, description="a kubeconfig file")
    context: str | None = Field(
        default=None, min_length=1, description="its context; default: current-context"
    )
    in_cluster: bool = Field(default=False, description="the pod's ServiceAccount")
    service_host: str | None = Field(default=None, min_length=1, description=SERVICE_HOST_VAR)
    service_port: int | None = Field(default=None, ge=1, le=65535, description=SERVICE_PORT_VAR)
    serviceaccount_dir: str = Field(
        default=SERVICEACCOUNT_DIR, description="where token, ca.crt and namespace are mounted"
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    link_template: str | None = None

    @field_validator("url")
    @classmethod
    def _strip(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value).netloc.rpartition("@")[1]:
            raise ValueError("put credentials in token or a client certificate, not in the URL")
        return value.rstrip("/") if value else value

    @field_validator("ca_cert_path", "client_cert_path", "client_key_path", "kubeconfig_path")
    @classmethod
    def _exists(cls, value: str | None) -> str | None:
        return _file(value)

    @field_validator("link_template")
    @classmethod
    def _link_fields(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                value.format(**_LINK_FIELDS)
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(
                    f"link_template may use only {{{'}, {'.join(_LINK_FIELDS)}}}: {exc}"
                ) from None
        return value

    @model_validator(mode="after")
    def _one_way_in(self) -> KubernetesTarget:
        given = [
            name
            for name, on in (
                ("url", self.url is not None),
                ("kubeconfig_path", self.kubeconfig_path is not None),
                ("in_cluster", self.in_cluster),
            )
            if on
        ]
        if not given:
            raise ValueError("give url, kubeconfig_path or in_cluster: true")
        if len(given) > 1:
            raise ValueError(
                f"{' and '.join(given)} both given: give one way to reach the API server"
            )
        if self.context is not None and self.kubeconfig_path is None:
            raise ValueError("context without kubeconfig_path: a context names an entry of one")
        if (self.client_cert_path is None) != (self.client_key_path is None):
            raise ValueError(
                "client_cert_path and client_key_path: give both for a client certificate, "
                "or neither"
            )
        if self.ca_cert_path is not None and not self.verify_tls:
            raise ValueError(
                "ca_cert_path with verify_tls: false: a CA bundle is used only to verify"
            )
        mode = self.mode
        if mode != "url":
            wrong = [name for name in _URL_ONLY if getattr(self, name) is not None]
            wrong += [] if self.verify_tls else ["verify_tls"]
            if wrong:
                source = "the kubeconfig context" if mode == "kubeconfig" else "the ServiceAccount"
                raise ValueError(
                    f"{', '.join(wrong)}: for url targets only; with {mode} {source} gives "
                    "the credentials and the CA"
                )
        if mode == "in_cluster":
            self._check_service_account()
        else:
            extra = [name for name in ("service_host", "service_port") if getattr(self, name)]
            extra += [] if self.serviceaccount_dir == SERVICEACCOUNT_DIR else ["serviceaccount_dir"]
            if extra:
                raise ValueError(f"{', '.join(extra)}: for in_cluster targets only")
        if mode == "kubeconfig":
            self._check_context()
            if self.link_template and "url" in _fields_of(self.link_template):
                raise ValueError(
                    "link_template: {url} is unknown for a kubeconfig target (the server is "
                    "read from the file when connecting); write the dashboard's address out"
                )
        return self

    def _check_service_account(self) -> None:
        missing = [name for name in ("service_host", "service_port") if getattr(self, name) is None]
        if missing:
            raise ValueError(
                f"{' and '.join(missing)} required with in_cluster: pass "
                f"{SERVICE_HOST_VAR}/{SERVICE_PORT_VAR} (in_cluster_address reads them)"
            )
        for name in ("token", "ca.crt"):
            try:
                _file(str(Path(self.serviceaccount_dir) / name))
            except ValueError as exc:
                raise ValueError(f"serviceaccount_dir: {exc}") from None

    def _check_context(self) -> None:
        contexts, current = kubeconfig_contexts(str(self.kubeconfig_path))
        wanted = self.context or current
        if wanted is None:
            raise ValueError(
                f"context: {self.kubeconfig_path} sets no current-context; name one of "
                f"{sorted(contexts)}"
            )
        if wanted not in contexts:
            raise ValueError(
                f"context: no context {wanted!r} in {self.kubeconfig_path} "
                f"(it has {sorted(contexts)})"
            )

    @property
    def mode(self) -> AccessMode:
        if self.in_cluster:
            return "in_cluster"
        return "kubeconfig" if self.kubeconfig_path is not None else "url"

    @property
    def api_url(self) -> str | None:
        """The API server's address when the settings say it (not for a kubeconfig target,
        whose server is read from the file when connecting)."""
        if self.in_cluster and self.service_host and self.service_port:
            return f"https://{join_host_port(self.service_host, self.service_port)}"
        return self.url

    def link(self, kind: str, name: str, namespace: str | None = None) -> str:
        return (self.link_template or DEFAULT_LINK).format(
            url=self.api_url or "",
            env=self.env,
            namespace=namespace or "-",
            kind=kind.lower(),
            name=name,
        )


def _fields_of(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def kubeconfig_contexts(path: str) -> tuple[dict[str, dict[str, Any]], str | None]:
    """The contexts of a kubeconfig file by name and its current-context (None when it sets
    none: then a target must name its context); a file that is not one is a ValueError
    naming kubeconfig_path. Read here with YAML only, because the official lister insists on
    a current-context that the loader does not need when given a context."""
    import yaml

    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        # the parser's message may quote the file (a token): only its class is shown
        raise ValueError(
            f"kubeconfig_path: {path} could not be read as a kubeconfig ({type(exc).__name__})"
        ) from None
    listed = doc.get("contexts") if isinstance(doc, dict) else None
    if not isinstance(listed, list):
        raise ValueError(f"kubeconfig_path: {path} is not a kubeconfig (no contexts list)")
    contexts = {
        str(c["name"]): dict(c.get("context") or {})
        for c in listed
        if isinstance(c, dict) and c.get("name")
    }
    current = doc.get("current-context")
    return contexts, str(current) if current else None
