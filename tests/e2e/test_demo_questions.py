"""Ordinary questions a new user asks of the built-in demo world (`infrabot ask`), each
answered with the value asked for or the real cause, first."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.cli import main
from planner.shapes.answer import Answer

ROOT = Path(__file__).resolve().parents[2]


def ask(question: str, capsys: pytest.CaptureFixture[str]) -> Answer:
    assert main(["ask", "--json", question]) == 0
    return Answer.model_validate_json(capsys.readouterr().out)


def test_a_latency_asked_for_is_the_first_line_of_the_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The p99 was read, then pushed out of the answer by the request rates and the usage
    read beside it, while its objective said "resolved"."""
    answer = ask("p99 latency of catalog-api in dc-a, last hour", capsys)
    assert answer.summary.startswith("catalog-api in dc-a: p99 latency ")
    latency = [f for f in answer.facts if f.kind == "http.latency"]
    assert latency and latency[0].source.startswith("victoriametrics")
    assert {o.id: o.status for o in answer.objectives}["http.latency"] == "resolved"


def test_what_is_wrong_in_an_environment_sweeps_it_and_names_the_failing_workload(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No object named: the whole environment is swept, and the crash-looping service is
    found with the log line that explains it (it was six gaps saying "no service named")."""
    answer = ask("что не так в dc-b прямо сейчас?", capsys)
    # the environment check is said as what stood in for the question
    head = "Проверка здоровья dc-b (ничего конкретнее в вопросе прочитать не удалось): "
    assert answer.summary.startswith(head + "Pod service-d-")
    assert "CrashLoopBackOff" in answer.summary and "DATABASE_URL" in answer.summary
    sweep = next(f for f in answer.facts if f.kind == "k8s.sweep")
    assert sweep.text.startswith("Swept dc-b: ") and "2 pods not healthy" in sweep.text
    assert {o.id: o.status for o in answer.objectives}["env.health"] == "resolved"


def test_which_pods_are_not_ready_lists_them_with_why(capsys: pytest.CaptureFixture[str]) -> None:
    answer = ask("which pods are not ready in stage?", capsys)
    pending = [f for f in answer.facts if f.kind == "k8s.pod" and "Pending" in f.text]
    assert pending and "notify-push-" in pending[0].text
    assert any("Insufficient cpu" in h.text for h in answer.hypotheses)
    assert any(f.kind == "k8s.node_condition" and "Cordoned" in f.text for f in answer.facts)


def test_what_changed_reads_releases_of_every_project_and_the_cluster_audit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No service named: the releases of the whole env are read across GitLab projects
    (it was a gap, "gitlab needs a service"), with the audit trail. In dc-a the only deploy
    job was never played: no change, and "no changes" is said only after both complete reads."""
    answer = ask("what changed in dc-a in the last 3 hours?", capsys)
    tools = [c.tool for c in answer.tool_calls]
    assert "gitlab.env_releases" in tools and "k8s.audit_log" in tools
    assert answer.summary.startswith(
        "Job deploy:dc-a #5531194 of orders/service-d (pipeline 90402, version v2.4.0) has not run"
    )
    job = next(f for f in answer.facts if f.kind == "ci.job")
    assert "has not run" in job.text and "was started by" not in job.text
    none = [f for f in answer.facts if f.kind == "negative"]
    assert none and "complete read of" in none[0].text
    assert {"elasticsearch", "gitlab"} <= set(
        none[0].text.split("complete read of ")[1].rstrip(")").split(", ")
    )
    reports = {o.id: o for o in answer.objectives}
    assert reports["changes.env"].status == "resolved"
    assert {"elasticsearch", "gitlab"} <= set(reports["changes.env"].sources)


def test_what_changed_says_what_each_change_was_the_project_and_its_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The summary named the job, its user and the commit's author, but not what changed:
    the project deployed, the version, the image the cluster was patched to."""
    answer = ask("what changed in dc-b today?", capsys)
    first = answer.summary.split("; ")[0]
    assert "deploy:dc-b #5531195 of orders/service-d" in first and "version v2.4.0" in first
    assert "(image registry.example.com/orders/service-d:2.4.0)" in answer.summary


def test_the_image_version_asked_for_leads_and_a_stuck_rollout_shows_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It led with the crash loop, the image in the twelfth fact. During a stuck rollout the
    spec's image is not what serves: each revision's image and readiness is the value."""
    answer = ask("какая версия образа сейчас у service-d в dc-b?", capsys)
    assert answer.summary.startswith("Deployment service-d в dc-b запускает больше одного образа: ")
    first = answer.summary.split(". ")[0]
    assert "service-d:2.3.1: готово 4 из 4 (ревизия 23)" in first  # 4 of 4 ready
    assert "service-d:2.4.0: готово 0 из 2 (ревизия 24, самая новая)" in first
    assert "CrashLoopBackOff" in answer.summary  # the cause found beside it still follows
    assert answer.facts[0].kind == "k8s.workload"


def test_usage_against_requests_asked_leads_with_the_usage_not_the_quota(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It led with the quota's bookkeeping of requests (requests.cpu used 1 of 24)."""
    answer = ask("сколько CPU реально потребляет namespace payments против requests?", capsys)
    assert answer.summary.startswith("namespace payments in dc-a, 2 containers between ")
    assert "CPU used 1 core on average vs 1 core requested" in answer.summary


def test_a_value_compared_across_two_environments_gives_both_in_the_first_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Both envs were read, but the summary said the first env's rate and "more below": the
    comparison asked was half answered."""
    answer = ask("сравни RPS catalog-api в dc-a и dc-b за последний час", capsys)
    first = answer.summary.split(". ")[0]
    assert "in dc-a: 443.3 req/s" in first and "in dc-b: 147.3 req/s" in first
    answer = ask("compare p95 latency of service-a in dc-a vs dc-b", capsys)
    first = answer.summary.split(". (")[0]
    assert "service-a in dc-a: p95 latency 0.2 s" in first
    assert "service-a in dc-b: p95 latency 0.2 s" in first


def test_a_replica_count_asked_for_is_the_first_line(capsys: pytest.CaptureFixture[str]) -> None:
    answer = ask("how many replicas does service-a have in dc-a?", capsys)
    assert answer.summary.startswith("Deployment service-a in dc-a: 2 of 2 replicas ready.")


def test_a_502_at_a_clock_time_is_the_edge_buffer_not_the_app(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answer = ask("why did service-a return 502 at 14:11?", capsys)
    assert "upstream sent too big header" in answer.summary
    # what the app answered to the failed requests (302), not to another request (200)
    assert "The application answered 302; the edge proxy returned 502" in answer.summary
    assert any(f.kind == "edge.error" for f in answer.facts)


def test_who_deployed_names_the_job_user_and_the_author_apart_before_the_crash_it_caused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A release question is answered with the release: who started the job, when, and who
    wrote the commit; the crash it caused follows as a second part, and the CI identity's
    patch during the job is that job's change, not a second one."""
    answer = ask("who deployed service-d in dc-b today?", capsys)
    first, also = answer.summary.split(" Also found (not asked): ")
    assert first.startswith("Changes to service-d in dc-b between ")
    assert "deploy job deploy:dc-b #5531195 started by k.smirnova at 2026-07-20T10:51:58Z" in first
    assert "commit 9b1e4f27 by d.ivanov" in first and "svc-deployer" not in first
    assert "CrashLoopBackOff" in also
    crash = next(h.text for h in answer.hypotheses if "CrashLoopBackOff" in h.text)
    assert "after release job deploy:dc-b #5531195" in crash
    assert "svc-deployer did patch" not in crash


def test_who_and_when_last_deployed_leads_with_the_deploy_not_the_crash_loop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It led with the crash loop; the deployer and job were facts 14 and 17."""
    answer = ask("кто и когда последний раз деплоил service-d в dc-b?", capsys)
    assert answer.summary.startswith(
        "Последнее изменение service-d в dc-b: задание деплоя deploy:dc-b #5531195 запустил "
        "k.smirnova в 2026-07-20T10:51:58Z"
    )


def test_502s_only_through_one_node_name_that_node_against_its_peers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answer = ask("почему search-api в dc-b отдавал 502 в 13:05?", capsys)
    assert answer.summary.startswith("Узел worker-17 показывает сетевые проблемы")
    network = [f for f in answer.facts if f.kind == "node.network"]
    assert network and all("peer median" in f.text for f in network)
    assert len([c for c in answer.tool_calls if c.tool == "metrics.node_network"]) == 1


def test_a_restarting_service_is_its_oom_kill(capsys: pytest.CaptureFixture[str]) -> None:
    answer = ask("why is service-b restarting in dc-a?", capsys)
    assert answer.summary.startswith("Container app of service-b-6f9c8d7b5-q8n4t was killed")
    assert "OOMKilled, exit code 137" in answer.summary


def test_a_workload_that_cannot_scale_names_the_scheduler_and_the_quota(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answer = ask("why can't notify-push scale up in stage?", capsys)
    assert "FailedScheduling" in answer.summary and "Insufficient cpu" in answer.summary
    texts = " ".join(f.text for f in answer.facts)
    assert "exceeded quota" in texts or "notifications-quota" in texts


def test_a_service_asked_of_an_env_that_does_not_run_it_is_said_absent_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The name is listed in another env: the empty read of the env asked led the answer
    without naming whose it was."""
    answer = ask("сколько реплик у notify-push в dc-b?", capsys)
    assert answer.summary.startswith("notify-push не найдено в dc-b")
    answer = ask("сколько реплик у notify-push в stage?", capsys)
    assert "готово реплик: 7 из 9" in answer.summary.split(". ")[0]


def test_a_quantile_no_histogram_holds_is_said_not_determined_before_what_else_was_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The p95 of a service with no latency histogram was answered with its request rate."""
    answer = ask("what is the p95 latency of service-d in dc-b?", capsys)
    head, _, rest = answer.summary.partition("Also found (not asked): ")
    assert "Not determined: latency quantiles" in head and "service-d in dc-b" in head
    assert "req/s" not in head and "req/s" in rest
    assert any(g.objective == "http.latency" for g in answer.gaps)


def test_the_usage_of_a_resource_asked_leads_for_a_namespace_or_a_workload(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """'CPU used vs requested in namespace <ns>' got a health check of the env, and 'how
    much memory does <service> use' an environment triage."""
    answer = ask("CPU used vs requested in namespace orders in dc-a", capsys)
    assert answer.summary.startswith("namespace orders in dc-a, ")
    assert "CPU used " in answer.summary and "cores requested" in answer.summary
    answer = ask("сколько памяти ест search-api в dc-a?", capsys)
    assert answer.summary.startswith("pods search-api-* in dc-a, ")
    assert "memory used 3.82 GiB on average" in answer.summary


def test_how_many_restarts_leads_with_the_count_then_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The count asked was fact 28 under the crash loop's diagnosis; for a workload, the
    first sentence is the sum over its containers, not one pod's counter."""
    answer = ask("сколько рестартов у пода service-d-7b6c9f5d84-r2vxk в dc-b?", capsys)
    assert answer.summary.startswith("pod service-d-7b6c9f5d84-r2vxk container app in dc-b ")
    assert "restarted 13 times" in answer.summary.split(". ")[0]
    assert "CrashLoopBackOff" in answer.summary  # why follows the count
    answer = ask("how many restarts did service-d have in dc-b in the last hour?", capsys)
    first = answer.summary.split(". ")[0]
    assert first.startswith("service-d in dc-b: 26 restarts in the window over ")
    assert "service-d-7b6c9f5d84-r2vxk/app 13" in first and "t8mzq/app 13" in first


def test_a_share_of_errors_asked_leads_with_the_error_rate_not_the_cause(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """'What share of requests were 5xx' got the edge's 502 diagnosis and no share."""
    answer = ask("what share of service-a requests in dc-a were 5xx over the last hour?", capsys)
    first = answer.summary.split(". ")[0]
    assert first.startswith("service-a (payments) in dc-a: 3 responses with status 502")
    assert "0.0016% of 192296 requests" in first


def test_how_many_pods_in_a_namespace_is_the_count_the_sweep_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A count of every pod got a health check of the env ('nothing more specific')."""
    answer = ask("сколько подов сейчас в неймспейсе notifications в stage?", capsys)
    assert answer.summary.startswith("Pod'ов в stage, namespace notifications: 19 (все в списке)")
    answer = ask("how many nodes are in dc-a?", capsys)
    assert answer.summary.startswith("6 nodes in dc-a (every node listed)")


def test_a_ranking_whose_read_failed_says_it_could_not_be_determined_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the metrics source down, the answer led with whatever else was read."""
    scenario = yaml.safe_load((ROOT / "evals" / "worlds" / "demo.yaml").read_text())
    scenario["world"]["faults"] = [
        {"source": "metrics", "env": "dc-a", "kind": "http_error", "status": 503}
    ]
    world = tmp_path / "demo-metrics-down.yaml"
    world.write_text(yaml.safe_dump(scenario))
    assert (
        main(["ask", "--json", "--world", str(world), "which pods in dc-a use the most memory?"])
        == 0
    )
    answer = Answer.model_validate_json(capsys.readouterr().out)
    assert answer.summary.startswith("Not determined: the pods or nodes ranked by the measure")
    assert "(HTTP 503)" in answer.summary.split(". ")[0]


def test_a_yes_no_question_opens_with_the_verdict_decided_on_what_was_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """'Is it restarting?' got 'no cause is established'; 'were there more 502s?' the
    edge's diagnosis with no yes and no count."""
    answer = ask("is catalog-api in dc-b restarting?", capsys)
    assert "No: catalog-api in dc-b: 0 restarts in the window over 3 containers" in (answer.summary)
    answer = ask("были ли ещё такие 502 у service-a в dc-a за последний час?", capsys)
    assert answer.summary.startswith(
        "Да: service-a (payments) in dc-a: 3 responses with status 502"
    )
    answer = ask("есть ли 5xx у search-api в dc-b?", capsys)
    assert answer.summary.startswith("Нет: search-api in dc-b: no responses with status 5xx")


def test_two_independent_causes_of_one_symptom_are_both_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two pods refused by the quota and a third that fits no node: the answer said the
    scheduler's reason and stopped."""
    answer = ask("почему notify-push в stage не может подняться до 9 реплик после 14:18?", capsys)
    first, _, rest = answer.summary.partition("Кроме того: ")
    assert "FailedScheduling" in first and "Insufficient cpu" in first
    assert "FailedCreate" in rest and "exceeded quota: notifications-quota" in rest
