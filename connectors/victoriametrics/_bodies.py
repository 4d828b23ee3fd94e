"""The Prometheus HTTP API's answer (as VictoriaMetrics sends it), typed where it enters
the connector (`_client`): the envelope every endpoint shares, and the `data` of a query
and of a label listing. `_client` reads these into `Series` and `QueryResult`; a body of
another shape ends there as SourceMalformed.
"""

from __future__ import annotations

from typing import Literal, TypedDict

# [unix seconds, the value as text] (a JSON array of two)
Sample = list[float | str]


class SeriesBody(TypedDict, total=False):
    metric: dict[str, str]
    value: Sample  # an instant vector's one sample
    values: list[Sample]  # a range matrix's samples


class SeriesData(TypedDict):
    resultType: Literal["vector", "matrix"]
    result: list[SeriesBody]


class ScalarData(TypedDict):
    resultType: Literal["scalar", "string"]
    result: Sample


class ApiBody(TypedDict, total=False):
    """What every endpoint answers around its data."""

    status: Literal["success", "error"]
    errorType: str
    error: str
    warnings: list[str]


class QueryBody(ApiBody, total=False):
    data: SeriesData | ScalarData


class LabelsBody(ApiBody, total=False):
    data: list[str]
