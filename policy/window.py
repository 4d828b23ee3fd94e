"""The arguments every environment-scoped tool shares: `env`, and an optional window.

One definition for every connector, so the JSON Schema a model sees says the same thing
for each tool and a window that ends before it starts is refused the same way (by the
gate, naming the field) wherever it is sent.
"""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from policy.vocabulary import ARGUMENT_NAMES


class EnvArgs(BaseModel):
    """`env`: closed to the configured environments by the contract's run-time enum."""

    model_config = ConfigDict(extra="forbid")

    env: str = Field(description=ARGUMENT_NAMES["env"])


class WindowArgs(EnvArgs):
    """`env` plus an optional [start, end]; the question's window where left out."""

    start: AwareDatetime | None = Field(default=None, description=ARGUMENT_NAMES["start"])
    end: AwareDatetime | None = Field(default=None, description=ARGUMENT_NAMES["end"])

    @model_validator(mode="after")
    def _ordered(self) -> WindowArgs:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError("start must not be after end")
        return self
