"""Bad access settings stop start-up with an error that names the field (and the path)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from connectors.gitlab import GitLabTarget
from connectors.kubernetes import KubernetesTarget
from connectors.victoriametrics import MetricsTarget

URL = "https://k8s.example.com"


def k8s_error(**fields: Any) -> str:
    with pytest.raises(ValueError) as caught:
        KubernetesTarget(env="dc-a", **fields)
    return str(caught.value)


@pytest.fixture
def pem(tmp_path: Path) -> Path:
    path = tmp_path / "client.pem"
    path.write_text("-----BEGIN CERTIFICATE-----\n")
    return path


@pytest.fixture
def kubeconfig(tmp_path: Path) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        "clusters: [{name: a, cluster: {server: 'https://a.example'}}]\n"
        "users: [{name: a, user: {token: t}}]\n"
        "contexts: [{name: ctx-a, context: {cluster: a, user: a}}]\n"
    )
    return path


def test_one_way_to_reach_the_api_server(kubeconfig: Path) -> None:
    assert "url and kubeconfig_path both given" in k8s_error(
        url=URL, kubeconfig_path=str(kubeconfig), context="ctx-a"
    )
    assert "url and in_cluster both given" in k8s_error(url=URL, in_cluster=True)
    assert "give url, kubeconfig_path or in_cluster" in k8s_error()


def test_kubeconfig_fields(kubeconfig: Path, pem: Path) -> None:
    assert "context without kubeconfig_path" in k8s_error(url=URL, context="ctx-a")
    # no current-context in the file: the target must name one
    assert "context: " in k8s_error(kubeconfig_path=str(kubeconfig))
    assert "sets no current-context" in k8s_error(kubeconfig_path=str(kubeconfig))
    target = KubernetesTarget(env="dc-a", kubeconfig_path=str(kubeconfig), context="ctx-a")
    assert target.mode == "kubeconfig" and target.api_url is None
    # credentials come from the context, never beside it
    assert "token: for url targets only" in k8s_error(
        kubeconfig_path=str(kubeconfig), context="ctx-a", token="x"
    )
    assert "ca_cert_path: for url targets only" in k8s_error(
        kubeconfig_path=str(kubeconfig), context="ctx-a", ca_cert_path=str(pem)
    )
    assert "link_template: {url} is unknown" in k8s_error(
        kubeconfig_path=str(kubeconfig), context="ctx-a", link_template="{url}/{name}"
    )


def test_client_certificate_needs_its_key_and_files_must_exist(pem: Path, tmp_path: Path) -> None:
    assert "client_cert_path and client_key_path: give both" in k8s_error(
        url=URL, client_cert_path=str(pem)
    )
    missing = tmp_path / "absent.key"
    text = k8s_error(url=URL, client_cert_path=str(pem), client_key_path=str(missing))
    assert re.search(rf"client_key_path\n.*no such file: {re.escape(str(missing))}", text)
    text = k8s_error(url=URL, ca_cert_path=str(tmp_path / "ca.crt"))
    assert "ca_cert_path" in text and str(tmp_path / "ca.crt") in text
    assert "ca_cert_path with verify_tls: false" in k8s_error(
        url=URL, ca_cert_path=str(pem), verify_tls=False
    )
    target = KubernetesTarget(
        env="dc-a", url=URL, client_cert_path=str(pem), client_key_path=str(pem)
    )
    assert target.mode == "url" and target.api_url == URL


def test_in_cluster_fields(tmp_path: Path) -> None:
    assert "service_host and service_port required with in_cluster" in k8s_error(
        in_cluster=True, serviceaccount_dir=str(tmp_path)
    )
    assert "service_host, service_port: for in_cluster targets only" in k8s_error(
        url=URL, service_host="10.0.0.1", service_port=443
    )
    # a composition root may pass every field, unset ones as None or their default
    unset = {"service_host": None, "service_port": None, "kubeconfig_path": None}
    target = KubernetesTarget(env="dc-a", url=URL, token=None, context=None, **unset)
    assert target.mode == "url"


def test_a_token_is_never_echoed_in_a_validation_error() -> None:
    text = k8s_error(url="ftp://k8s.example.com", token="s3cr3t-token")
    assert "url" in text and "s3cr3t" not in text


def metrics_error(**fields: Any) -> str:
    with pytest.raises(ValueError) as caught:
        MetricsTarget(env="dc-a", url="https://vm.example.com", **fields)
    return str(caught.value)


def test_metrics_one_way_to_authenticate(tmp_path: Path) -> None:
    assert "username and password: give both" in metrics_error(username="reader")
    assert "username and password: give both" in metrics_error(password="hunter2")
    text = metrics_error(username="reader", password="hunter2", bearer_token="tok-hunter2")
    assert "bearer_token and username/password" in text and "hunter2" not in text
    text = metrics_error(ca_cert_path=str(tmp_path / "ca.pem"))
    assert "ca_cert_path" in text and str(tmp_path / "ca.pem") in text
    (tmp_path / "junk.pem").write_text("not a certificate")
    assert "is not a PEM CA bundle" in metrics_error(ca_cert_path=str(tmp_path / "junk.pem"))
    with pytest.raises(ValueError) as caught:
        MetricsTarget(env="dc-a", url="https://reader:hunter2@vm.example.com")
    assert "not in the URL" in str(caught.value) and "hunter2" not in str(caught.value)
    target = MetricsTarget(env="dc-a", url="https://vm", username="reader", password="hunter2")
    assert "hunter2" not in repr(target)


def test_gitlab_projects_map_is_normalised_and_checked() -> None:
    target = GitLabTarget(
        url="https://gitlab.example.com", projects={"Service-A": "/payments/service-a/"}
    )
    assert target.projects == {"service-a": "payments/service-a"}
    assert target.project_of("service-a") == "payments/service-a"
    assert target.project_of("service-b") is None  # found by the name search
    with pytest.raises(ValueError, match=r"projects\.service-a: '' is not a project path"):
        GitLabTarget(url="https://gitlab.example.com", projects={"service-a": ""})


@pytest.mark.parametrize(
    "url", ["https://reader:hunter2@es.example.com", "https://hunter2@es.example.com:9200"]
)
def test_no_target_takes_credentials_in_its_url(url: str) -> None:
    """Each source has a secret setting for them; in a URL they would reach links and logs."""
    from connectors.elasticsearch import ElasticsearchTarget

    for make in (
        lambda: ElasticsearchTarget(env="dc-a", url=url),
        lambda: ElasticsearchTarget(env="dc-a", url="https://es", kibana_url=url),
        lambda: KubernetesTarget(env="dc-a", url=url),
        lambda: MetricsTarget(env="dc-a", url=url),
    ):
        with pytest.raises(ValueError) as caught:
            make()
        assert "not in the URL" in str(caught.value)
        assert "hunter2" not in str(caught.value)
