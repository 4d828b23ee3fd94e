"""`--model-url URL --model NAME [--finalizer-model NAME] [--planning free]`: model mode
from the command line.

The same flags on `ask`, `demo` and `eval`. They need no configuration file: on the
demo world (or any world file) they become the `models` section of the generated
configuration; with `--config` they replace that file's `models.planner` and
`models.finalizer`. The key, when the server wants one, is read from
INFRABOT_LLM_API_KEY, never from a flag (it would show in `ps` and shell history).
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.settings import DEFAULT_MODEL_KEY_ENV, InfrabotConfig, ModelSettings
from planner import Planning


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "model mode",
        f"an OpenAI-compatible server (vLLM, Ollama, llama.cpp); key from {DEFAULT_MODEL_KEY_ENV}",
    )
    group.add_argument("--model-url", help="base URL, e.g. http://127.0.0.1:8000/v1")
    group.add_argument("--model", help="the planner model's name on that server")
    group.add_argument(
        "--finalizer-model",
        help="a second model on the same server: writes the prose, takes over planning "
        "when the planner fails",
    )
    group.add_argument(
        "--model-timeout", type=float, default=None, help="seconds for one model call (default 30)"
    )
    group.add_argument(
        "--planning",
        choices=[p.value for p in Planning],
        default=None,
        help="auto (default): deterministic plans first, the model plans what they leave "
        "open or do not cover; free: the model plans every objective, the deterministic "
        "plan is its todo list (measures model mode on any scenario)",
    )


def _flags(args: argparse.Namespace) -> dict[str, Any] | None:
    """The `models` section the flags ask for, or None without --model-url."""
    url = getattr(args, "model_url", None)
    name = getattr(args, "model", None)
    final = getattr(args, "finalizer_model", None)
    timeout = getattr(args, "model_timeout", None)
    planning = getattr(args, "planning", None)
    if not url and not name and not final and timeout is None and planning is None:
        return None
    if not url or not name:
        raise ValueError(
            "model mode (and --planning) needs both --model-url URL and --model NAME "
            "(e.g. --model-url http://127.0.0.1:8000/v1 --model qwen2.5-7b-instruct)"
        )
    # the key from DEFAULT_MODEL_KEY_ENV when it is set: a local server takes none
    role: dict[str, Any] = {"base_url": url, "model": name}
    if timeout is not None:
        role["timeout_s"] = timeout
    section: dict[str, Any] = {"planner": role}
    if final:
        section["finalizer"] = {**role, "model": final}
    if planning is not None:
        section["planning"] = planning
    return section


def model_config_extra(args: argparse.Namespace) -> dict[str, Any] | None:
    section = _flags(args)
    return {"models": section} if section else None


def with_models(config: InfrabotConfig, args: argparse.Namespace) -> InfrabotConfig:
    section = _flags(args)
    if section is None:
        return config
    models = config.models.model_copy(
        update={
            "planner": ModelSettings.model_validate(section["planner"]),
            "finalizer": ModelSettings.model_validate(section["finalizer"])
            if "finalizer" in section
            else None,
            "planning": Planning(section.get("planning", config.models.planning)),
        }
    )
    return config.model_copy(update={"models": models})
