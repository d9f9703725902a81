"""Qrels completion (Büttcher et al., SIGIR 2007; docs/pool-bias.md, "Completing biased qrels")."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from segeval.analyses.pool import judged_items, top_results
from segeval.core.arrays import BoolArray, FloatArray, IntArray
from segeval.core.domains import CUTOFF, OPEN_UNIT
from segeval.core.errors import InputError, ParameterError, SegevalError, check_choice
from segeval.core.settings import DEFAULTS
from segeval.readers.tables import predicted_mask
from segeval.readers.texts import Texts
from segeval.readers.validate import is_documents

CLASSIFIERS = ("kld", "svm")
KLD_FITS = ("leave-one-out", "resubstitution")
STATS_COLUMNS = ("query", "judged", "relevant", "classified", "predicted_relevant", "train_precision", "train_recall")
if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """Lower-cased runs of word characters."""
    return TOKEN.findall(text.lower())


class Vocabulary:
    """Term statistics of the collection: index, collection frequency and document frequency."""

    def __init__(self, collection: Sequence[str]) -> None:
        index: dict[str, int] = {}
        rows: list[IntArray] = []
        for text in collection:
            rows.append(np.asarray([index.setdefault(t, len(index)) for t in tokenize(text)], dtype=np.int64))
        self.index = index
        self.documents = len(collection)
        n = len(index)
        all_ids = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        self.cf = np.bincount(all_ids, minlength=n).astype(np.float64)
        self.df = np.bincount(np.concatenate([np.unique(r) for r in rows]) if rows else all_ids, minlength=n).astype(
            np.float64
        )
        total = self.cf.sum()
        self.collection_model = self.cf / total if total else self.cf  # P(t | collection)

    def __len__(self) -> int:
        return len(self.index)

    def counts(self, texts: Sequence[str]) -> tuple[IntArray, IntArray, FloatArray]:
        """Term counts of ``texts`` as sparse rows: (row, term, count) triples, summed per (row, term)."""
        rows: list[int] = []
        terms: list[int] = []
        for i, text in enumerate(texts):
            ids = [self.index[t] for t in tokenize(text) if t in self.index]
            rows += [i] * len(ids)
            terms += ids
        r = np.asarray(rows, dtype=np.int64)
        t = np.asarray(terms, dtype=np.int64)
        key = r * max(len(self), 1) + t
        uniq, n = np.unique(key, return_counts=True)
        return uniq // max(len(self), 1), uniq % max(len(self), 1), n.astype(np.float64)


def kld_divergences(
    rows: IntArray,
    terms: IntArray,
    counts: FloatArray,
    n_items: int,
    relevant_terms: IntArray,
    relevant_counts: FloatArray,
    collection: FloatArray,
    smoothing: float,
) -> FloatArray:
    """KLD(M_D, M_R) per item (natural log), both models smoothed with the collection model."""
    lam = smoothing
    a_r = lam * collection[relevant_terms]
    p_r_support = (1 - lam) * relevant_counts / relevant_counts.sum() + a_r
    base_support = a_r * np.log(a_r / p_r_support)
    pos = np.minimum(np.searchsorted(relevant_terms, terms), len(relevant_terms) - 1)
    in_support = relevant_terms[pos] == terms
    a = lam * collection[terms]
    p_r = np.where(in_support, p_r_support[pos], a)
    base = np.where(in_support, base_support[pos], 0.0)
    lengths = np.bincount(rows, weights=counts, minlength=n_items)
    p = (1 - lam) * counts / lengths[rows] + a
    correction = p * np.log(p / p_r) - base
    out = base_support.sum() + np.bincount(rows, weights=correction, minlength=n_items)
    empty = lengths == 0
    if empty.any():  # sum over the vocabulary of P_C ln(P_C / M_R); outside the support M_R = λ·P_C
        c = collection[relevant_terms]
        out[empty] = float(np.sum(c * np.log(c / p_r_support)) + (1 - c.sum()) * np.log(1 / lam))
    return np.asarray(out, dtype=np.float64)


def kld_threshold(judged: FloatArray, n_relevant: int) -> float:
    """The midpoint under which ``n_relevant`` of the judged divergences fall."""
    values = np.sort(np.asarray(judged, dtype=np.float64))
    if n_relevant <= 0:
        return -math.inf
    if n_relevant >= len(values):
        return float(values[-1])
    lo, hi = float(values[n_relevant - 1]), float(values[n_relevant])
    return (lo + hi) / 2 if lo < hi else lo


def tfidf(
    rows: IntArray, terms: IntArray, counts: FloatArray, n_items: int, vocabulary: Vocabulary, n_terms: int
) -> csr_matrix:
    """L1-normalised TF-IDF rows (a sparse matrix) over the ``n_terms`` most frequent collection terms (ties: term
    order)."""
    from scipy.sparse import csr_matrix

    keep = np.argsort(-vocabulary.cf, kind="stable")[:n_terms]
    column = np.full(len(vocabulary), -1, dtype=np.int64)
    column[keep] = np.arange(len(keep))
    idf = np.log(vocabulary.documents / np.maximum(vocabulary.df, 1))
    kept = column[terms] >= 0
    r, t = rows[kept], terms[kept]
    values = counts[kept] * idf[t]
    norms = np.bincount(r, weights=np.abs(values), minlength=n_items)
    values = np.divide(values, norms[r], out=np.zeros_like(values), where=norms[r] > 0)
    return csr_matrix((values, (r, column[t])), shape=(n_items, max(len(keep), 1)))


def svm_predict(x_train: csr_matrix, labels: BoolArray, x_test: csr_matrix) -> tuple[BoolArray, BoolArray]:
    """A linear SVM's decisions on the training and the test items (C = 1 / mean(x·x), SVMlight's default)."""
    n_train, n_test = x_train.shape[0], x_test.shape[0]
    if labels.all() or not labels.any():
        return np.full(n_train, labels[0] if len(labels) else False), np.full(n_test, bool(labels[:1].any()))
    try:
        from sklearn.svm import SVC
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise SegevalError("The svm classifier needs scikit-learn: pip install 'segeval[complete]'.") from exc

    squares = float(np.mean(np.asarray(x_train.multiply(x_train).sum(axis=1)).ravel()))
    model = SVC(kernel="linear", C=1.0 / squares if squares > 0 else 1.0)
    model.fit(x_train, labels)
    fit = np.asarray(model.decision_function(x_train) > 0, dtype=bool)
    out = np.asarray(model.decision_function(x_test) > 0, dtype=bool) if n_test else np.zeros(0, dtype=bool)
    return fit, out


@dataclass(frozen=True)
class Completion:
    """The predicted lines, each query's classifier statistics, and the items without a token."""

    classifier: str
    predicted: pd.DataFrame
    stats: pd.DataFrame
    no_text: int
    no_text_example: str = ""

    def lines(self, time_format: str = DEFAULTS.time_format) -> list[str]:
        """The predicted qrels lines, in the qrels' own format, marked ``predicted:CLASSIFIER``."""
        from segeval.readers.formats import SOURCE_PREDICTED, format_time

        mark = SOURCE_PREDICTED + self.classifier
        p = self.predicted
        if np.isnan(p["start"].to_numpy(dtype=np.float64)).all():
            return [f"{q} 0 {d} {r} {mark}" for q, d, r in zip(p["query"], p["item"], p["rel"], strict=True)]
        return [
            f"{q} Q0 {v} {format_time(s, time_format)} {format_time(e, time_format)} {r} {mark}"
            for q, v, s, e, r in zip(p["query"], p["item"], p["start"], p["end"], p["rel"], strict=True)
        ]


