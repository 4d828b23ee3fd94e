"""One turn of a conversation, as every surface hands it to the planner."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field


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
    role: Literal["engineer", "admin"] = "engineer"
    channel: str = "cli"
    root_id: str = "cli"
    now: AwareDatetime  # a naive clock would mix up time zones in every window
    thread: list[ThreadMessage] = Field(default_factory=list)
