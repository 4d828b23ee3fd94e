"""`infrabot` command line: ask, demo, serve, eval, tools.

This module is the one composition root allowed to reach every package (it starts the
world simulators from `evals` for `ask`/`demo` without configuration and dispatches
`eval`); the import contract in pyproject.toml names this exception.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from bot.config_errors import ConfigFileError
from bot.model_flags import add_model_flags, model_config_extra, with_models
from bot.presentation import origin_of, without_links_to
from bot.render import render_markdown, render_plain
from bot.settings import InfrabotConfig, load_config
from planner import Turn
from policy.language import Bilingual, phrase

if TYPE_CHECKING:
    from bot.conversation import Conversation
    from evals.worldfile import WorldFile


def _configure_logging(verbose: bool, log_format: str = "console") -> None:
    """`serve` logs JSON lines at info (one object a line, ours and the SDKs' alike, with
    the turn's `request_id` on every line of a turn) for a cluster's log pipeline; the
    other commands log for a terminal."""
    import logging

    from policy.redaction import RedactingFilter, redact_log_event

    as_json = log_format == "json"
    level = logging.DEBUG if verbose else logging.INFO if as_json else logging.WARNING
    logging.basicConfig(level=level, stream=sys.stderr, format="%(message)s")
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso"),
    ]
    if as_json:
        # a traceback is a field of the line ("exception"), redacted with the rest
        shared.append(structlog.processors.format_exc_info)
    shared.append(redact_log_event)
    json_lines = structlog.stdlib.ProcessorFormatter(
        # an SDK's record: its traceback was formatted and redacted by RedactingFilter
        foreign_pre_chain=[_record_traceback, *shared],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.JSONRenderer(),
        ],
    )
    for handler in logging.getLogger().handlers:
        # every line, ours or an SDK's, is redacted on its way out
        handler.addFilter(RedactingFilter())
        if as_json:
            handler.setFormatter(json_lines)
    if not verbose:
        # the SDKs' own retry chatter ("node has failed ... putting on timeout") is not for
        # users: a failed read reaches the answer as a gap with its reason; nor is a line
        # per HTTP request
        for noisy in ("elastic_transport", "urllib3", "kubernetes", "gitlab", "httpx"):
            logging.getLogger(noisy).setLevel(
                logging.ERROR if noisy != "httpx" else logging.WARNING
            )
    # through stdlib logging: its stream handler, not a file object bound here, decides
    # where lines go (and survives a closed stream)
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.stdlib.LoggerFactory(),
        processors=[
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter
            if as_json
            else structlog.dev.ConsoleRenderer(colors=False),
        ],
    )


def _record_traceback(
    _logger: object, _name: str, event: structlog.typing.EventDict
) -> structlog.typing.EventDict:
    """A stdlib record's traceback (already redacted: RedactingFilter moved it to
    `exc_text`) as the line's "exception" field."""
    record = event.get("_record")
    text = getattr(record, "exc_text", None)
    if text:
        event["exception"] = text
    return event


def _config_path(arg: str | None) -> Path | None:
    value = arg or os.environ.get("INFRABOT_CONFIG")
    return Path(value) if value else None


def _world_file(arg: str | None) -> WorldFile:
    """The world of `--world` (default: the demo world), parsed once per content: later
    starts read it back from the parse cache (see evals.parsecache)."""
    from evals.parsecache import ParseCache, default_cache_dir
    from evals.worldfile import read_world_file

    world_file = read_world_file(Path(arg) if arg else None, cache=ParseCache(default_cache_dir()))
    # a large world lives as long as the process: keep the collector from walking it again
    gc.freeze()
    return world_file


async def _ask_world(args: argparse.Namespace) -> int:
    from evals.simulators.victoriametrics import MetricsBoot

    wf = _world_file(args.world)
    # VictoriaMetrics boots and ingests in its own process while this one imports the
    # product below: about a quarter of a second of a cold start given back
    boot = MetricsBoot.begin(wf.world)
    try:
        from evals.session import WorldSession

        now = _parse_now(args.now) or wf.now
        vm = boot.vm()
        with WorldSession(
            wf.world,
            timezone=wf.timezone,
            now=now,
            shared_vm=vm,
            vm_preloaded=vm is not None,
            config_extra=model_config_extra(args),
        ) as session:
            assert session.conversation is not None and session.config is not None
            return await _ask_with(
                session.conversation,
                session.config,
                args,
                session.clock(),
                gone=simulator_origins(session),
            )
    finally:
        boot.stop()


