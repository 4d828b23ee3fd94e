"""Per-environment settings of the Kubernetes connector (resolved by the composition root)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

DEFAULT_LINK = "k8s://{env}/{namespace}/{kind}/{name}"
_LINK_FIELDS = {"url": "u", "env": "e", "namespace": "n", "kind": "k", "name": "x"}


class KubernetesTarget(BaseModel):
    """One Kubernetes API server, the one serving `env`.

    `link_template` builds the link a human opens for an object: a dashboard URL such as
    "https://k8s-dashboard.example.com/#/{kind}/{namespace}/{name}?cluster={env}" (fields:
    url, env, namespace, kind, name; namespace is "-" for cluster-scoped objects). Without
    one, links are `k8s://{env}/{namespace}/{kind}/{name}`, which names the object exactly
    and pretends to be no web page.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://", description="API server base URL")
    token: SecretStr | None = Field(default=None, description="bearer token, already resolved")
    verify_tls: bool = True
    ca_cert_path: str | None = Field(default=None, description="CA bundle for the API server")
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    link_template: str | None = None

    @field_validator("url")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.rstrip("/")

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

    def link(self, kind: str, name: str, namespace: str | None = None) -> str:
        return (self.link_template or DEFAULT_LINK).format(
            url=self.url, env=self.env, namespace=namespace or "-", kind=kind.lower(), name=name
        )
