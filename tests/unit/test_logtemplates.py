"""Error-like lines of any layout, grouped by template: the one error among normal lines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from connectors.kit.logtemplates import LogLine, error_templates, level_of, template_of

T0 = datetime(2026, 12, 9, 18, 0, tzinfo=UTC)


def lines(origin: str, texts: list[str]) -> list[LogLine]:
    return [LogLine(T0 + timedelta(seconds=i), origin, t) for i, t in enumerate(texts)]


def test_the_same_error_with_other_numbers_and_addresses_is_one_template_with_a_count() -> None:
    log = lines("api-1/app", [f"INFO booking BK-{i} confirmed in {40 + i}ms" for i in range(50)])
    log += lines(
        "api-2/app",
        [
            "2026-12-09T18:11:29Z ERROR 1 --- [exec-5] PoolBase : connection to 10.52.9.4:5432 "
            f"refused after {i}ms"
            for i in range(7)
        ],
    )
    templates, records, errors = error_templates(log)
    assert (records, errors) == (57, 7)
    (only,) = templates
    assert only.count == 7 and only.level == "ERROR" and only.origins == ["api-2/app"]
    assert "<addr>" in only.key and "refused after <n>ms" in only.key
    assert only.first == T0 and only.last == T0 + timedelta(seconds=6)


def test_a_java_stack_trace_is_one_record_named_by_its_root_cause() -> None:
    log = lines(
        "api-1/app",
        [
            "2026-12-09 18:11:30.001 ERROR 1 --- [nio-8080-exec-3] o.a.c.c.C.[.[.[/] : "
            "Servlet.service() failed",
            "org.springframework.jdbc.CannotGetJdbcConnectionException: "
            "Failed to obtain JDBC Connection",
            "\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DSU.java:84)",
            "Caused by: org.postgresql.util.PSQLException: FATAL: sorry, too many clients already",
            "\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(CFI.java:646)",
            "\t... 52 common frames omitted",
        ],
    )  # fmt: skip
    templates, records, _ = error_templates(log)
    assert records == 1
    assert templates[0].example.endswith("Caused by: org.postgresql.util.PSQLException: "
                                         "FATAL: sorry, too many clients already")  # fmt: skip


def test_a_python_traceback_is_named_by_its_exception() -> None:
    log = lines(
        "worker-1/worker",
        [
            "Traceback (most recent call last):",
            '  File "/app/worker.py", line 88, in handle',
            "    rate = tiers[user['tier']]",
            "KeyError: 'tier_multiplier'",
            "processed job 81 in 12ms",
        ],
    )
    templates, records, errors = error_templates(log)
    assert (records, errors) == (2, 1)
    assert templates[0].example == "KeyError: 'tier_multiplier'"


def test_a_go_panic_without_a_level_is_an_error_by_its_words() -> None:
    log = lines(
        "svc-1/app (previous run)",
        [
            "panic: runtime error: invalid memory address or nil pointer dereference",
            "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x6b4c2a]",
            "",
            "goroutine 1 [running]:",
            "main.(*Server).Start(0x0)",
            "\t/src/server.go:41 +0x2a",
        ],
    )
    templates, _, errors = error_templates(log)
    assert errors >= 1 and templates[0].example.startswith("panic: runtime error")


def test_a_stated_level_decides_and_a_warning_counts_only_when_it_says_it_failed() -> None:
    log = lines(
        "api-1/app",
        [
            '{"level":"info","msg":"retried 0 failed jobs"}',
            '{"level":"warn","msg":"slow query took 1200ms"}',
            '{"level":"warn","msg":"redis ping failed",'
            '"err":"dial tcp 10.96.0.9:6379: connect: connection refused"}',
            "x509: certificate has expired or is not yet valid",
        ],
    )  # fmt: skip
    templates, _, errors = error_templates(log)
    assert errors == 2
    # an error (by content, no level), a warning that failed, then the other warning: said
    # as a warning, never counted as an error
    assert [t.level for t in templates] == [None, "WARN", "WARN"]
    assert templates[1].example == (
        "redis ping failed: dial tcp 10.96.0.9:6379: connect: connection refused"
    )
    assert templates[2].example == "slow query took 1200ms"


def test_levels_in_the_layouts_programs_write() -> None:
    assert level_of('{"severity":"ERROR","message":"x"}') == "ERROR"
    assert level_of("time=2026-12-09T18:00:00Z level=error msg=boom") == "ERROR"
    assert level_of("E1209 18:00:00.000000       1 reflector.go:138] failed to list") == "ERROR"
    assert level_of("2026-12-09 18:11:29.110 UTC [40521] FATAL:  too many clients") == "FATAL"
    assert level_of("plain words only") is None
    masked = template_of("job 7f3e9c2a-1b2c-4d5e-8f90-123456789abc took 12ms")
    assert masked == "job <id> took <n>ms"


def test_an_uncaught_traceback_after_an_info_line_is_an_error_of_its_own() -> None:
    log = lines(
        "w-1/app",
        [
            "INFO Starting worker",
            "Traceback (most recent call last):",
            '  File "/app/main.py", line 3, in <module>',
            "ValueError: DATABASE_URL is not set",
        ],
    )
    templates, records, errors = error_templates(log)
    assert (records, errors) == (2, 1)
    assert templates[0].example == "ValueError: DATABASE_URL is not set"


def test_a_chained_traceback_is_one_record_named_by_its_last_exception() -> None:
    log = lines(
        "w-1/app",
        [
            "Traceback (most recent call last):",
            '  File "/app/h.py", line 9, in handle',
            "KeyError: 'user'",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            '  File "/app/h.py", line 11, in handle',
            "RuntimeError: boom",
        ],
    )
    templates, records, errors = error_templates(log)
    assert (records, errors) == (1, 1)
    assert templates[0].example == "RuntimeError: boom"


def test_healthy_words_are_no_error() -> None:
    log = lines(
        "api-1/app",
        [
            "0 errors, 0 failures; all checks passed",
            "health check ok, no errors",
            "Listening on :8080, read timeout 30s",
            "WARN retry queue drained, 0 errors",
            "WARN config key 'timeout failed' is deprecated",
        ],
    )
    templates, _, errors = error_templates(log)
    assert errors == 0
    assert all(t.level == "WARN" for t in templates)  # said as warnings, not errors


def test_numeric_and_logfmt_levels_are_read_as_the_programs_mean_them() -> None:
    assert level_of('{"level":50,"msg":"db down"}') == "ERROR"
    assert level_of('{"level":60,"msg":"exit"}') == "FATAL"
    assert level_of('{"level":30,"msg":"ok"}') == "INFO"
    # "level=SERIALIZABLE" inside a plain line is no logfmt level
    line = "2026-12-09 ERROR [main] tx isolation level=SERIALIZABLE: connection refused"
    assert level_of(line) == "ERROR"


def test_the_same_error_from_each_pod_is_one_template() -> None:
    log = lines("a/app", ["ERROR cannot reach order-service-5d8f7c9b4-x2k4q"])
    log += lines("b/app", ["ERROR cannot reach order-service-7f6c5d4b3-abcde"])
    templates, _, _ = error_templates(log)
    assert len(templates) == 1 and templates[0].count == 2


def test_an_indented_block_of_a_normal_line_is_no_exception() -> None:
    log = lines("a/app", ["INFO config loaded:", "  pool: 10", "INFO listening on :8080"])
    _, _, errors = error_templates(log)
    assert errors == 0


def test_a_traceback_ends_with_its_exception_whatever_its_class_is_called() -> None:
    log = lines(
        "a/app",
        [
            "[2026-07-20 11:05:13,292] ERROR in app: Exception on /api/v1/summary [GET]",
            "Traceback (most recent call last):",
            '  File "/app/summary.py", line 41, in summary',
            "psycopg2.errors.UndefinedColumn: column a.tier_multiplier does not exist",
        ],
    )
    templates, records, _ = error_templates(log)
    assert records == 1
    assert templates[0].example.endswith("UndefinedColumn: column a.tier_multiplier does not exist")


def test_a_line_nested_past_the_parser_depth_is_read_as_text() -> None:
    log = lines("a/app", ['{"a":' + "[" * 200000, "ERROR boom"])
    _, records, errors = error_templates(log)
    assert records == 2 and errors == 1


def test_a_shipped_time_in_epoch_milliseconds_is_read() -> None:
    from connectors.elasticsearch._errorlog import parse_time

    assert parse_time(1784545504387) == datetime(2026, 7, 20, 11, 5, 4, 387000, tzinfo=UTC)
    assert parse_time("not a time") is None