async def _ask_config(args: argparse.Namespace, path: Path) -> int:
    from bot.conversation import Conversation
    from bot.memory import WorkingMemory
    from bot.wiring import build_gate, build_models

    config = with_models(load_config(path), args)
    conversation = Conversation(
        config=config,
        gate=build_gate(config),
        models=build_models(config),
        memory=WorkingMemory.from_settings(
            config.memory, clock=lambda: datetime.now().astimezone()
        ),
    )
    now = _parse_now(args.now) or datetime.now().astimezone()
    return await _ask_with(conversation, config, args, now)


async def _ask_with(
    conversation: Conversation,
    config: InfrabotConfig,
    args: argparse.Namespace,
    now: datetime,
    *,
    gone: set[str] | None = None,
) -> int:
    """`gone`: origins that stop serving when this command ends (a world's simulators):
    a printed answer leaves their links out and says why once; --json keeps them."""
    user = args.as_user or os.environ.get("USER") or "engineer"
    turn = Turn(
        question=args.question,
        user=user,
        role=config.role_of(user),
        now=now,
    )
    try:
        outcome = await conversation.answer(turn)
    finally:
        await conversation.aclose()
    answer = outcome.answer
    if args.json:
        print(answer.model_dump_json(indent=2))
        return 0
    shown, dropped = without_links_to(answer, gone or set())
    print(render_markdown(shown) if args.markdown else render_plain(shown), end="")
    if dropped:
        print(phrase(_LINKS_GONE, answer.lang, count=dropped))
    return 0


# a world's simulators stop with the command: a link to them would open nothing
_LINKS_GONE: Bilingual = (
    "(links left out: {count}; the demo world's sources stop with this command, "
    "`infrabot demo` serves them while it runs)",
    "(ссылок не показано: {count}; источники демо-мира останавливаются вместе с командой, "
    "`infrabot demo` держит их, пока работает)",
)


def simulator_origins(session: Any) -> set[str]:
    """Where a world session's simulators serve: links there open no app a person knows."""
    ends = session.simulators.endpoints
    urls = [u for e in ends.envs.values() for u in (e.kubernetes, e.logs, e.metrics)]
    return {origin_of(u) for u in [*urls, ends.gitlab] if u}


def _parse_now(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def cmd_ask(args: argparse.Namespace) -> int:
    path = _config_path(args.config)
    if args.world or path is None:
        return asyncio.run(_ask_world(args))
    return asyncio.run(_ask_config(args, path))


def cmd_tools(args: argparse.Namespace) -> int:
    from policy.scope import Scope
    from policy.toolset import CallContext

    def show(config: InfrabotConfig) -> int:
        from bot.wiring import build_mcp_servers, build_tools
        from connectors.mcp import catalogue_report
        from policy.gate import PolicyGate
        from policy.toolset import ToolSet

        environ: dict[str, str] | None = {} if path is None else None
        servers = build_mcp_servers(config, environ)
        gate = PolicyGate(ToolSet(build_tools(config, environ, servers)))
        user = args.as_user or "engineer"
        ctx = CallContext(
            user=user,
            role=config.role_of(user),
            scope=Scope(),
            now=datetime.now().astimezone(),
        )
        contracts = gate.contracts(ctx)
        skills = _mcp_entries(catalogue_report(servers), {c.name for c in contracts})
        if args.json:
            shown = [c.describe() for c in contracts]
            by_name = {e["name"]: e for e in skills if e["name"]}
            for entry in shown:
                if entry["name"] in by_name:
                    entry["mcp"] = by_name.pop(entry["name"])["mcp"]
            # refused MCP tools (and servers that listed nothing) with why: never callable
            shown += [e for e in skills if e["name"] not in {c.name for c in contracts}]
            print(json.dumps(shown, indent=2, ensure_ascii=False))
        else:
            for c in contracts:
                a = c.agent
                flags = ", ".join(
                    f
                    for f, on in (
                        ("current only", a.current_only),
                        ("history", a.supports_history),
                        ("admin only", a.admin_only),
                    )
                    if on
                )
                print(f"{c.name:28} {', '.join(a.evidence):40} {flags}")
                print(f"{'':28} {c.description.splitlines()[0]}")
            for server in catalogue_report(servers):
                stale = f", stale catalogue of {server['loaded_at']}" if server["stale"] else ""
                error = f": {_untrusted(server['error'])}" if server["error"] else ""
                print(f"\nMCP server {server['server']} ({server['health']}{stale}){error}")
                for e in skills:
                    m = e["mcp"]
                    if m["server"] != server["server"] or not m.get("tool"):
                        continue
                    verdict = "admitted" if e["admitted"] else f"refused: {m['reason']}"
                    print(f"  {e['name'] or m['tool']:26} {verdict}")
        return 0

    path = _config_path(args.config)
    if path is None:
        from evals.session import WorldSession

        wf = _world_file(args.world)
        with WorldSession(wf.world, timezone=wf.timezone) as session:
            assert session.config is not None
            return show(session.config)
    return show(load_config(path))


def _untrusted(text: object) -> object:
    """What a server says of itself (its error, its tools' names): redacted, described,
    and with control characters escaped so a terminal shows them, not obeys them."""
    from policy.hostile import describe
    from policy.redaction import redact

    if not isinstance(text, str):
        return text
    clean = describe(redact(text))
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in clean)


