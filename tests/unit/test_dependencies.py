"""A client's error line read as a failed call: which software, how it failed, what it
names. Lines as the libraries write them; a line that is no failed call is not read as
one (a time, a caller's file and line, an application's own error)."""

from __future__ import annotations

import pytest

from policy.dependencies import Failure, endpoints_in, excerpt, read_error, runs_software

LINES = [
    # psycopg2 through SQLAlchemy
    (
        '(psycopg2.OperationalError) connection to server at "pg-main.billing.svc" '
        '(10.96.4.2), port 5432 failed: FATAL:  password authentication failed for user "app"',
        "postgresql",
        Failure.AUTH,
    ),
    # pgx, from a Go service's JSON log
    (
        '{"level":"error","caller":"db/pool.go:51","error":"failed to connect to `user=app '
        "database=app`: 10.0.7.4:5432 (orders-db.shop.svc): dial error: connect: "
        'connection refused"}',
        "postgresql",
        Failure.REFUSED,
    ),
    # redis-py relaying the server's refusal
    (
        "redis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'.",
        "redis",
        Failure.MEMORY,
    ),
    # Lettuce
    (
        "io.lettuce.core.RedisConnectionException: Unable to connect to sessions-redis:6379",
        "redis",
        None,
    ),
    # Go's resolver through CoreDNS
    (
        "dial tcp: lookup ledger.finance.svc.cluster.local on 10.96.0.10:53: no such host",
        "dns",
        Failure.DNS,
    ),
    # the Kafka Java client
    (
        "[Producer clientId=producer-1] Connection to node 2 (kafka-2.kafka-headless:9092) "
        "could not be established. Broker may not be available.",
        "kafka",
        Failure.UNAVAILABLE,
    ),
    # gRPC in Go, naming the callee by address only
    (
        'rpc error: code = Unavailable desc = connection error: desc = "transport: Error while '
        'dialing: dial tcp 10.244.3.17:50051: connect: connection refused"',
        "grpc",
        Failure.REFUSED,
    ),
    # HikariCP: a pool with no connection left names no software
    (
        "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
        None,
        Failure.POOL,
    ),
]


@pytest.mark.parametrize(("line", "software", "failure"), LINES)
def test_a_client_error_names_the_software_and_how_the_call_failed(
    line: str, software: str | None, failure: Failure | None
) -> None:
    error = read_error(line)
    assert error is not None
    assert error.software == software
    if failure is not None:
        assert error.failure is failure


def test_the_other_end_of_a_call_is_read_and_a_time_or_a_caller_is_not() -> None:
    error = read_error(LINES[1][0])
    assert error is not None
    assert error.hosts == ("orders-db.shop.svc",)
    assert error.addresses == ("10.0.7.4",)
    assert error.ports == (5432,)
    # "db/pool.go:51" is where the line was logged from, not a host
    assert all("pool.go" not in h for h in error.hosts)
    grpc = read_error(LINES[6][0])
    assert grpc is not None and grpc.addresses == ("10.244.3.17",) and 50051 in grpc.ports


@pytest.mark.parametrize(
    "line",
    [
        "2026-10-02T13:03:57Z INFO started in 3.2s, listening on :8080",
        "ValueError: invalid literal for int() with base 10: 'abc'",
        "GET /api/items 200 12ms",
    ],
)
def test_a_line_that_is_no_failed_call_is_not_read_as_one(line: str) -> None:
    assert read_error(line) is None


def test_an_address_and_a_failure_make_a_failed_call_whatever_the_software() -> None:
    error = read_error("upstream connect error: dial tcp 10.1.2.3:8080: i/o timeout")
    assert error is not None and error.software is None and error.failure is Failure.TIMEOUT
    # a known port names the software when the line does not
    db = read_error("connect ECONNREFUSED 10.9.8.7:5432")
    assert db is not None and db.software == "postgresql"


def test_an_image_runs_the_software_its_repository_names() -> None:
    assert runs_software("registry.corp.example/db/postgres:16.4-bookworm", "postgresql")
    assert runs_software("docker.io/bitnami/redis:7.2.4", "redis")
    assert runs_software("quay.io/strimzi/kafka:0.40.0-kafka-3.7.0", "kafka")
    # the registry's or the tag's words are not the image's software
    assert not runs_software("redis.registry.example/shop/cart-api:1.4", "redis")
    assert not runs_software("shop/cart-api:redis-client-fix", "redis")


def test_a_long_line_is_quoted_around_how_the_call_failed() -> None:
    line = (
        '{"ts":"13:00:01","caller":"x.go:1","msg":"' + "q" * 300 + '","error":"connection refused"}'
    )
    quoted = excerpt(line, 120)
    assert "connection refused" in quoted and len(quoted) <= 122


def test_a_resolver_failure_is_a_call_to_the_resolver_not_to_the_name_looked_up() -> None:
    line = (
        'Get "http://tiles.geo.svc.cluster.local:8080/v1": dial tcp: lookup '
        "tiles.geo.svc.cluster.local on 10.43.0.10:53: read udp 10.42.2.119:41234->"
        "10.43.0.10:53: i/o timeout"
    )
    error = read_error(line)
    assert error is not None and error.software == "dns" and error.failure is Failure.DNS
    assert error.hosts == () and error.addresses == ("10.43.0.10",)


@pytest.mark.parametrize(
    ("key", "value", "hosts", "software"),
    [
        (
            "DATABASE_URL",
            "postgres://u:secret@acct-db.ledger.svc:5432/acct",
            ["acct-db.ledger.svc"],
            "postgresql",
        ),
        ("SPRING_DATASOURCE_URL", "jdbc:mysql://shop-db:3306/shop", ["shop-db"], "mysql"),
        (
            "KAFKA_BROKERS",
            "k-0.k-headless:9092,k-1.k-headless:9092",
            ["k-0.k-headless", "k-1.k-headless"],
            "kafka",
        ),
        (
            "SPRING_DATA_REDIS_HOST",
            "sessions-master.cart.svc",
            ["sessions-master.cart.svc"],
            "redis",
        ),
        ("PG_DSN", "host=ledger-pg port=5432 dbname=l", ["ledger-pg"], "postgresql"),
        ("config.yaml", "target: dns:///fx.rates.svc:9090\n", ["fx.rates.svc"], None),
        (
            "ConnectionStrings__Main",
            "Host=acct-pg.db.svc;Port=5432;Database=a",
            ["acct-pg.db.svc"],
            "postgresql",
        ),
    ],
)
def test_a_setting_names_the_addresses_it_points_at(
    key: str, value: str, hosts: list[str], software: str | None
) -> None:
    points = endpoints_in(key, value)
    assert [p.host for p in points] == hosts
    assert {p.software for p in points} == {software}


def test_a_setting_that_is_no_address_names_none() -> None:
    assert endpoints_in("LOG_LEVEL", "info") == []
    assert endpoints_in("TZ", "Europe/Moscow") == []
    assert endpoints_in("GREETING", "hello-world") == []
