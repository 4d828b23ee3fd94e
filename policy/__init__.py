"""Shared vocabulary: scope, contracts, results, the tool-set interface, the gate,
redaction. Imports nothing else of ours."""

from policy.contracts import AgentMeta, ToolContract
from policy.errors import (
    ConfigError,
    SourceError,
    SourceForbidden,
    SourceMalformed,
    SourceNotFound,
    SourceTimeout,
    SourceUnavailable,
    SourceUnsupported,
)
from policy.gate import PolicyGate
from policy.results import Coverage, Entity, Relation, ResultFact, ToolResult
from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext, FunctionTool, Tool, ToolSet

__all__ = [
    "AgentMeta",
    "CallContext",
    "ConfigError",
    "Coverage",
    "Entity",
    "FunctionTool",
    "PolicyGate",
    "Relation",
    "ResultFact",
    "Scope",
    "SourceError",
    "SourceForbidden",
    "SourceMalformed",
    "SourceNotFound",
    "SourceTimeout",
    "SourceUnavailable",
    "SourceUnsupported",
    "TimeSpec",
    "Tool",
    "ToolContract",
    "ToolResult",
    "ToolSet",
]
