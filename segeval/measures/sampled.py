"""Measures on sampled judgements (Yilmaz, Kanoulas & Aslam, SIGIR 2008): xinfAP, infNDCG, inferred precision
and counts, with the arithmetic and the orders of NIST's ``sample_eval.pl`` (docs/sampled.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from segeval.adapters.base import Adapted
from segeval.core.errors import SegevalError
from segeval.measures.arithmetic import running_sum
from segeval.readers.strata import SampledRun, StrataQrels, StrataTopic, Stratum, perl_number

#: the reference's maximum result size (TREC: 1000; TRECVID used 2000 in some years)
MAX_RESULT_SIZE = 1000
#: smoothing of the reference's precision estimates: (relevant + 0.00001) / (sampled + 0.00003)
EPS_REL = 0.00001
EPS_SAMPLED = 0.00003
RECALL_POINTS = ("0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1")
LOG2 = math.log(2)


def cutoffs(max_result_size: int = MAX_RESULT_SIZE) -> tuple[int, int, int]:
    """The ranks of the inferred precisions: 10, 50 and the maximum result size."""
    return (10, 50, max_result_size)


@dataclass
class TopicValues:
    """One topic's estimates."""

    infap: float
    infndcg: float
    #: inferred precision at each of :func:`cutoffs`
    precision: tuple[float, ...]
    #: estimated relevant retrieved at each rank 1..n (n = results kept)
    rel_at_rank: list[float]
    num_rel_ret: float
    num_rel: float


def estimated_num_rel(topic: StrataTopic) -> float:
    """Estimated relevant documents: per sampled stratum, sampled relevant * size / sampled."""
    strata = [topic.strata[name] for name in sorted(topic.strata)]
    return running_sum([s.relevant * s.docs / s.sampled for s in strata if s.sampled != 0])


def optimal_dcg(topic: StrataTopic, max_result_size: int = MAX_RESULT_SIZE) -> float:
    """DCG of the ideal ranking of the estimated documents per grade, grades in descending string order,
    each grade's count rounded to the nearest integer (the reference's quirks kept: see docs/sampled.md)."""
    per_grade: dict[str, float] = {}
    for name in sorted(topic.strata):
        s = topic.strata[name]
        for grade in sorted(s.grades):
            per_grade[grade] = per_grade.get(grade, 0) + s.grades[grade] * s.docs / s.sampled
    total = 0.0
    start = 0
    for grade in sorted(per_grade, reverse=True):
        count = math.floor(per_grade[grade] + 0.5)
        value = float(grade)
        for r in range(start + 1, start + count + 1):
            total += value / (math.log(r + 1) / LOG2)
            if r >= max_result_size:
                break
        start += count
    return total


def topic_values(topic: StrataTopic, ranked: Sequence[str], max_result_size: int = MAX_RESULT_SIZE) -> TopicValues:
    """The estimates of one topic for the docnos ``ranked`` (in rank order; cut at the maximum size)."""
    names = sorted(topic.strata)
    num_sampled = dict.fromkeys(names, 0)
    num_relevant = dict.fromkeys(names, 0)
    num_docs = dict.fromkeys(names, 0)
    gain = dict.fromkeys(names, 0.0)
    sap = dict.fromkeys(names, 0.0)
    depth = 0  # pooled documents up to the current rank
    rel_at_rank: list[float] = []
    ranks = cutoffs(max_result_size)
    precision: dict[int, float] = {}
    for rank, docno in enumerate(ranked[:max_result_size], start=1):
        judged = topic.docs.get(docno)
        rel = float(judged[0]) if judged else -1.0
        if judged and rel > 0:
            above = 0.0
            for name in names:
                if depth != 0:
                    prob = num_docs[name] / depth
                    if prob != 0:
                        above += prob * (num_relevant[name] + EPS_REL) / (num_sampled[name] + EPS_SAMPLED)
            stratum = judged[1]
            sap[stratum] += 1 / rank + (depth / rank) * above
            num_relevant[stratum] += 1
            gain[stratum] += rel / (math.log(rank + 1) / LOG2)
        if judged:
            depth += 1
            num_docs[judged[1]] += 1
            if rel >= 0:
                num_sampled[judged[1]] += 1
        found = 0.0
        for name in names:
            found += num_docs[name] * (num_relevant[name] + EPS_REL) / (num_sampled[name] + EPS_SAMPLED)
        rel_at_rank.append(found)
        if rank in ranks:
            precision[rank] = found / rank
    num_rel_ret = rel_at_rank[-1] if rel_at_rank else 0.0
    num_rel = estimated_num_rel(topic)
    ap = 0.0
    for name in names:
        s = topic.strata[name]
        if s.sampled != 0 and num_rel != 0:
            prob = (s.relevant * s.docs / s.sampled) / num_rel
            ap += prob * (sap[name] / s.relevant if s.relevant != 0 else 0)
    dcg = 0.0
    for name in names:
        if depth != 0:
            prob = num_docs[name] / depth
            if num_sampled[name] != 0:
                dcg += prob * gain[name] / num_sampled[name]
    ideal = optimal_dcg(topic, max_result_size)
    ndcg = depth * dcg / ideal if ideal != 0 else 0.0
    return TopicValues(
        ap, ndcg, tuple(precision.get(c, num_rel_ret / c) for c in ranks), rel_at_rank, num_rel_ret, num_rel
    )


