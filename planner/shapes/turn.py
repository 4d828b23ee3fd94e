"""One turn of a conversation, as every surface hands it to the planner."""

from __future__ import annotations

from datetime import datetime

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from policy.language import Language
from policy.toolset import Role


class ThreadMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    author: str
    text: str
    is_bot: bool = False
    at: datetime | None = None


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    user: str
    role: Role = "engineer"
    channel: str = "cli"
    root_id: str = "cli"
    now: AwareDatetime  # a naive clock would mix up time zones in every window
    thread: list[ThreadMessage] = Field(default_factory=list)
    language: Language | None = Field(
        default=None,
        description="the answer's language when the surface decides it (an alert's route); "
        "else the asker's",
    )
