"""What `infrabot doctor` learns of one source: does it answer, what it holds, what is missing.

Each connector probes its own system (it knows the client and the layouts); the command
line only renders the probes. A missing item names what was looked for, so an operator
can add it or configure where it is.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class ProbeStatus(StrEnum):
    OK = "ok"  # answered, and everything the tools read is there
    INCOMPLETE = "incomplete"  # answered, but some of what the tools read is missing
    FAILED = "failed"  # did not answer (the reason is in detail)


class Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="kubernetes, metrics, logs, gitlab")
    env: str | None = Field(default=None, description="None: one instance for every env")
    answered: bool
    detail: str = Field(description="the server and version, or why it did not answer")
    found: list[str] = Field(default_factory=list, description="what the tools will read")
    missing: list[str] = Field(default_factory=list, description="what was looked for, absent")

    @property
    def status(self) -> ProbeStatus:
        if not self.answered:
            return ProbeStatus.FAILED
        return ProbeStatus.INCOMPLETE if self.missing else ProbeStatus.OK
