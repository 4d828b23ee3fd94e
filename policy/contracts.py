"""Tool contracts: a pydantic argument model (-> JSON Schema) plus the `x-agent` block.

The JSON Schema a model sees, and that the gate enforces, is generated from the argument
model with `additionalProperties: false` everywhere. The `x-agent` block is data, not
prose: admission and the planner read it; a description saying "safe" grants nothing.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from policy.vocabulary import KIND_FACETS, Facet

Freshness = Literal["live", "sample_time", "event_time", "snapshot"]
"""Where a result's observed_at comes from: the moment of the read (`live`), the metric
sample timestamps (`sample_time`), the time stamped on each log line or event
(`event_time`), or a stored snapshot with its own time (`snapshot`)."""

_NOT_IN_NAMES = re.compile(r"[^a-z0-9_]")
_UNDERSCORES = re.compile(r"_{2,}")


def name_part(text: str) -> str:
    """`text` as one part of a tool name (`^[a-z][a-z0-9_.]`): lower case, anything else
    an underscore, runs of them one (`__` is how a dot travels to a model and back), none
    at the ends. What an outside name (an MCP server's, its tools') becomes in ours."""
    return _UNDERSCORES.sub("_", _NOT_IN_NAMES.sub("_", text.lower())).strip("_")


NegativeSemantics = Literal["none", "complete_read", "exact_count"]
"""What an empty result can prove. `none`: never absence. `complete_read`: absence when the
runtime coverage says the scope was read completely. `exact_count`: absence when the source
reported an exact total (not a lower bound) and every hit was read."""

OutputKind = Literal["objects", "events", "log_lines", "series", "timeline", "probe", "table"]


class AgentMeta(BaseModel):
    """The operational `x-agent` block of a tool contract."""

    model_config = ConfigDict(extra="forbid")

    evidence: list[str] = Field(description="evidence kinds this tool can close")
    facets: dict[str, Facet] = Field(
        default_factory=dict,
        description="the facet of each evidence kind it declares that the shared vocabulary "
        "(policy/vocabulary.py) does not name: how a new source joins the baseline of every "
        "plan without a change to any plan",
    )
    sources: list[str] = Field(description="backends read, e.g. ['kubernetes']")
    output_kind: OutputKind
    freshness: Freshness
    negative_semantics: NegativeSemantics
    supports_history: bool
    current_only: bool
    read_only: bool | None = Field(
        default=None, description="must be explicitly true to be admitted (fail closed)"
    )
    admin_only: bool = False

    def facet_of(self, kind: str) -> Facet | None:
        """The facet of an evidence kind as this tool declares it, else as the shared
        vocabulary names it."""
        return self.facets.get(kind) or KIND_FACETS.get(kind)


def _close_objects(schema: dict[str, Any]) -> dict[str, Any]:
    """Set additionalProperties=false on every object schema, recursively."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            schema.setdefault("additionalProperties", False)
        for value in schema.values():
            if isinstance(value, dict):
                _close_objects(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, dict):
                        _close_objects(item)
    return schema


@functools.cache
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """pydantic regenerates a model's schema on every call (2 ms for ours); an argument
    model is a class that never changes, so once per process is enough. Callers copy."""
    return model.model_json_schema()


class ToolContract(BaseModel):
    """Name, description, argument model and x-agent block of one tool."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_.]{2,63}$")
    description: str
    args_model: type[BaseModel]
    agent: AgentMeta
    enums: dict[str, list[str]] = Field(
        default_factory=dict,
        description="closed sets known only at run time (configured envs), by field name",
    )

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, built once per contract and shared by every
        reader (the gate's validator, routing, the model's tool list): do not mutate it."""
        return self._schema

    @functools.cached_property
    def _schema(self) -> dict[str, Any]:
        schema = copy.deepcopy(_model_schema(self.args_model))
        props = schema.get("properties", {})
        for field, values in self.enums.items():
            if field in props:
                props[field]["enum"] = list(values)
        return _close_objects(schema)

    def serves_env(self, env: str | None) -> bool:
        """A tool whose `env` is a closed set serves only its members; one without (GitLab,
        a skill) serves every env."""
        return env is None or env in self.enums.get("env", [env])

    def evidence_for(self, kinds: Collection[str]) -> list[str]:
        """The evidence kinds this tool declares that `kinds` accepts, in its own order."""
        return [k for k in self.agent.evidence if k in kinds]

    def serves(self, kinds: Collection[str], env: str | None = None) -> bool:
        """Does this tool serve an objective that accepts `kinds` (in `env`, when given)?
        The one home of that question: routing, the guard and the model planner ask it."""
        return self.serves_env(env) and bool(self.evidence_for(kinds))

    def describe(self) -> dict[str, Any]:
        """The contract as shown to a model and by `infrabot tools`."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema(),
            "x-agent": self.agent.model_dump(),
        }