def _mcp_entries(report: list[dict[str, Any]], usable: set[str]) -> list[dict[str, Any]]:
    """One entry per listed MCP tool (one per server that listed nothing): its server,
    health and admission for this user, with why when refused."""
    shown = _untrusted
    out: list[dict[str, Any]] = []
    for server in report:
        where = {k: shown(server[k]) for k in ("server", "health", "stale", "loaded_at", "error")}
        if not server["tools"]:
            out.append({"name": None, "admitted": False, "mcp": {**where, "tool": None}})
        for t in server["tools"]:
            ok = t["name"] in usable
            reason = t["reason"] if not t["admitted"] else "" if ok else "for admins only"
            if ok and server["stale"]:
                reason = "the server is down; its catalogue is stale and is not called"
            out.append(
                {
                    "name": t["name"],
                    "admitted": ok,
                    "mcp": {
                        **where,
                        "tool": shown(t["tool"]),
                        "evidence": t["evidence"],
                        "reason": reason,
                    },
                }
            )
    return out


def cmd_doctor(args: argparse.Namespace) -> int:
    """Probe every configured source (the demo world's simulators without a config);
    exit 1 when one does not answer."""
    from bot.doctor import diagnose, render
    from policy.probe import ProbeStatus

    async def run(config: InfrabotConfig, now: datetime, environ: dict[str, str] | None) -> int:
        probes = await diagnose(config, now, environ)
        if args.json:
            shown = [{**p.model_dump(mode="json"), "status": p.status.value} for p in probes]
            print(json.dumps(shown, indent=2, ensure_ascii=False))
        else:
            print(render(probes, config))
        return 1 if any(p.status is ProbeStatus.FAILED for p in probes) else 0

    path = _config_path(args.config)
    if path is None:
        from evals.session import WorldSession

        wf = _world_file(args.world)
        with WorldSession(
            wf.world, timezone=wf.timezone, now=wf.now, config_extra=model_config_extra(args)
        ) as session:
            assert session.config is not None
            return asyncio.run(run(session.config, session.clock(), {}))
    config = with_models(load_config(path), args)
    return asyncio.run(run(config, datetime.now().astimezone(), None))


def cmd_eval(args: argparse.Namespace) -> int:
    from evals.runner import main as eval_main

    return eval_main(args)


# the names a browser on this machine reaches a loopback-bound demo by
LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")


def demo_app(session: Any, world_file: Any, allowed_hosts: tuple[str, ...] = ()) -> Any:
    """The demo's web chat on a world session: the real conversation path, knowledge kept
    in memory, everyone an engineer (a name in a request body is a claim, not an
    identity)."""
    from bot.knowledge import KnowledgeBase, KnowledgeDesk
    from bot.web import build_web_app
    from bot.web_identity import LocalName

    assert session.conversation is not None and session.config is not None
    config = session.config
    desk = KnowledgeDesk(
        KnowledgeBase(None), clock=session.clock, allowed_hosts=config.allowed_link_hosts
    )
    session.conversation.knowledge = desk.kb
    return build_web_app(
        conversation=session.conversation,
        identity=LocalName(),
        clock=session.clock,
        desk=desk,
        questions=world_file.questions,
        environments=list(config.environments),
        title="infrabot demo",
        allowed_hosts=allowed_hosts,
        unlinked=simulator_origins(session),
    )