def unjudged_top(qrels: pd.DataFrame, run: pd.DataFrame, depth: int, adapter: str | None = None) -> pd.DataFrame:
    """The run's results in its top ``depth`` per qrels query that no qrels line judges (nor ``adapter`` matches)."""
    data, queries, items, adapted = top_results(qrels, run, depth, adapter)
    start, end = data.run["start"].to_numpy(), data.run["end"].to_numpy()
    if is_documents(qrels):
        judged = set(judged_items(qrels))
        pairs = zip(queries.tolist(), items.tolist(), strict=True)
        keep = np.asarray([pair not in judged for pair in pairs], dtype=bool)
    else:
        keep = np.zeros(len(data.run), dtype=bool)
        for k, a in enumerate(adapted):
            matched = np.zeros(int(data.run_bounds[k + 1] - data.run_bounds[k]), dtype=bool)
            has_unit = np.zeros_like(matched)
            has_unit[a.source] = True
            matched[a.source[np.diff(a.match_offsets) > 0]] = True
            keep[data.run_bounds[k] : data.run_bounds[k + 1]] = has_unit & ~matched
    return pd.DataFrame({"query": queries[keep], "item": items[keep], "start": start[keep], "end": end[keep]})


def complete_qrels(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame] | Sequence[pd.DataFrame],
    texts: Texts,
    classifier: str = "kld",
    depth: int = 100,
    *,
    adapter: str | None = None,
    smoothing: float = 0.2,
    terms: int = 1_000_000,
    relevance_level: int = 1,
    kld_fit: str = "leave-one-out",
) -> Completion:
    """Train ``classifier`` per query on the judged items and label the unjudged items of the runs."""
    _check_completion(qrels, texts, classifier, depth, smoothing, terms, kld_fit)
    run_frames = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    candidates = pd.concat([unjudged_top(qrels, r, depth, adapter) for r in run_frames], ignore_index=True)
    candidates = candidates.drop_duplicates(["query", "item", "start", "end"]).reset_index(drop=True)

    judged = qrels[qrels["rel"].to_numpy() >= 0]
    vocabulary = Vocabulary(texts.collection())
    stats: list[list[object]] = []
    out: list[pd.DataFrame] = []
    no_text = 0
    example = ""
    test_rows = candidates.groupby("query", sort=False).indices
    no_rows = np.zeros(0, dtype=np.int64)
    for query, rows in judged.groupby("query", sort=False, observed=True).indices.items():
        train = judged.iloc[rows]
        test = candidates.iloc[test_rows.get(query, no_rows)]
        train_text, has_train = _texts_of(texts, train)
        test_text, has_test = _texts_of(texts, test)
        no_text += int((~has_train).sum() + (~has_test).sum())
        if not example:
            for frame, has in ((train, has_train), (test, has_test)):
                if not has.all():
                    example = _describe(query, frame.iloc[int(np.flatnonzero(~has)[0])], texts.segments)
                    break
        labels = train["rel"].to_numpy()[has_train] >= relevance_level
        fit, decision = _classify(classifier, vocabulary, train_text, labels, test_text, smoothing, terms, kld_fit)
        kept = test[has_test]
        out.append(kept.assign(rel=decision.astype(np.int64)))
        tp = int((fit & labels).sum())
        precision = tp / fit.sum() if fit.sum() else math.nan
        recall = tp / labels.sum() if labels.sum() else math.nan
        stats.append([query, len(labels), int(labels.sum()), len(kept), int(decision.sum()), precision, recall])
    columns = ["query", "item", "start", "end", "rel"]
    predicted = pd.concat(out, ignore_index=True)[columns] if out else pd.DataFrame(columns=columns)
    return Completion(classifier, predicted, pd.DataFrame(stats, columns=list(STATS_COLUMNS)), no_text, example)


