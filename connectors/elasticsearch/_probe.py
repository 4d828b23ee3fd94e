"""`doctor` for a log source: the server, which index plays each role, its layout, and the
fields the tools filter on that it lacks."""

from __future__ import annotations

from datetime import datetime, timedelta

from connectors.elasticsearch._discovery import IndexRole
from connectors.elasticsearch._facts import POD_FIELDS
from connectors.elasticsearch._layout import APP_PRESETS, EDGE_PRESETS, Layout, LogField, Preset
from connectors.elasticsearch._reader import LogReader
from connectors.elasticsearch._settings import ElasticsearchTarget
from policy.errors import SourceError
from policy.probe import Probe

LOOKBACK = timedelta(days=7)  # the fields of the indices written this week
F = LogField
# role -> (what it is called, the logical fields its tools rely on, the presets of its kind)
NEEDS: dict[IndexRole, tuple[str, tuple[LogField, ...], tuple[Preset, ...]]] = {
    IndexRole.EDGE_ACCESS: (
        "edge access log",
        (F.STATUS, F.HOST, F.PATH, F.REQUEST_ID, F.UPSTREAM),
        EDGE_PRESETS,
    ),
    IndexRole.EDGE_ERROR: ("edge error log", (F.MESSAGE,), EDGE_PRESETS),
    IndexRole.APP: ("application log", (F.MESSAGE, F.LEVEL, F.REQUEST_ID), APP_PRESETS),
    IndexRole.AUDIT: ("Kubernetes audit log", (), ()),
}


def _how(target: ElasticsearchTarget, role: IndexRole) -> str:
    if target.configured(role.value):
        return "configured"
    return "found by its fields" if role.value in target.discovered else "default"


def _lacks(label: str, pattern: str, layout: Layout, needs: tuple[LogField, ...]) -> list[str]:
    out = [
        f"{label} ({pattern}): no field for {name.value} "
        f"(looked for {', '.join(layout.candidates.get(name, ()))})"
        for name in layout.lacking(needs)
    ]
    return out


async def probe(target: ElasticsearchTarget, now: datetime) -> Probe:
    reader = LogReader(target)
    try:
        try:
            version = await reader.version()
        except SourceError as err:
            return Probe(source="logs", env=target.env, answered=False, detail=err.reason)
        resolved = await reader.resolved()
        found: list[str] = []
        missing: list[str] = []
        for role, (label, needs, presets) in NEEDS.items():
            pattern = getattr(resolved, role.value)
            if not pattern:
                missing.append(f"{label}: no index configured or found by its fields")
                continue
            layout = await reader.layout(pattern, now - LOOKBACK, now)
            if layout.types is None:
                missing.append(
                    f"{label} ({pattern}, {_how(resolved, role)}): no document in the last "
                    f"{LOOKBACK.days} days, or the pattern is not served"
                )
                continue
            preset = layout.preset(presets)
            shape = f"; layout {preset.value if preset else 'flat'}" if presets else ""
            found.append(f"{label}: {pattern} ({_how(resolved, role)}{shape})")
            missing += _lacks(label, pattern, layout, needs)
            if role is IndexRole.APP and not any(f in layout.types for f in POD_FIELDS):
                missing.append(
                    f"{label} ({pattern}): no Kubernetes pod metadata "
                    f"(looked for {', '.join(POD_FIELDS)}): lines are placed by service only"
                )
        return Probe(
            source="logs",
            env=target.env,
            answered=True,
            detail=version,
            found=found,
            missing=missing,
        )
    finally:
        await reader.aclose()