def cmd_demo(args: argparse.Namespace) -> int:
    """`infrabot demo`: the demo world's simulators, the real conversation path, the web chat.

    Lives here because it reaches `evals` (the simulators): the CLI is the one composition
    root allowed to (see pyproject's import contract)."""

    from bot.sockets import bind, url_of
    from bot.web import term_as_exit, uvicorn_server
    from evals.session import WorldSession

    world_file = _world_file(args.world)
    with (
        term_as_exit(),
        WorldSession(
            world_file.world,
            timezone=world_file.timezone,
            now=world_file.now,
            config_extra=model_config_extra(args),
        ) as session,
    ):
        # bound to this machine only: a page elsewhere naming it (DNS rebinding) is refused
        local = args.host in LOCAL_NAMES or args.host.startswith("127.")
        app = demo_app(session, world_file, LOCAL_NAMES if local else ())
        config = session.config
        assert config is not None
        sock = bind(args.host, args.port)
        print(f"infrabot demo: web chat on {url_of(sock)}  (Ctrl+C to stop)")
        envs = ", ".join(config.environments)
        print(f"environments: {envs}; clock: {session.clock():%Y-%m-%d %H:%M %Z}")
        if world_file.questions:
            print("try asking:")
            for q in world_file.questions:
                print(f"  - {q}")
        sys.stdout.flush()
        uvicorn_server(app).run(sockets=[sock])
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from bot.serve import run_serve

    path = _config_path(args.config)
    if path is None:
        print(
            "infrabot serve needs a configuration: --config FILE or INFRABOT_CONFIG "
            "(try `infrabot demo` for the built-in demo world)",
            file=sys.stderr,
        )
        return 2
    return run_serve(load_config(path), args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="infrabot",
        description=(
            "Read-only infrastructure investigation bot: answers with facts, hypotheses and gaps."
        ),
    )
    p.add_argument("-v", "--verbose", action="store_true", help="debug logs on stderr")
    sub = p.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="answer one question (demo world when no config is given)")
    ask.add_argument("question")
    ask.add_argument("--world", help="world or scenario file to run against (simulated)")
    ask.add_argument("--config", help="configuration file (default: $INFRABOT_CONFIG)")
    ask.add_argument("--as", dest="as_user", metavar="USER", help="ask as this user")
    ask.add_argument("--json", action="store_true", help="print the Answer structure")
    ask.add_argument("--markdown", action="store_true", help="print Mattermost markdown")
    ask.add_argument("--now", help="the clock, ISO-8601 (default: the world's `now`, or now)")
    add_model_flags(ask)
    ask.set_defaults(fn=cmd_ask)

    demo = sub.add_parser("demo", help="web chat on the built-in demo world, no setup needed")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8080)
    demo.add_argument("--world", help="another world file instead of the demo world")
    add_model_flags(demo)
    demo.set_defaults(fn=cmd_demo)

    serve = sub.add_parser("serve", help="Mattermost listener + web chat, from configuration")
    serve.add_argument("--config")
    serve.add_argument(
        "--log-format",
        choices=["json", "console"],
        default="json",
        help="json: one JSON object a line, for a log pipeline (default); console: for a terminal",
    )
    serve.set_defaults(fn=cmd_serve)

    reference = sub.add_parser(
        "config-reference", help="print the configuration reference (docs/configuration.md)"
    )
    reference.set_defaults(fn=cmd_config_reference)

    ev = sub.add_parser("eval", help="run scenarios; exits non-zero when a required one fails")
    ev.add_argument("paths", nargs="*", help="scenario files or folders (default: built-in suite)")
    ev.add_argument("--runs", type=int, default=None, help="runs per scenario (default: its own)")
    ev.add_argument("--report", help="write report.json and report.html into this folder")
    ev.add_argument("--only-required", action="store_true")
    ev.add_argument("--tag", action="append", default=[], help="only scenarios with this tag")
    add_model_flags(ev)
    ev.set_defaults(fn=cmd_eval)

    tools = sub.add_parser("tools", help="the admitted tool catalogue with contracts")
    tools.add_argument("--as", dest="as_user", metavar="USER")
    tools.add_argument("--config")
    tools.add_argument("--world")
    tools.add_argument("--json", action="store_true")
    tools.set_defaults(fn=cmd_tools)

    doctor = sub.add_parser(
        "doctor",
        help="which sources answer, which layouts were detected, what is missing",
    )
    doctor.add_argument("--config", help="configuration file (default: $INFRABOT_CONFIG)")
    doctor.add_argument("--world", help="world file to probe (simulated; default: the demo)")
    doctor.add_argument("--json", action="store_true", help="print the probes as JSON")
    add_model_flags(doctor)
    doctor.set_defaults(fn=cmd_doctor)
    return p


def cmd_config_reference(args: argparse.Namespace) -> int:
    from bot.config_reference import reference

    print(reference(), end="")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _configure_logging(args.verbose, getattr(args, "log_format", "console"))
    try:
        return int(args.fn(args))
    except (ConfigFileError, ValueError) as exc:
        # ConfigFileError and WorldError (a ValueError) carry the file, key and reason
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `infrabot tools | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