def _check_completion(
    qrels: pd.DataFrame, texts: Texts, classifier: str, depth: int, smoothing: float, terms: int, kld_fit: str
) -> None:
    """Refuse options out of their domain, texts of the other kind, and qrels that already hold predicted lines."""
    check_choice("classifier", classifier, CLASSIFIERS)
    check_choice("kld_fit", kld_fit, KLD_FITS)
    CUTOFF.check("depth", depth)
    CUTOFF.check("terms", terms)
    OPEN_UNIT.check("smoothing", smoothing)
    documents = is_documents(qrels)
    if texts.segments == documents:
        want = "a transcript ('video start end text')" if not documents else "document texts ('docno<TAB>text')"
        raise ParameterError(
            f"The 'texts' parameter must be {want} for {'document' if documents else 'segment'} "
            f"qrels. Got {texts.path} instead."
        )
    predicted_lines = predicted_mask(qrels)
    if predicted_lines.any():
        line = int(qrels["line"].to_numpy()[np.flatnonzero(predicted_lines)[0]])
        raise InputError(
            str(qrels.attrs.get("path", "qrels")),
            "holds predicted judgements; expected human qrels to complete (predicted lines are never training items)",
            line=line,
        )


def _texts_of(texts: Texts, frame: pd.DataFrame) -> tuple[list[str], BoolArray]:
    """The texts of the items of ``frame`` that hold a token, and which items do."""
    found = [texts.text(i, s, e) for i, s, e in zip(frame["item"], frame["start"], frame["end"], strict=True)]
    has = np.asarray([t is not None and TOKEN.search(t) is not None for t in found], dtype=bool)
    return [t for t, h in zip(found, has.tolist(), strict=True) if h and t is not None], has


