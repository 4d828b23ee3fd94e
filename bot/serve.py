"""`infrabot serve`: the Mattermost listener and the web chat, from configuration.

Both surfaces share one Conversation (so one working memory) and one knowledge base. The
web chat has no login: everyone there is an engineer; admins act through Mattermost,
where the server vouches for the user name. Stops on Ctrl+C/SIGTERM (uvicorn's signal
handling), cancelling the listener and its running answers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from zoneinfo import ZoneInfo

import structlog
from starlette.routing import BaseRoute

from bot.alerts.desk import AlertDesk
from bot.alerts.meters import AlertMeters
from bot.alerts.payload import NotificationSource
from bot.alerts.receiver import ALERT_PATHS, AlertCredentials, alert_routes
from bot.config_errors import ConfigFileError
from bot.conversation import Conversation
from bot.knowledge import KnowledgeBase, KnowledgeDesk
from bot.mattermost import (
    COMMAND_PATH,
    LeasedShares,
    MattermostAlerts,
    MattermostApi,
    MattermostAuthError,
    MattermostListener,
    Partition,
    command_route,
    lease_store,
    partition_of,
)
from bot.memory import WorkingMemory
from bot.settings import InfrabotConfig, Secrets
from bot.sockets import bind, url_of
from bot.telemetry import Telemetry
from bot.web import Readiness, build_web_app, metrics_app, term_as_exit, uvicorn_server
from bot.web_identity import identity_of
from bot.wiring import build_gate, build_models, secret_at

log = structlog.get_logger(__name__)


def run_serve(config: InfrabotConfig, args: argparse.Namespace) -> int:
    try:
        with term_as_exit():
            asyncio.run(serve(config, Secrets()))
    except MattermostAuthError as exc:
        print(f"Mattermost refused the bot token (INFRABOT_MM_TOKEN): {exc}", file=sys.stderr)
        return 2
    return 0


async def serve(
    config: InfrabotConfig,
    secrets: Secrets,
    *,
    clock: Callable[[], datetime] | None = None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Run until cancelled (or until the web server stops on a signal). `clock` is the
    wall clock in the configured timezone unless a test injects another."""
    zone = ZoneInfo(config.timezone)
    clock = clock or (lambda: datetime.now(zone))

    token = secrets.mm_token.get_secret_value() if secrets.mm_token else None
    if config.mattermost is not None and not token:
        raise ConfigFileError("mattermost: configured, but INFRABOT_MM_TOKEN is not set")
    memory = WorkingMemory.from_settings(config.memory, clock=clock)
    kb = await asyncio.to_thread(KnowledgeBase.load, config.memory.knowledge_path)
    telemetry = Telemetry()
    conversation = Conversation(
        config=config,
        gate=build_gate(config),
        models=build_models(config),
        memory=memory,
        knowledge=kb,
        telemetry=telemetry,
    )
    desk = KnowledgeDesk(kb, clock=clock, allowed_hosts=config.allowed_link_hosts)
    listener: MattermostListener | None = None
    shares: LeasedShares | None = None
    routes: list[BaseRoute] = []
    alerts: tuple[AlertDesk, AlertCredentials] | None = None
    if config.mattermost is not None and token:
        partition = partition_of(config.mattermost.replicas, environ or os.environ)
        shares = _leased(config, partition, environ or os.environ)
        listener = MattermostListener(
            api=MattermostApi(config.mattermost.url, token),
            settings=config.mattermost,
            conversation=conversation,
            role_of=config.role_of,
            clock=clock,
            desk=desk,
            partition=shares or partition,
        )
        if secrets.mm_command_token is not None:
            routes.append(command_route(listener, secrets.mm_command_token.get_secret_value()))
        if config.alerts is not None:
            alerts = _alert_desk(config, listener, telemetry, clock, environ or os.environ)
            routes += alert_routes(*alerts)

    def readiness() -> Readiness:
        if listener is None:
            return Readiness(ready=True)
        if listener.stream is not None and listener.stream.connected.is_set():
            return Readiness(ready=True, mattermost="connected")
        why = listener.last_error or (listener.stream.last_error if listener.stream else None)
        return Readiness(ready=False, mattermost=f"connecting: {why or 'starting'}")

    app = build_web_app(
        conversation=conversation,
        identity=identity_of(config.web.identity, config.role_of),
        clock=clock,
        desk=desk,
        environments=list(config.environments),
        extra_routes=routes,
        telemetry=telemetry,
        readiness=readiness,
        allowed_hosts=config.web.allowed_hosts,
        metrics_here=config.web.metrics_port is None,
    )
    sock = bind(config.web.host, config.web.port)
    socks = [sock]
    print(f"infrabot: web chat on {url_of(sock)}", flush=True)
    tasks = [asyncio.create_task(uvicorn_server(app).serve(sockets=[sock]), name="web")]
    if config.web.metrics_port is not None:
        socks.append(bind(config.web.host, config.web.metrics_port))
        print(f"infrabot: /metrics on {url_of(socks[-1])}metrics", flush=True)
        server = uvicorn_server(metrics_app(telemetry))
        tasks.append(asyncio.create_task(server.serve(sockets=[socks[-1]]), name="metrics"))
    if listener is not None and config.mattermost is not None:
        if shares is not None:
            shares.on_takeover = lambda _share: listener.catch_up()
            await shares.tick()  # the own share before the first catch-up reads it
            tasks.append(asyncio.create_task(shares.run(), name="leases"))
        tasks.append(asyncio.create_task(_listen(listener, kb), name="mattermost"))
        print(f"infrabot: listening to Mattermost at {config.mattermost.url}", flush=True)
        if routes:
            print(f"infrabot: /infrabot slash command on {url_of(sock)}{COMMAND_PATH}", flush=True)
        if alerts is not None:
            print(
                f"infrabot: alerts from Alertmanager on {url_of(sock)}"
                f"{ALERT_PATHS[NotificationSource.ALERTMANAGER].lstrip('/')}",
                flush=True,
            )
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if alerts is not None:
            await alerts[0].aclose()
        await conversation.aclose()
        for each in socks:
            each.close()
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


