"""How one target reaches its API server: a `Configuration` of its own, never the SDK's
global default, so environments with different clusters and credentials share a process.

    url         host, bearer token, CA bundle and client certificate from the target
    kubeconfig  the official loader (`load_kube_config(config_file, context,
                client_configuration=ours, persist_config=False)`): server, CA, client
                certificate, token or exec plugin of that context; the file is never written
    in_cluster  the official in-cluster loader reads the ServiceAccount's token and CA under
                `serviceaccount_dir`, with the address the target was given; then our
                `TokenFile` hook replaces its refresh, so the token is re-read whenever the
                file changes (projected tokens rotate about hourly; the official loader
                re-reads only on a one-minute timer, and a kubelet may swap the file sooner)

A kubeconfig or ServiceAccount that cannot be loaded is a `ConfigError` naming the field.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

import structlog
from kubernetes.client.configuration import Configuration
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.incluster_config import (
    SERVICE_HOST_ENV_NAME,
    SERVICE_PORT_ENV_NAME,
    InClusterConfigLoader,
)
from kubernetes.config.kube_config import load_kube_config

from connectors.kubernetes._settings import KubernetesTarget, kubeconfig_contexts
from policy.errors import ConfigError

log = structlog.get_logger(__name__)

TOKEN_KEY = "BearerToken"  # the client's auth setting that becomes the Authorization header


@dataclass(frozen=True)
class Access:
    """A target's own client configuration, and the namespace its credentials belong to
    (the ServiceAccount's, or the kubeconfig context's; None for a url target)."""

    config: Configuration
    home_namespace: str | None


def build_access(target: KubernetesTarget, *, pool_size: int) -> Access:
    config = Configuration()  # a new one, not a copy of (nor stored as) the default
    home: str | None = None
    match target.mode:
        case "url":
            _url(target, config)
        case "kubeconfig":
            home = _kubeconfig(target, config)
        case "in_cluster":
            home = _in_cluster(target, config)
        case never:
            assert_never(never)
    config.retries = False
    config.connection_pool_maxsize = pool_size
    log.debug("k8s.access", env=target.env, mode=target.mode, host=config.host, namespace=home)
    return Access(config, home)


def _url(target: KubernetesTarget, config: Configuration) -> None:
    config.host = str(target.url)
    config.verify_ssl = target.verify_tls
    config.ssl_ca_cert = target.ca_cert_path
    config.cert_file = target.client_cert_path
    config.key_file = target.client_key_path
    if target.token is not None:
        config.api_key = {TOKEN_KEY: target.token.get_secret_value()}
        config.api_key_prefix = {TOKEN_KEY: "Bearer"}


def _kubeconfig(target: KubernetesTarget, config: Configuration) -> str | None:
    path = str(target.kubeconfig_path)
    where = f"kubernetes {target.env}: kubeconfig_path {path}"
    try:
        contexts, current = kubeconfig_contexts(path)
        load_kube_config(  # type: ignore[no-untyped-call]  # the kubernetes SDK ships no types
            config_file=path,
            context=target.context,
            client_configuration=config,
            persist_config=False,  # read-only: a refreshed token is never written back
        )
    except ValueError as exc:
        raise ConfigError(f"kubernetes {target.env}: {exc}") from None
    except ConfigException as exc:
        raise ConfigError(f"{where}, context {target.context or current!r}: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{where}: {type(exc).__name__} {exc.filename or ''}".rstrip()) from None
    namespace = contexts.get(str(target.context or current), {}).get("namespace")
    return str(namespace) if namespace else None


def _in_cluster(target: KubernetesTarget, config: Configuration) -> str | None:
    folder = Path(target.serviceaccount_dir)
    token = TokenFile(folder / "token")
    loader = InClusterConfigLoader(  # type: ignore[no-untyped-call]  # SDK ships no types
        token_filename=str(folder / "token"),
        cert_filename=str(folder / "ca.crt"),
        try_refresh_token=False,  # ours below re-reads on change, not on a timer
        environ={
            SERVICE_HOST_ENV_NAME: str(target.service_host),
            SERVICE_PORT_ENV_NAME: str(target.service_port),
        },
    )
    try:
        loader.load_and_set(config)  # type: ignore[no-untyped-call]  # SDK ships no types
        token.refresh(config)
    except (ConfigException, ConfigError, OSError) as exc:
        raise ConfigError(f"kubernetes {target.env}: serviceaccount_dir {folder}: {exc}") from None
    config.refresh_api_key_hook = token.refresh  # type: ignore[assignment]  # SDK types it None
    namespace_file = folder / "namespace"
    try:
        namespace = namespace_file.read_text(encoding="utf-8").strip()
    except OSError:
        return None  # optional: only a projected ServiceAccount volume has it
    return namespace or None


class TokenFile:
    """A bearer token kept in a file, re-read when the file changes: checked (one stat)
    before every request, read again only when its identity, size or time differ.

    The kubelet rotates a projected token by pointing the `..data` symlink at a new
    directory: the path then names a new file, which the stat (following links) sees.
    A file that cannot be read or is empty keeps the token read last: if that one has
    expired, the API server answers 401, which is a gap naming the credentials."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int, int] | None = None
        self._token: str | None = None
        self._failing = False  # said once per failure, not once per request

    def current(self) -> str:
        with self._lock:
            try:
                info = os.stat(self.path)
                stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
                if stamp != self._stamp:
                    text = self.path.read_text(encoding="utf-8").strip()
                    if not text:
                        raise ValueError("the token file is empty")
                    if self._token is not None:
                        log.info("k8s.token_reloaded", path=str(self.path))
                    self._token, self._stamp = text, stamp
                self._failing = False
            except (OSError, ValueError) as exc:
                if self._token is None:
                    raise ConfigError(f"cannot read the token {self.path}: {exc}") from None
                if not self._failing:
                    log.warning(
                        "k8s.token_unreadable", path=str(self.path), error=type(exc).__name__
                    )
                self._failing = True
            assert self._token is not None
            return self._token

    def refresh(self, config: Configuration) -> None:
        """The client's `refresh_api_key_hook`: called before it builds each request's
        Authorization header."""
        config.api_key[TOKEN_KEY] = f"Bearer {self.current()}"