def interpolated(values: TopicValues) -> list[float]:
    """The 11 interpolated precisions at estimated recall 0, 0.1, ..., 1, as the reference walks
    up the ranks (one recall point passed per rank at most)."""
    points = [float(x) * values.num_rel for x in RECALL_POINTS]
    out = [0.0] * len(points)
    cut = len(points) - 1
    while cut >= 0 and points[cut] > values.num_rel_ret:
        cut -= 1
    best = 0.0
    for rank in range(len(values.rel_at_rank), 0, -1):
        found = values.rel_at_rank[rank - 1]
        prec = found / rank
        if best < prec:
            best = prec
        if cut >= 0 and points[cut] > found:
            out[cut] += best
            cut -= 1
    while cut >= 0:
        out[cut] += best
        cut -= 1
    return out


def ranking(scores: dict[str, float]) -> list[str]:
    """Docnos by score descending, equal scores by docno descending (the reference's sort)."""
    return sorted(scores, key=lambda d: (scores[d], d), reverse=True)


def sample_eval(
    qrels: StrataQrels, run: SampledRun, *, per_topic: bool = False, max_result_size: int = MAX_RESULT_SIZE
) -> str:
    """``sample_eval.pl``'s report of ``run`` (``per_topic``: its ``-q``), byte for byte."""
    ranks = cutoffs(max_result_size)
    evaluated = sorted((t for t in run.scores if t in qrels.topics), key=lambda t: (perl_number(t), t))
    if not evaluated:
        raise SegevalError(
            f"No topic of {run.path} is in {qrels.path} (topics are compared as written, leading "
            f"zeros of the run's removed): nothing to evaluate."
        )
    out: list[str] = []
    by_topic: dict[str, TopicValues] = {}
    sum_ap = sum_ndcg = sum_rel_ret = 0.0
    mean_prec = [0.0] * len(ranks)
    num_ret = 0
    for topic in evaluated:
        ranked = ranking(run.scores[topic])
        v = topic_values(qrels.topics[topic], ranked, max_result_size)
        by_topic[topic] = v
        num_ret += min(len(ranked), max_result_size)
        if per_topic:
            out.append(f"infAP\t\t{topic}\t\t{v.infap:6.4f}\n")
            out.append(f"infNDCG\t\t{topic}\t\t{v.infndcg:6.4f}\n")
            out += [f"iP{c}\t\t{topic}\t\t{p:6.4f}\n" for c, p in zip(ranks, v.precision, strict=True)]
            out.append(f"inum_rel_ret\t{topic}\t{v.num_rel_ret:14.4f}\n")
            out.append(f"inum_rel\t{topic}\t{v.num_rel:14.4f}\n")
            out.append(f"num_ret\t\t{topic}\t{run.lines[topic]:9d}\n")
        sum_ap += v.infap
        sum_ndcg += v.infndcg
        sum_rel_ret += v.num_rel_ret
        for i, p in enumerate(v.precision):
            mean_prec[i] += p
    sum_num_rel = running_sum([estimated_num_rel(qrels.topics[topic]) for topic in sorted(qrels.topics)])
    iprec = [0.0] * len(RECALL_POINTS)
    for topic in sorted(by_topic):
        for i, p in enumerate(interpolated(by_topic[topic])):
            iprec[i] += p
    n = len(evaluated)
    out.append(f"infAP\t\tall\t\t{sum_ap / n:6.4f}\n")
    out.append(f"infNDCG\t\tall\t\t{sum_ndcg / n:6.4f}\n")
    out += [f"iprec@rec{i / 10:4.2f}\tall\t\t{p / n:6.4f}\n" for i, p in enumerate(iprec)]
    out += [f"iP{c}\t\tall\t\t{p / n:6.4f}\n" for c, p in zip(ranks, mean_prec, strict=True)]
    out.append(f"inum_rel_ret\tall\t{sum_rel_ret:14.4f}\n")
    out.append(f"inum_rel\tall\t{sum_num_rel:14.4f}\n")
    out.append(f"num_ret\t\tall\t{num_ret:9d}\n")
    return "".join(out)


def _estimates(a: Adapted) -> TopicValues:
    """The estimates of one query's adapted ranking as the reference's topic (first 1000 results): strata counted
    from every qrels line of the query, each ranked unit keyed by its position (without a qrels line: unpooled)."""
    if a.truth_strata is None or a.match_strata is None or a.truth is None:
        raise SegevalError(
            "xinfAP and xinfNDCG need stratified qrels: lines 'topic 0 docno stratum rel' (5 "
            "fields, rel -1 for pooled but not sampled), read with the exact adapter."
        )
    topic = StrataTopic()
    for grade, stratum in zip(a.truth.tolist(), a.truth_strata.tolist(), strict=True):
        s = topic.strata.setdefault(stratum, Stratum())
        s.docs += 1
        if grade >= 0:
            s.sampled += 1
        if grade > 0:
            key = str(int(grade))
            s.grades[key] = s.grades.get(key, 0) + 1
            s.relevant += 1
    offsets = a.match_offsets.tolist()
    match_grades = a.match_grades.tolist() if a.match_grades is not None else []
    strata = a.match_strata.tolist()
    ranked = [str(i) for i in range(len(a.labels))]
    for i in range(min(len(ranked), MAX_RESULT_SIZE)):
        if offsets[i + 1] > offsets[i]:  # the first qrels line that judged it (the exact adapter's)
            topic.docs[ranked[i]] = (str(int(match_grades[offsets[i]])), strata[offsets[i]])
    return topic_values(topic, ranked)


def xinf_ap(a: Adapted) -> float:
    return _estimates(a).infap


def xinf_ndcg(a: Adapted) -> float:
    return _estimates(a).infndcg
