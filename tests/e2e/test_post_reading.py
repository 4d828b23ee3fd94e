"""Every demo question's post reads in ten seconds: the README's questions (each in a
thread of its own, as the command line asks them) and the demo world's (in one thread, as
the web chat offers them), through the real conversation path. Each post's headline is
under 300 characters with no UID, no hypothesis repeats it, the gap lines show no internal
id and are in the asker's language, and the post before the folded evidence is under
1,500 characters (evals/postcheck.py measures; dev/posts.py prints the same table)."""

from __future__ import annotations

import pytest

from evals.postcheck import PostReading, ask_demo, demo_threads, read_post
from planner import Answer


@pytest.fixture(scope="module")
def posts() -> list[tuple[str, Answer]]:
    return ask_demo(demo_threads())


def test_the_readme_and_the_demo_world_give_the_questions(posts: list[tuple[str, Answer]]) -> None:
    asked = [q for q, _ in posts]
    assert len(asked) >= 25 and "почему service-a в dc-a отдавал 502 в 14:11?" in asked


def test_every_demo_post_reads_in_ten_seconds(posts: list[tuple[str, Answer]]) -> None:
    readings: list[PostReading] = [read_post(q, a) for q, a in posts]
    failing = {r.question: r.problems for r in readings if r.problems}
    assert not failing, failing


def test_a_follow_up_whose_evidence_shows_health_is_headed_as_healthy() -> None:
    """ "а в dc-a?" after a crash-loop in dc-b: the service is 2/2 ready on the old release
    there, and the headline says so with what was read."""
    (_, crash), (_, there) = ask_demo([["почему service-d в dc-b падает?", "а в dc-a?"]])
    assert "CrashLoopBackOff" in crash.summary
    assert "service-d в dc-a выглядит исправным: готово 2/2" in there.summary
    assert "причина не установлена" not in there.summary


def test_a_crash_loop_is_said_without_the_kubelets_back_off_text(
    posts: list[tuple[str, Answer]],
) -> None:
    """The back-off message restates CrashLoopBackOff and names no cause: the summary
    leaves it to the pod's state in the evidence, and says what the log says instead."""
    crashes = [a for _, a in posts if "CrashLoopBackOff" in a.summary]
    assert crashes
    for answer in crashes:
        assert "restarting failed container=" not in answer.summary, answer.summary
        assert any("restarting failed container=" in f.text for f in answer.facts)
