"""The headline a person reads first: identifiers short, whole sentences within 300
characters, nothing of the summary lost (what does not fit is the details paragraph)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.headline import HEADLINE_MAX, short_identifiers, split_headline

UID = "1f8de15f-977b-4eba-a625-09740b10854d"
KUBELET = f"back-off 5m0s restarting failed container=app pod=web-7b6c9f5d84-r2vxk_shop({UID})"


def test_a_kubelet_uid_goes_with_the_namespace_glued_to_it() -> None:
    assert short_identifiers(KUBELET) == (
        "back-off 5m0s restarting failed container=app pod=web-7b6c9f5d84-r2vxk"
    )
    assert short_identifiers(f"owner {UID} and ({UID})") == "owner 1f8de15f… and"


def test_an_image_keeps_its_name_and_tag_and_a_short_digest() -> None:
    text = (
        "image registry.example.com:5000/team/web:2.4.0, "
        "ghcr.io/org/app@sha256:0123456789abcdef0123456789abcdef, "
        "localhost/x:dev"
    )
    assert short_identifiers(text) == "image web:2.4.0, app@sha256:0123456789ab, x:dev"


def test_paths_urls_and_versions_that_are_not_images_stay() -> None:
    for text in (
        "project shop/web, job deploy:prod #5531195",
        "see https://gitlab.example.com/shop/web:8080/-/jobs/1",
        "release v2.4.0 at 13:52:13",
    ):
        assert short_identifiers(text) == text


def test_whole_sentences_fit_the_headline_and_the_rest_follows() -> None:
    first = "Pod web-1 in prod is crash-looping since release 2.4.0 (job #5531195, 13:52)."
    second = "The new version exits because DATABASE_URL is not set."
    rest = "Also found: " + "a long event message, " * 20 + "said whole."
    headline, details = split_headline(f"{first} {second} {rest}".strip())
    assert headline == f"{first} {second}"
    assert details == rest and len(headline) <= HEADLINE_MAX


def test_a_first_sentence_too_long_is_cut_at_a_word_and_continues_in_the_details() -> None:
    long = "node " + " ".join(f"wk-{n:02d} is ready," for n in range(60)) + " all fine."
    headline, details = split_headline(long)
    assert len(headline) <= HEADLINE_MAX and headline.endswith("…")
    assert details.startswith("…")
    # nothing is lost: every word is in the headline or the details
    assert set(long.split()) <= set((headline + " " + details).replace("…", " ").split())


def test_a_long_first_sentence_is_cut_at_a_clause_when_one_fits() -> None:
    first = (
        "Last change of web in prod: job deploy #7 of pipeline 90402 run by ann at 13:51, "
        "status failed, image tag v2.4.0, commit 9b1e4f27 by dan, "
    )
    second = "before it: job deploy #6 run by bob at 2026-07-15 15:47, status success, " * 4
    headline, details = split_headline(first + "tag v2; " + second.rstrip(", ") + ".")
    assert headline == first + "tag v2…"
    assert details.startswith("…before it: job deploy #6")


@given(st.text(alphabet=st.sampled_from("ab .,:;()?!-\u2026Я1"), max_size=800))
def test_the_headline_is_never_over_the_limit(text: str) -> None:
    headline, _ = split_headline(text)
    assert len(headline) <= HEADLINE_MAX