def _alert_desk(
    config: InfrabotConfig,
    listener: MattermostListener,
    telemetry: Telemetry,
    clock: Callable[[], datetime],
    environ: Mapping[str, str],
) -> tuple[AlertDesk, AlertCredentials]:
    """The alert desk posting through the listener, and what senders must present."""
    settings = config.alerts
    assert settings is not None and config.mattermost is not None
    auth = settings.auth
    at = ("alerts", "auth")
    token = secret_at(config, (*at, "token_env"), auth.token_env, dict(environ))
    password = secret_at(config, (*at, "password_env"), auth.password_env, dict(environ))
    credentials = AlertCredentials(
        token=token.get_secret_value() if token else None,
        username=auth.username,
        password=password.get_secret_value() if password else None,
    )
    poster = MattermostAlerts(listener.api, listener, config.mattermost.team)
    desk = AlertDesk(
        settings,
        poster,
        AlertMeters(telemetry.registry),
        clock=clock,
        zone=ZoneInfo(config.timezone),
    )
    return desk, credentials


def _leased(
    config: InfrabotConfig, partition: Partition, environ: Mapping[str, str]
) -> LeasedShares | None:
    """The shares held as Leases, when `mattermost.leases` is set for several replicas."""
    mm = config.mattermost
    if mm is None or mm.leases is None or partition.count <= 1:
        return None
    leases = mm.leases
    key = ("mattermost", "leases", "token_env")
    secret = secret_at(config, key, leases.token_env, dict(environ))
    token = secret.get_secret_value() if secret is not None else None
    store = lease_store(leases.namespace, leases.url, token, leases.verify_tls)
    identity = environ.get("HOSTNAME") or f"replica-{partition.index}-{os.getpid()}"
    return LeasedShares(
        store,
        identity=identity,
        index=partition.index,
        count=partition.count,
        duration_s=leases.duration_s,
        prefix=leases.prefix,
    )


async def _listen(listener: MattermostListener, kb: KnowledgeBase) -> None:
    """Run the listener; the knowledge cache is first rebuilt from the channels (empty, or
    one of several replicas: what the others saved while this one was away is there)."""
    if listener.settings.channels and (len(kb) == 0 or listener.partition.count > 1):
        await listener.start()
        try:
            count = await listener.rebuild_knowledge()
            log.info("knowledge.rebuilt_from_channels", entries=count)
        except Exception as exc:  # the bot still answers without its knowledge cache
            log.warning("knowledge.rebuild_failed", error=repr(exc)[:300])
    await listener.run()
