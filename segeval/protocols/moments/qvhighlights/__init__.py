"""Moment retrieval and highlight detection (QVHighlights): the official evaluator's figures.

Follows moment_detr's ``standalone_eval`` (its formulas, dtypes and numpy reductions):

* ``MR-mAP@t``: per query, the first 10 predictions sorted by score (descending; equal scores keep
  list order), each matched greedily to the unmatched ground-truth window of highest IoU >= t, where
  IoU = overlap / (len1 + len2 - overlap); VOC interpolated AP; averaged over queries, then over
  t = 0.50, 0.55 .. 0.95.
* ``MR-R1@t``: the first listed prediction (list order) against the ground-truth window of highest
  IoU in the mAP form (first on ties); a hit when overlap / (max(e1, e2) - min(s1, s2)) >= t (the
  hull form, 0 when the hull is empty).
* Length buckets ``short`` (0, 10], ``middle`` (10, 30], ``long`` (30, 150] keep only the ground
  truth windows of that length and the queries that have one; ``full`` keeps everything.
* Highlight detection from ``saliency_scores`` (3 annotators, 2-second clips) and
  ``pred_saliency_scores``: ``HL-min-{Fair,Good,VeryGood}`` take scores >= 2, 3, 4 as positive;
  ``HL-mAP`` is the interpolated AP of each annotator's labels (predictions cut or zero-padded to the
  clip count), averaged; ``HL-Hit1`` is 1 when the top-scored clip (first on ties) is positive for
  any annotator.
* segeval's additions (not in the official output): ``MR-R5`` at 0.5 and 0.7 (any of the first five
  listed, hull IoU), ``MR-mIoU`` (hull IoU of the first listed prediction with its best window) and the
  query count per bucket.

Where the official script fails, segeval goes on and says what it did in the notes (docs/cli.md, 'segeval mr').
"""

from __future__ import annotations

from segeval.protocols.moments.qvhighlights.report import evaluate_files, evaluate_moments

__all__ = ["evaluate_files", "evaluate_moments"]
