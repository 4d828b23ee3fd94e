"""What a turn is configured with (bot.wiring builds it from the settings file)."""

from __future__ import annotations

from dataclasses import dataclass

from planner.turn.investigation import InvestigationSettings


@dataclass(frozen=True)
class TurnSettings:
    investigation: InvestigationSettings
    envs: list[str]
    env_aliases: dict[str, list[str]]
    timezone: str
