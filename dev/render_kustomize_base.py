"""Write deploy/kustomize/base from the Helm chart, so the two cannot drift.

    .venv/bin/python dev/render_kustomize_base.py          # rewrite the base
    .venv/bin/python dev/render_kustomize_base.py --check  # exit 1 if it is stale

The chart (deploy/helm/infrabot) is the one source; the base is the chart rendered with
`BASE_VALUES` (an in-cluster Kubernetes source, Mattermost, the Secret
`infrabot-secrets`), one file per template, for teams without Helm. Rendering uses
Helm's own Go SDK through the `helm-python-sdk` wheel (a dev dependency): no helm binary.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import helm_python as helm

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "deploy" / "helm" / "infrabot"
BASE = ROOT / "deploy" / "kustomize" / "base"
RELEASE, NAMESPACE = "infrabot", "infrabot"
BASE_VALUES: dict[str, Any] = {
    "existingSecret": "infrabot-secrets",
    "config": {
        "timezone": "UTC",
        "environments": {"example": {"kubernetes": {"in_cluster": True}}},
        "mattermost": {"url": "https://mattermost.example.com", "team": "sre"},
    },
}
HEADER = "# Rendered from deploy/helm/infrabot by dev/render_kustomize_base.py: do not edit.\n"


def render(values: dict[str, Any] | None = None) -> dict[str, str]:
    """Template file name -> rendered manifest (NOTES.txt left out)."""
    with helm.Chart.load(str(CHART)) as chart:
        out = chart.render(values or BASE_VALUES, name=RELEASE, namespace=NAMESPACE)
    return {
        Path(path).name: text.strip() + "\n"
        for path, text in sorted(out.items())
        if path.endswith(".yaml") and text.strip()
    }


def base_files() -> dict[str, str]:
    files = {name: HEADER + text for name, text in render().items()}
    listed = "".join(f"  - {name}\n" for name in files)
    files["kustomization.yaml"] = (
        HEADER
        + "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        + f"namespace: {NAMESPACE}\nresources:\n{listed}"
    )
    return files


def main(argv: list[str]) -> int:
    files = base_files()
    if "--check" in argv:
        stale = [
            name
            for name, text in files.items()
            if not (BASE / name).is_file() or (BASE / name).read_text() != text
        ]
        extra = sorted(p.name for p in BASE.glob("*.yaml") if p.name not in files)
        if stale or extra:
            print(f"deploy/kustomize/base is stale: {stale + extra}; run {Path(__file__).name}")
            return 1
        return 0
    BASE.mkdir(parents=True, exist_ok=True)
    for old in BASE.glob("*.yaml"):
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        (BASE / name).write_text(text)
    print(f"wrote {len(files)} files to {BASE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