def _describe(query: object, row: pd.Series, segments: bool) -> str:
    """An item for a note: ``query Q document D`` or ``query Q video V start-end`` (seconds)."""
    if not segments:
        return f"query {query} document {row['item']}"
    return f"query {query} video {row['item']} {float(row['start']):g}-{float(row['end']):g} s"


def _classify(
    classifier: str,
    vocabulary: Vocabulary,
    train_text: list[str],
    labels: BoolArray,
    test_text: list[str],
    smoothing: float,
    terms: int,
    kld_fit: str,
) -> tuple[BoolArray, BoolArray]:
    """Decisions on the training items and on the test items."""
    collection = vocabulary.collection_model
    train = vocabulary.counts(train_text)
    test = vocabulary.counts(test_text)
    if classifier == "svm":
        x_train, x_test = (
            tfidf(*c, n, vocabulary, terms) for c, n in ((train, len(train_text)), (test, len(test_text)))
        )
        return svm_predict(x_train, labels, x_test)
    if not labels.any():
        return np.zeros(len(train_text), dtype=bool), np.zeros(len(test_text), dtype=bool)
    relevant_rows = np.flatnonzero(labels)
    in_relevant = np.isin(train[0], relevant_rows)
    support, inverse = np.unique(train[1][in_relevant], return_inverse=True)
    relevant_counts = np.bincount(inverse, weights=train[2][in_relevant], minlength=len(support)).astype(np.float64)
    if relevant_counts.sum() == 0:  # relevant items without a single token: no model to compare with
        return labels.copy(), np.zeros(len(test_text), dtype=bool)

    def kld(rows: IntArray, ids: IntArray, counts: FloatArray, n_items: int, model: FloatArray) -> FloatArray:
        return kld_divergences(rows, ids, counts, n_items, support, model, collection, smoothing)

    judged_kld = kld(*train, len(train_text), relevant_counts)
    if kld_fit == "leave-one-out":  # a relevant item's divergence from the model of the other relevant items
        for i in relevant_rows:
            own = train[0] == i
            rest = relevant_counts.copy()
            np.subtract.at(rest, np.searchsorted(support, train[1][own]), train[2][own])
            if rest.sum() > 0:
                judged_kld[i] = kld(np.zeros(int(own.sum()), dtype=np.int64), train[1][own], train[2][own], 1, rest)[0]
    test_kld = kld(*test, len(test_text), relevant_counts)
    threshold = kld_threshold(judged_kld, int(labels.sum()))
    return judged_kld <= threshold, test_kld <= threshold
