"""Qrels completion (issue 7 item 4): KLD and SVM classifiers, texts, completed qrels, and the paper's effect."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from segeval.analyses.complete import (
    Vocabulary,
    complete_qrels,
    kld_divergences,
    kld_threshold,
    tfidf,
    tokenize,
    unjudged_top,
)
from segeval.analyses.correlate import kendall_tau_ties_agree
from segeval.core.errors import InputError, ParameterError
from segeval.core.pipeline import evaluate
from segeval.readers.formats import format_time, parse_hms, parse_mmss, parse_seconds
from segeval.readers.tables import predicted_mask, read_qrels, read_run
from segeval.readers.texts import Texts, read_texts
from tests.conftest import full_only, run_cli, sliced
from tests.unit.analyses.test_synthetic_pool import synthetic

# the hand-made collection: P_C = a 3/9, b 2/9, c 4/9 (9 tokens)
TEXTS = {"d1": "A a, b", "d2": "a c", "d3": "b c c", "d4": "c"}


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_tokens_are_lower_cased_word_runs() -> None:
    assert tokenize("A a, b-C's  ÉTÉ") == ["a", "a", "b", "c", "s", "été"]


def test_kld_of_a_document_from_the_relevant_model_by_hand() -> None:
    voc = Vocabulary(list(TEXTS.values()))
    np.testing.assert_allclose(voc.collection_model, [3 / 9, 2 / 9, 4 / 9])  # terms in first-seen order a, b, c
    rows, terms, counts = voc.counts([TEXTS["d1"], TEXTS["d2"], TEXTS["d3"], TEXTS["d4"], ""])
    # R = {d1}: a 2, b 1
    kld = kld_divergences(rows, terms, counts, 5, np.array([0, 1]), np.array([2.0, 1.0]), voc.collection_model, 0.2)
    # M_R = 0.8*(2/3, 1/3, 0) + 0.2*P_C = (0.6, 0.3111, 0.0889); M_d2 = 0.8*(1/2, 0, 1/2) + 0.2*P_C
    # = (0.4667, 0.0444, 0.4889): KLD = .4667 ln(.4667/.6) + .0444 ln(.0444/.3111) + .4889 ln(.4889/.0889) = 0.6297
    assert kld[1] == pytest.approx(0.629667, abs=1e-6)
    assert kld[0] == pytest.approx(0.0, abs=1e-12)  # d1 has the relevant model itself
    # M_d3 = 0.8*(0, 1/3, 2/3) + 0.2*P_C = (0.0667, 0.3111, 0.6222): KLD = 1.0643
    assert kld[2] == pytest.approx(1.064307, abs=1e-6)
    # M_d4 = 0.8*(0, 0, 1) + 0.2*P_C = (0.0667, 0.0444, 0.8889): KLD = 1.8138
    assert kld[3] == pytest.approx(1.813776, abs=1e-6)
    # no tokens: the collection model, sum P_C ln(P_C / M_R) = 0.4446
    assert kld[4] == pytest.approx(0.444605, abs=1e-6)


def test_kld_threshold_lets_exactly_r_judged_items_through() -> None:
    # sorted 0.1 0.3 | 0.5 0.9: midpoint of the 2nd and 3rd smallest
    assert kld_threshold(np.array([0.5, 0.1, 0.9, 0.3]), 2) == pytest.approx(0.4)
    values = np.array([0.5, 0.1, 0.9, 0.3])
    assert int((values <= kld_threshold(values, 2)).sum()) == 2  # precision = recall on the training items
    # a tie at the boundary: all tied items pass (3 instead of 2)
    assert kld_threshold(np.array([0.1, 0.3, 0.3, 0.9]), 2) == 0.3
    assert kld_threshold(np.array([0.1, 0.3]), 0) == -math.inf  # no relevant item: nothing passes
    assert kld_threshold(np.array([0.1, 0.3]), 2) == 0.3  # every judged item relevant: all judged pass


def test_kld_completion_on_the_hand_made_collection(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path / "q", "1 0 d1 1\n1 0 d3 0\n1 0 d4 0\n"))
    run = read_run(write(tmp_path / "r", "1 Q0 d1 1 4 x\n1 Q0 d2 2 3 x\n1 Q0 d3 3 2 x\n1 Q0 d4 4 1 x\n"))
    done = complete_qrels(qrels, [run], Texts("t", documents=TEXTS), "kld", depth=4)
    # judged divergences d1 0, d3 1.0643, d4 1.8138 and |R| = 1: threshold (0 + 1.0643) / 2 = 0.5322 < 0.6297 (d2)
    assert done.predicted[["query", "item", "rel"]].values.tolist() == [["1", "d2", 0]]
    assert done.stats.iloc[0][["judged", "relevant", "classified", "predicted_relevant"]].tolist() == [3, 1, 1, 0]
    assert done.stats.iloc[0]["train_precision"] == done.stats.iloc[0]["train_recall"] == 1.0
    # with d3 relevant too, R = {d1, d3} = a 2, b 2, c 2 is closer to d2 (a, c): now predicted relevant
    qrels2 = read_qrels(write(tmp_path / "q2", "1 0 d1 1\n1 0 d3 1\n1 0 d4 0\n"))
    assert complete_qrels(qrels2, [run], Texts("t", documents=TEXTS), "kld", 4).predicted["rel"].tolist() == [1]
    # depth 1 sees only d1, which is judged: nothing to classify
    assert len(complete_qrels(qrels, [run], Texts("t", documents=TEXTS), "kld", depth=1).predicted) == 0


def test_leave_one_out_scores_a_relevant_item_against_the_other_relevant_items() -> None:
    texts = {"r1": "a a b", "r2": "a b b", "n1": "c c d", "u1": "a b"}
    voc = Vocabulary(list(texts.values()))
    qrels = pd.DataFrame({"query": ["1"] * 3, "item": ["r1", "r2", "n1"], "start": np.nan, "end": np.nan,
                          "rel": [1, 1, 0], "line": [1, 2, 3]})
    qrels[["query", "item"]] = qrels[["query", "item"]].astype(object)
    run = pd.DataFrame({"query": ["1"] * 4, "item": ["r1", "u1", "r2", "n1"], "start": np.nan, "end": np.nan,
                        "jumpin": np.nan, "rank": [1, 2, 3, 4], "score": [4.0, 3, 2, 1], "run": "x",
                        "line": [1, 2, 3, 4]})
    run[["query", "item", "run"]] = run[["query", "item", "run"]].astype(object)
    plain = complete_qrels(qrels, [run], Texts("t", documents=texts), "kld", 4, kld_fit="resubstitution")
    loo = complete_qrels(qrels, [run], Texts("t", documents=texts), "kld", 4)
    assert plain.predicted["item"].tolist() == loo.predicted["item"].tolist() == ["u1"]
    # the leave-one-out divergence of r1 is its divergence from r2's model alone
    rows, terms, counts = voc.counts([texts["r1"], texts["r2"]])
    r1 = rows == 0
    r2_model = (terms[rows == 1], counts[rows == 1])  # a 1, b 2
    r1_alone = kld_divergences(rows[r1], terms[r1], counts[r1], 1, *r2_model, voc.collection_model, 0.2)[0]
    both = (np.array([0, 1]), np.array([3.0, 3.0]))  # a 3, b 3
    r1_in = kld_divergences(rows[r1], terms[r1], counts[r1], 1, *both, voc.collection_model, 0.2)[0]
    assert r1_alone > r1_in > 0  # leaving r1 out of the model moves it away, so the threshold is less optimistic


def test_tfidf_vectors_by_hand() -> None:
    voc = Vocabulary(list(TEXTS.values()))  # df: a 2, b 2, c 3 of N = 4 documents
    dense = tfidf(*voc.counts(["a a b", "b c c"]), 2, voc, n_terms=3).toarray()
    # "a a b": (2 ln 2, ln 2, 0) / 3 ln 2 = (2/3, 1/3, 0); "b c c": (0, ln 2, 2 ln 4/3) L1-normalised
    ordered = dense[:, np.argsort(np.argsort(-voc.cf, kind="stable"))]  # columns back to term order a, b, c
    np.testing.assert_allclose(ordered[0], [2 / 3, 1 / 3, 0])
    np.testing.assert_allclose(ordered[1], [0, 0.546426, 0.453574], atol=1e-6)
    # the 1 most frequent term is c (4 occurrences): only its column is kept
    assert tfidf(*voc.counts(["a a b", "b c c"]), 2, voc, n_terms=1).toarray().tolist() == [[0.0], [1.0]]


def test_svm_learns_a_separable_query_and_one_class_queries_predict_their_class(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    texts = {f"r{i}": "apple banana cherry " + "x" * (i + 1) for i in range(6)}
    texts |= {f"n{i}": "stone gravel sand " + "y" * (i + 1) for i in range(6)}
    texts |= {"u_rel": "banana apple", "u_non": "sand stone", "z1": "apple", "z2": "sand"}
    qrels = "".join(f"1 0 r{i} 1\n1 0 n{i} 0\n" for i in range(6)) + "2 0 z1 0\n"
    runs = "1 Q0 u_rel 1 2 x\n1 Q0 u_non 2 1 x\n2 Q0 z2 1 1 x\n"
    done = complete_qrels(read_qrels(write(tmp_path / "q", qrels)), [read_run(write(tmp_path / "r", runs))],
                          Texts("t", documents=texts), "svm", depth=10)
    got = dict(zip(done.predicted["item"], done.predicted["rel"], strict=True))
    assert got == {"u_rel": 1, "u_non": 0, "z2": 0}  # query 2 has one non-relevant judgement: non-relevant
    stats = done.stats.set_index("query")
    assert stats.loc["1", "train_precision"] == stats.loc["1", "train_recall"] == 1.0


def test_parameters_are_checked(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path / "q", "1 0 d1 1\n"))
    run = read_run(write(tmp_path / "r", "1 Q0 d2 1 1 x\n"))
    texts = Texts("t", documents=TEXTS)
    with pytest.raises(ParameterError, match=r"The 'classifier' parameter must be one of 'kld', 'svm'. Got 'nb'"):
        complete_qrels(qrels, [run], texts, "nb")
    with pytest.raises(ParameterError, match=r"The 'smoothing' parameter must be a number in \(0, 1\). Got 1"):
        complete_qrels(qrels, [run], texts, smoothing=1)
    with pytest.raises(ParameterError, match=r"The 'depth' parameter must be an integer >= 1. Got 0"):
        complete_qrels(qrels, [run], texts, depth=0)
    with pytest.raises(ParameterError, match="must be a transcript"):
        complete_qrels(read_qrels(write(tmp_path / "s", "1 Q0 v 0.00 0.10 1\n")), [run], texts)


# ------------------------------------------------------------------ texts and transcripts

def test_document_texts_file(tmp_path: Path) -> None:
    t = read_texts(write(tmp_path / "t.tsv", "d1\tHello world\r\n\nd2\t\n"), segments=False)
    assert t.text("d1") == "Hello world" and t.text("d2") == "" and t.text("d9") is None
    with pytest.raises(InputError, match=r"t2.tsv, line 2: expected a document text line 'docno<TAB>text'"):
        read_texts(write(tmp_path / "t2.tsv", "d1\tx\nd2 no tab\n"), segments=False)
    with pytest.raises(InputError, match=r"line 3: document 'd1' appears again \(first on line 1\)"):
        read_texts(write(tmp_path / "t3.tsv", "d1\tx\nd2\ty\nd1\tz\n"), segments=False)


def test_a_segment_text_is_the_transcript_lines_inside_it(tmp_path: Path) -> None:
    # seconds  0    10   20   30   40
    # lines    [one][two][thr][fou]       (10 s each, touching)
    # item          [=========]           10-30: two, three (one and four only touch it)
    # item              [=]               15-18: two only; a point at 20 meets nothing but... three's interior? no
    t = read_texts(write(tmp_path / "tr.txt", "v 0.00 0.10 one\nv 0.10 0.20 two\nv 0.20 0.30 three\n"
                                              "v 0.30 0.40 four\nw 0.00 0.05\n"), segments=True)
    assert t.text("v", 10, 30) == "two three"
    assert t.text("v", 15, 18) == "two"
    assert t.text("v", 20, 20) == ""  # a point on a boundary is inside no line's interior
    assert t.text("v", 25, 25) == "three"
    assert t.text("w", 0, 5) == "" and t.text("x", 0, 5) is None
    with pytest.raises(InputError, match=r"tr2.txt, line 1: expected a transcript line 'video start end text' "
                                         r"with mmss times"):
        read_texts(write(tmp_path / "tr2.txt", "v 0.00 1.75 text\n"), segments=True)
    with pytest.raises(InputError, match=r"line 1: ends \(0.05\) before it starts \(0.10\)"):
        read_texts(write(tmp_path / "tr3.txt", "v 0.10 0.05 text\n"), segments=True)


def test_segment_completion_labels_unmatched_results(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path / "q", "q1 Q0 v 0.00 0.10 1\nq1 Q0 v 1.00 1.10 0\n"))
    # results: 0-10 matches the relevant segment; 0.20-0.30 and 2.00-2.10 meet no qrels segment
    run = read_run(write(tmp_path / "r", "q1 Q0 v 0.05 0.15 0.05 1 3 x\nq1 Q0 v 0.20 0.30 0.20 2 2 x\n"
                                         "q1 Q0 v 2.00 2.10 2.00 3 1 x\n"))
    tr = write(tmp_path / "tr", "v 0.00 0.10 goal scored striker\nv 0.20 0.30 striker goal goal\n"
                                "v 1.00 1.10 weather rain cloud\nv 2.00 2.10 rain cloud wind\n")
    assert unjudged_top(qrels, run, 3)[["start", "end"]].values.tolist() == [[20.0, 30.0], [120.0, 130.0]]
    done = complete_qrels(qrels, [run], read_texts(tr, segments=True), "kld", depth=3)
    assert done.predicted[["start", "end", "rel"]].values.tolist() == [[20.0, 30.0, 1], [120.0, 130.0, 0]]
    assert done.lines() == ["q1 Q0 v 0.20 0.30 1 predicted:kld", "q1 Q0 v 2.00 2.10 0 predicted:kld"]
    # 1-minute bins: 0.20-0.30 shares bin 0 with the relevant segment, 2.00-2.10 (bin 2) meets none
    assert unjudged_top(qrels, run, 3, "binned:60")[["start"]].values.tolist() == [[120.0]]


# ------------------------------------------------------------------ completed qrels files

def test_completed_qrels_are_read_and_their_predicted_lines_marked(tmp_path: Path) -> None:
    q = read_qrels(write(tmp_path / "c", "1 0 d1 1 human\n1 0 d2 0 predicted:kld\n"))
    assert predicted_mask(q).tolist() == [False, True]
    seg = read_qrels(write(tmp_path / "s", "a Q0 v 0.00 0.10 1 human\na Q0 v 0.20 0.30 1 predicted:svm\n"))
    assert seg["start"].tolist() == [0.0, 20.0] and predicted_mask(seg).tolist() == [False, True]
    assert not predicted_mask(read_qrels(write(tmp_path / "p", "1 0 d1 1\n"))).any()
    with pytest.raises(InputError, match=r"x, line 2: has source 'guess'; expected 'human' or 'predicted:CLASSIFIER'"):
        read_qrels(write(tmp_path / "x", "1 0 d1 1 human\n1 0 d2 1 guess\n"))
    with pytest.raises(InputError, match=r"y, line 1: has 5 fields; expected a qrels line: 4 fields"):
        read_qrels(write(tmp_path / "y", "1 0 d1 1 other\n"))


def test_eval_uses_predicted_lines_with_a_note_or_ignores_them(tmp_path: Path) -> None:
    q = write(tmp_path / "c", "1 0 d1 1 human\n1 0 d2 0 human\n1 0 d3 1 predicted:kld\n")
    r = write(tmp_path / "r", "1 Q0 d1 1 3 x\n1 Q0 d3 2 2 x\n1 Q0 d2 3 1 x\n")
    used = evaluate(q, r, ["P_2"])
    assert used.summary["P_2"] == 1.0  # d1 and d3 relevant
    assert used.notes == ["note: 1 of 3 qrels lines are predicted by a classifier (predicted:kld 1), not judged by "
                          "assessors (--predicted ignore leaves them out)"]
    assert evaluate(q, r, ["P_2"], predicted="ignore").summary["P_2"] == 0.5  # d3 unjudged
    code, out, err = run_cli("eval", str(q), str(r), "-m", "P_2", "--predicted", "ignore")
    assert code == 0 and "P_2                   \tall\t0.5000" in out
    assert "1 predicted qrels lines (predicted:kld 1) are left out" in err


def test_format_time_round_trips() -> None:
    for v in [0, 59, 60, 150, 3725, 7322.5, 0.125, 12.000000001]:
        assert parse_seconds(format_time(v, "seconds")) == v and parse_hms(format_time(v, "hms")) == v
    assert format_time(150, "mmss") == "2.30" and parse_mmss(format_time(3725, "mmss")) == 3725
    with pytest.raises(ParameterError, match=r"must be a whole number for the mmss time format\. Got 1\.5"):
        format_time(1.5, "mmss")


def test_cli_writes_human_and_predicted_lines(tmp_path: Path) -> None:
    q = write(tmp_path / "q", "1 0 d1 1\n\n1\t0 d3 0\r\n1 0 d4 0\n")
    r = write(tmp_path / "r.txt", "1 Q0 d1 1 4 x\n1 Q0 d2 2 3 x\n1 Q0 d3 3 2 x\n1 Q0 d4 4 1 x\n1 Q0 d9 5 0 x\n")
    t = write(tmp_path / "t.tsv", "".join(f"{d}\t{x}\n" for d, x in TEXTS.items()))
    out = tmp_path / "out.qrels"
    code, stdout, stderr = run_cli("complete-qrels", str(q), str(r), "--texts", str(t), "-o", str(out))
    assert code == 0, stderr
    assert out.read_text().splitlines() == ["1 0 d1 1 human", "1\t0 d3 0 human", "1 0 d4 0 human",
                                            "1 0 d2 0 predicted:kld"]
    assert "classified\t1 unjudged item in the top 100: 0 predicted relevant" in stdout
    assert "note: 1 item has no text in" in stderr  # d9
    assert read_qrels(out)["source"].tolist() == ["human"] * 3 + ["predicted:kld"]
    code, _, stderr = run_cli("complete-qrels", str(out), str(r), "--texts", str(t), "-o", str(tmp_path / "again"))
    assert code == 2 and "line 4: holds predicted judgements; expected human qrels" in stderr
    code, _, stderr = run_cli("complete-qrels", str(q), str(r), "--texts", str(q), "-o", str(out))
    assert code == 2 and "line 1: expected a document text line 'docno<TAB>text'" in stderr
    code, _, stderr = run_cli("complete-qrels", str(q), str(r), "--texts", str(t), "-o", str(tmp_path / "no" / "x"))
    assert code == 2 and f"cannot write {tmp_path / 'no' / 'x'}: the directory {tmp_path / 'no'} does not exist" \
        in stderr
    code, _, stderr = run_cli("complete-qrels", str(q), str(r), "--texts", str(t), "-o", str(q))
    assert code == 2 and f"cannot write {q}: it is the input {q}; choose another output file" in stderr


# ------------------------------------------------------------------ the paper's effect (section 5.3)

@pytest.mark.parametrize("seed", sliced([0, 1, 2], 3))
def test_completion_raises_kendall_tau_against_the_full_truth(seed: int, tmp_path: Path) -> None:
    """Qrels pooled without two of four groups rank the runs unlike the full truth; completing them with
    either classifier brings the ranking closer (Table 8's direction)."""
    pytest.importorskip("sklearn")
    syn = synthetic()
    collection = syn.generate(seed, topics=8, run_length=60, **syn.HARD)
    syn.write(collection, tmp_path, biased_without=["G3", "G4"])
    runs = {p.stem: read_run(p) for p in sorted((tmp_path / "runs").glob("*.txt"))}
    truth, biased = read_qrels(tmp_path / "truth.qrels"), read_qrels(tmp_path / "biased.qrels")
    texts = read_texts(tmp_path / "texts.tsv", segments=False)
    queries = sorted(set(truth["query"]))
    names = sorted(runs)

    def means(qrels: pd.DataFrame, measure: str) -> list[float]:
        return [evaluate(qrels, runs[n], [measure], missing_queries="zero", queries=queries).summary[measure]
                for n in names]

    for classifier in ("kld", "svm"):
        done = complete_qrels(biased, runs, texts, classifier, depth=20)
        completed = pd.concat([biased, done.predicted.assign(line=0)], ignore_index=True)
        for measure in ("map", "P_20"):
            full = means(truth, measure)
            before = kendall_tau_ties_agree(full, means(biased, measure))
            after = kendall_tau_ties_agree(full, means(completed, measure))
            assert after > before, (classifier, measure, before, after)


@full_only
def test_the_docs_walk_through_prints_what_the_docs_say(tmp_path: Path) -> None:
    """Runs the walk-through of docs/pool-bias.md (seed 0, --hard, pool without G3 and G4) and finds its numbers
    there."""
    pytest.importorskip("sklearn")
    from segeval.analyses.pool import leave_one_out
    from segeval.readers.run_groups import read_groups
    from tests.conftest import ROOT

    readme = (ROOT / "docs" / "pool-bias.md").read_text()
    prose = " ".join(readme.split())  # the page's wrapped lines joined
    syn = synthetic()
    collection = syn.generate(0, **syn.HARD)
    syn.write(collection, tmp_path, biased_without=["G3", "G4"])
    runs = {p.name: read_run(p) for p in sorted((tmp_path / "runs").glob("*.txt"))}
    groups = {f"{r}.txt": g for r, g in read_groups(tmp_path / "groups.txt")[0].items()}
    pool, truth = read_qrels(tmp_path / "pool.qrels"), read_qrels(tmp_path / "truth.qrels")
    biased = read_qrels(tmp_path / "biased.qrels")
    rows = leave_one_out(pool, runs, 20, groups, ["paper"])
    assert len(rows) == 8
    for r in rows:
        line = (f"\n{r.measure}\t{r.mean_abs_rank_change:.3f}\t{r.max_down}\t{r.max_up}\t{r.rms_error:.4f}\t"
                f"{r.significant_share:.3f}\t{r.kendall_tau:.4f}\t{r.mean_error:+.4f}\t{r.rms_error_all:.4f}\n")
        assert line in readme
    texts = read_texts(tmp_path / "texts.tsv", segments=False)
    completed = {}
    for classifier in ("kld", "svm"):
        done = complete_qrels(biased, runs, texts, classifier, depth=20)
        assert (f"classified\t{len(done.predicted)} unjudged items in the top 20: "
                f"{int(done.predicted['rel'].sum())} predicted relevant     ({classifier})") in readme
        completed[classifier] = pd.concat([biased, done.predicted.assign(line=0)], ignore_index=True)
        truth_rel = {(q, d): r for q, d, r in collection.truth}
        actual = np.asarray([truth_rel[q, d] for q, d in zip(done.predicted["query"], done.predicted["item"],
                                                              strict=True)]) > 0
        guess = done.predicted["rel"].to_numpy() > 0
        tp = int((actual & guess).sum())
        assert f"{tp / guess.sum():.3f} and {'recall ' if classifier == 'kld' else ''}{tp / actual.sum():.3f}" in prose
    resub = complete_qrels(biased, runs, texts, "kld", depth=20, kld_fit="resubstitution")
    assert f"labels {int(resub.predicted['rel'].sum())} of {len(resub.predicted)} items relevant" in prose
    names = sorted(runs)

    def means(qrels: pd.DataFrame, measure: str) -> list[float]:
        return [evaluate(qrels, runs[n], [measure], missing_queries="zero").summary[measure] for n in names]

    for measure in ("map", "P_20", "bpref", "RankEff"):
        full = means(truth, measure)
        taus = [kendall_tau_ties_agree(full, means(q, measure)) for q in (biased, completed["kld"], completed["svm"])]
        assert f"| {measure} | " + " | ".join(f"{t:.4f}" for t in taus) + " |" in readme
    p20 = [evaluate(q, runs["G3r1.txt"], ["P_20"]).summary["P_20"] for q in (truth, biased, completed["svm"])]
    assert "G3r1's P_20 is {:.4f} on the truth, {:.4f} on the biased qrels and {:.4f} on the svm-completed".format(
        *p20) in prose


def test_segment_collection_round_trip_through_the_cli(tmp_path: Path) -> None:
    """The synthetic collection as video segments: completed MediaEval qrels are read back and evaluated."""
    syn = synthetic()
    collection = syn.generate(1, topics=3, run_length=40, **{**syn.HARD, "groups": 2})
    syn.write(collection, tmp_path, segments=True, biased_without=["G2"])
    out = tmp_path / "completed.qrels"
    code, _, stderr = run_cli("complete-qrels", str(tmp_path / "biased.qrels"), str(tmp_path / "runs"),
                                   "--texts", str(tmp_path / "transcript.txt"), "-d", "20", "-o", str(out))
    assert code == 0, stderr
    completed = read_qrels(out)
    biased = read_qrels(tmp_path / "biased.qrels")
    predicted = predicted_mask(completed)
    assert int((~predicted).sum()) == len(biased) and predicted.sum() > 0
    # every predicted segment is a result of some run that met no biased qrels segment: a whole candidate segment
    starts = set(completed.loc[predicted, "start"]) | set(completed.loc[predicted, "end"])
    assert starts <= {float(70 * k + d) for k in range(10) for d in (0, 60)}
    code, out_text, err = run_cli("eval", str(out), str(tmp_path / "runs" / "G2r1.txt"), "-m", "P_20")
    assert code == 0 and "predicted by a classifier (predicted:kld" in err
    code, ignored, _ = run_cli("eval", str(out), str(tmp_path / "runs" / "G2r1.txt"), "-m", "P_20",
                               "--predicted", "ignore")
    code, plain, _ = run_cli("eval", str(tmp_path / "biased.qrels"), str(tmp_path / "runs" / "G2r1.txt"), "-m", "P_20")
    assert ignored == plain != out_text


@pytest.mark.parametrize("policy", ["use", "ignore"])
def test_predicted_policy_is_the_same_in_the_chunked_path(policy: str, tmp_path: Path) -> None:
    q = write(tmp_path / "c", "1 0 d1 1 human\n1 0 d2 0 human\n1 0 d3 1 predicted:kld\n2 0 d1 1 human\n")
    r = write(tmp_path / "r", "1 Q0 d1 1 3 x\n1 Q0 d3 2 2 x\n1 Q0 d2 3 1 x\n2 Q0 d1 1 1 x\n")
    args = ("eval", str(q), str(r), "-m", "P_2", "-m", "map", "-q", "--predicted", policy)
    whole = run_cli(*args, "--memory", "in-memory")
    chunked = run_cli(*args, "--memory", "chunked", "--chunk-lines", "1")
    assert whole == chunked and whole[0] == 0
    assert ("P_2                   \t1\t" + ("1.0000" if policy == "use" else "0.5000")) in whole[1]
    assert ("left out" in whole[2]) == (policy == "ignore")


# ------------------------------------------------------------------ items without text stay unjudged

@pytest.mark.parametrize("classifier", ["kld", "svm"])
def test_documents_without_a_token_stay_unjudged(classifier: str, tmp_path: Path) -> None:
    """Without the rule, a tokenless item (d5) gets the collection model and both classifiers label it relevant
    on q1 and q2: kld puts it at 0.4446 from M_R = M_d1, under q1's threshold (0 + 1.8138) / 2."""
    if classifier == "svm":
        pytest.importorskip("sklearn")
    q = write(tmp_path / "q", "q1 0 d1 1\nq1 0 d4 0\nq2 0 d1 1\nq2 0 d3 1\n")
    r = write(tmp_path / "r", "".join(f"{q} Q0 {d} {i} {9 - i} x\n" for q in ("q1", "q2")
                                      for i, d in enumerate(["d1", "d4", "d5", "d6", "d2", "d3"], start=1)))
    t = write(tmp_path / "t.tsv", "".join(f"{d}\t{x}\n" for d, x in {**TEXTS, "d5": " -- "}.items()))
    done = complete_qrels(read_qrels(q), [read_run(r)], read_texts(t, segments=False), classifier)
    # d5 has no token, d6 no line: neither is classified (2 per query); q1 classifies d2, d3, q2 d4, d2
    pairs = sorted(zip(done.predicted["query"], done.predicted["item"], strict=True))
    assert pairs == [("q1", "d2"), ("q1", "d3"), ("q2", "d2"), ("q2", "d4")]
    assert done.no_text == 4 and done.no_text_example == "query q1 document d5"
    if classifier == "kld":  # d2 at 0.6297 < 0.9069: relevant
        assert done.predicted.set_index(["query", "item"])["rel"].to_dict()[("q1", "d2")] == 1
    else:  # q2's judged items are all relevant: every item with text is predicted relevant
        assert done.predicted.query("query == 'q2'")["rel"].tolist() == [1, 1]
    code, _, err = run_cli("complete-qrels", str(q), str(r), "--texts", str(t), "-o", str(tmp_path / "o"),
                           "--classifier", classifier)
    assert code == 0, err
    assert (f"note: 4 items have no text in {t} (no tokens, or no transcript line under a segment), e.g. query q1 "
            f"document d5; they are neither training items nor classified, and stay unjudged") in err


@pytest.mark.parametrize("classifier", ["kld", "svm"])
def test_segments_without_a_transcript_line_stay_unjudged(classifier: str, tmp_path: Path) -> None:
    """A result segment under no transcript line (v1 40-50), or of a video the transcript lacks (v3), or whose
    only lines have no token (v1 60-70), is not classified; v2 0-10 ('a b') is."""
    if classifier == "svm":
        pytest.importorskip("sklearn")
    q = write(tmp_path / "q", "q1 Q0 v1 0 10 1\nq1 Q0 v1 20 30 0\nq2 Q0 v1 0 10 1\n")
    results = ["v1 0 10", "v1 20 30", "v1 40 50", "v3 0 10", "v1 60 70", "v2 0 10"]
    r = write(tmp_path / "r", "".join(f"{q} Q0 {s} {i} {9 - i} x\n" for q in ("q1", "q2")
                                      for i, s in enumerate(results, start=1)))
    t = write(tmp_path / "t", "v1 0 10 a a b\nv1 20 30 c\nv1 60 70 ...\nv2 0 10 a b\nv2 20 30 c c\n")
    texts = read_texts(t, segments=True, time_format="seconds")
    qrels, run = read_qrels(q, time_format="seconds"), read_run(r, time_format="seconds")
    done = complete_qrels(qrels, [run], texts, classifier)
    got = done.predicted.set_index(["query", "item", "start"])["rel"].to_dict()
    # q1: v1 40-50, v3, v1 60-70 have no text; q2 adds v1 20-30 to the classified (unjudged there) items
    assert set(got) == {("q1", "v2", 0.0), ("q2", "v1", 20.0), ("q2", "v2", 0.0)}
    assert done.no_text == 6 and done.no_text_example == "query q1 video v1 40-50 s"
    if classifier == "kld":  # q1: M_R = M(a a b); v2 'a b' is near, under the midpoint between 0 and KLD('c')
        assert got[("q1", "v2", 0.0)] == 1
    else:  # q2 has only relevant judged items: whatever has text is predicted relevant, nothing else
        assert got[("q2", "v2", 0.0)] == got[("q2", "v1", 20.0)] == 1
