"""The authors' f1_v2 for many text answers at once: answers parsed once (evaluation/parsed_answers.py) against
their screens' label lists, token F1 computed with numpy for every (answer, label) pair of a chunk.

The label lists are rules/envdistraction.py's (_entries): per screen the gold, distracted and other labels'
cleaned texts, gold expanded with the close-button synonyms (the string list once when a gold plain-string
label is a close label, the pair list for each gold pair that is). Only which kinds some label matched is
needed for the counted flags, so the order of the entries does not matter here. The F1 of a pair is worked
out with the same floating-point operations in the same order as envdistraction_text.f1, so a score at the
threshold compares the same; tests/test_parsed_answers.py checks the flags against EnvDistractionRules.score.
"""

from __future__ import annotations

import json
from itertools import chain

import numpy as np

from desktop_app.evaluation.columns import StepActions
from desktop_app.evaluation.rules import envdistraction_text as txt
from desktop_app.evaluation.rules.envdistraction import names_a_result

_STRING_SYNONYMS = tuple(txt.label_bag(s) for s in txt.CLOSE_SYNONYMS_FOR_STRINGS)
_PAIR_SYNONYMS = tuple(txt.label_bag(s) for s in txt.CLOSE_SYNONYMS_FOR_PAIRS)


def _out_of_screen(meta) -> bool:
    if isinstance(meta, str):  # read as text (evaluation/columns.py): "{}" needs no parser
        meta = {} if meta == "{}" else json.loads(meta)
    return bool((meta or {}).get("out_of_screen"))


def names_results(actions: StepActions) -> np.ndarray:
    """Per step of actions (loaded with texts), rules/envdistraction._has_result_ids: every gold and distracted
    label is a pair and one of them names a result number (their google_id then applies on search and category
    pages)."""
    rows = actions.all_rows()
    ranked = np.flatnonzero(actions.code < 2)
    step_of = np.repeat(np.arange(len(actions.step_ids)), actions.ends - actions.starts)[ranked]
    boxless = np.isnan(actions.boxes[ranked, 0])
    plain = np.zeros(len(ranked), dtype=bool)  # a plain-string label (no box and not "<oos>")
    plain[boxless] = [not _out_of_screen(rows[k][8]) for k in ranked[boxless].tolist()]
    names = np.fromiter((names_a_result(rows[k][7]) for k in ranked.tolist()), dtype=bool, count=len(ranked))
    size = len(actions.step_ids)
    return ((np.bincount(step_of, minlength=size) > 0) & (np.bincount(step_of[plain], minlength=size) == 0)
            & (np.bincount(step_of[names], minlength=size) > 0))


