"""Token-F1 matching of element texts, as the EnvDistraction authors score generalist models.

SQuAD normalisation (lowercase, punctuation to spaces, drop the articles "an" and
"the" — not "a", as in their code — collapse spaces) and a synonym list for the
close button, whose label is often an icon ("Button <icon-cross>", "×").
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache

DEFAULT_THRESHOLD = 0.6
CHAT_THRESHOLD = 0.5  # the authors' value for the chat subset

CLOSE_SYNONYMS = ("close", "x", "close (x)", "✖", "❌", "close icon", "×", "cross mark", "close button",
                  "dismiss", "✕")
_CLOSE_MARKERS = ("<icon-cross>", "×", "✕", "✖", "❌", "close (")
# Words that describe the widget or the action rather than name the element
# ("Click the Submit button" names "submit"); the authors strip similar lists.
_FILLER = {"click", "tap", "press", "button", "btn", "icon", "link", "input", "field", "type", "text",
           "type_text", "select", "on", "element"}
_PUNCT = re.compile("[" + re.escape(string.punctuation) + "“”‘’…]")
_ARTICLES = re.compile(r"\b(an|the)\b")


@lru_cache(maxsize=200_000)
def normalize(text: str) -> str:
    text = _PUNCT.sub(" ", text.lower())
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


# An answer often starts with its action ("click Headphone icon"); dropping only that verb keeps
# widget nouns the annotator may also have written ("Headphone icon").
_VERBS = {"click", "tap", "press", "select", "type", "type_text"}


@lru_cache(maxsize=200_000)
def tokens(text: str) -> tuple[str, ...]:
    words = normalize(text).split()
    kept = [w for w in words if w not in _FILLER]
    return tuple(kept or words)  # "Button" alone still has to match something


@lru_cache(maxsize=200_000)
def token_views(text: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The same text three ways: filler words dropped, only a leading action verb dropped, as is."""
    words = tuple(normalize(text).split())
    verbless = words[1:] if len(words) > 1 and words[0] in _VERBS else words
    return tokens(text), verbless, words


@lru_cache(maxsize=200_000)
def _bags(text: str) -> tuple[frozenset[str], tuple[tuple[Counter, int] | None, ...]]:
    """Every word of the text, and each view as (token counts, length), cached: scoring compares one
    answer with many labels and one label with many answers."""
    views = token_views(text)
    return frozenset(views[2]), tuple((Counter(v), len(v)) if v else None for v in views)


def _f1(p: Counter, p_len: int, g: Counter, g_len: int) -> float:
    same = sum((p & g).values())
    if same == 0:
        return 0.0
    precision, recall = same / p_len, same / g_len
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, gold: str) -> float:
    """Token F1, the best of three views applied to both sides alike, so dropping filler words can
    only help: "click Headphone icon at the bottom left" vs "Headphone icon" is 0.57 (verb dropped),
    not the 0.40 that dropping "icon" as a filler word would give."""
    p_words, p_views = _bags(prediction)
    g_words, g_views = _bags(gold)
    if not p_words or not g_words:
        return float(p_words == g_words and bool(prediction.strip()))
    if p_words.isdisjoint(g_words):
        return 0.0  # every view is a subset of the words: nothing in common in any of them
    return max(_f1(*p, *g) for p, g in zip(p_views, g_views, strict=True) if p and g)


def is_close_label(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in _CLOSE_MARKERS) or normalize(text) in _close_names()


@lru_cache(maxsize=1)
def _close_names() -> frozenset[str]:
    return frozenset(normalize(s) for s in CLOSE_SYNONYMS)


@lru_cache(maxsize=200_000)
def label_variants(text: str, role: str = "") -> tuple[str, ...]:
    """The texts an annotated action answers to: its own, plus the close synonyms for a close button."""
    if role == "close" or is_close_label(text):
        return (text, *CLOSE_SYNONYMS)
    return (text,)


def best_f1(prediction: str, label_text: str, role: str = "") -> float:
    return max(token_f1(prediction, v) for v in label_variants(label_text, role))