def f1_flags(tokens: list[str], at: np.ndarray, thresholds: np.ndarray,
             actions: StepActions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gold, distracted, available) per answer: some label of that kind has token F1 >= the answer's threshold.
    tokens: each answer's stored tokens (space-separated); at: its step's position in actions (loaded with
    texts; every answer's step has actions)."""
    n = len(tokens)
    words = [t.split() for t in tokens]
    a_len = np.fromiter(map(len, words), dtype=np.int64, count=n)
    flat = list(chain.from_iterable(words))
    rows = actions.all_rows()
    texts = [row[7] for row in rows]
    bag_of = {text: i for i, text in enumerate(dict.fromkeys(texts))}  # each distinct label text once
    bags = [txt.label_bag(text) for text in bag_of]
    closes = [k for k, text in enumerate(texts) if text in _CLOSE]
    if closes:
        bags += [*_STRING_SYNONYMS, *_PAIR_SYNONYMS]
    label_words = [list(b.counts) for b in bags]
    vocab = {w: i for i, w in enumerate(dict.fromkeys(chain(flat, chain.from_iterable(label_words))))}
    v = max(len(vocab), 1)
    # the answers' token multisets as sorted keys answer * v + token, with their counts
    a_key, a_cnt = np.unique(np.repeat(np.arange(n, dtype=np.int64), a_len) * v
                             + np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat)),
                             return_counts=True)
    a_idx, a_tok = a_key // v, a_key % v
    # the label bags' as keys bag * v + token (each bag's tokens are distinct), with their counts
    b_len = np.fromiter((b.n for b in bags), dtype=np.int64, count=len(bags))
    per_bag = np.fromiter(map(len, label_words), dtype=np.int64, count=len(bags))
    b_key = (np.repeat(np.arange(len(bags), dtype=np.int64), per_bag) * v
             + np.fromiter(map(vocab.__getitem__, chain.from_iterable(label_words)), dtype=np.int64,
                           count=int(per_bag.sum())))
    b_cnt = np.fromiter(chain.from_iterable(b.counts.values() for b in bags), dtype=np.int64,
                        count=int(per_bag.sum()))
    order = np.argsort(b_key, kind="stable")
    b_key, b_count = b_key[order], b_cnt[order]
    row_bag = np.fromiter(map(bag_of.__getitem__, texts), dtype=np.int64, count=len(texts))
    # every answer against every action of its screen (actions come grouped by step, in annotation order)
    starts, ends = actions.starts[at], actions.ends[at]
    per = ends - starts
    pa = np.repeat(np.arange(n), per)
    pr = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per) + np.repeat(starts, per)
    pb, pk = row_bag[pr], actions.code[pr].astype(np.int64)
    extra = _synonym_entries(rows, closes, actions, len(bag_of))
    if extra:  # the close-button synonyms, gold entries of the screens with such a gold label
        step_of = actions.step_ids[at]
        more = [(i, b) for i, step in enumerate(step_of.tolist()) if step in extra for b in extra[step]]
        pa = np.r_[pa, np.array([i for i, _ in more], dtype=np.int64)]
        pb = np.r_[pb, np.array([b for _, b in more], dtype=np.int64)]
        pk = np.r_[pk, np.zeros(len(more), dtype=np.int64)]
        order = np.argsort(pa, kind="stable")
        pa, pb, pk = pa[order], pb[order], pk[order]
    gold, distracted, available = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    if not len(pa):
        return gold, distracted, available
    # every answer token against every label of its screen (pairs are grouped by answer, in answer order)
    pairs_of = np.bincount(pa, minlength=n)
    first_pair = np.cumsum(pairs_of) - pairs_of
    reps = pairs_of[a_idx]
    pair = (np.repeat(first_pair[a_idx], reps)
            + (np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)))
    key = pb[pair] * v + np.repeat(a_tok, reps)
    found_at = np.searchsorted(b_key, key)
    found = found_at < len(b_key)
    found[found] = b_key[found_at[found]] == key[found]
    shared_count = np.minimum(np.repeat(a_cnt, reps)[found], b_count[found_at[found]])
    same = np.bincount(pair[found], weights=shared_count, minlength=len(pa)).astype(np.int64)  # small, exact
    # envdistraction_text.f1, operation for operation, where some token is shared (0 elsewhere)
    shared = same > 0
    f1 = np.zeros(len(pa), dtype=np.float64)
    s = same[shared]
    precision = 1.0 * s / a_len[pa[shared]]
    recall = 1.0 * s / b_len[pb[shared]]
    f1[shared] = (2 * precision * recall) / (precision + recall)
    hit = f1 >= thresholds[pa]
    gold[pa[hit & (pk == 0)]] = True
    distracted[pa[hit & (pk == 1)]] = True
    available[pa[hit]] = True
    return gold, distracted, available


_CLOSE = frozenset(txt.CLOSE_LABELS)


def _synonym_entries(rows, closes: list[int], actions: StepActions, first: int) -> dict[int, list[int]]:
    """step id -> the bags of the synonyms their _entries appends to its gold list: the string list once when a
    gold plain-string label is a close label, the pair list for each gold pair that is. The synonyms' bags are
    numbered from `first`, string synonyms first."""
    strings = list(range(first, first + len(_STRING_SYNONYMS)))
    pairs = list(range(first + len(_STRING_SYNONYMS), first + len(_STRING_SYNONYMS) + len(_PAIR_SYNONYMS)))
    string_close: set[int] = set()
    out: dict[int, list[int]] = {}
    for k in closes:
        if actions.code[k] != 0:
            continue
        row = rows[k]
        step = row[0]
        if row[2] is not None or _out_of_screen(row[8]):  # a [text, box] or [text, "<oos>"] pair
            out.setdefault(step, []).extend(pairs)
        elif step not in string_close:
            string_close.add(step)
            out.setdefault(step, []).extend(strings)
    return out
