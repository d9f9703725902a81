"""TVR (video corpus moment retrieval): the official ``standalone_eval/eval.py`` figures.

Follows jayleicn/TVRetrieval's evaluator, its 32-bit float arithmetic included:

* Inputs: the ground truth, JSON Lines with ``desc_id``, ``vid_name``, ``ts`` ([start, end]) and
  ``type`` (``v``, ``t`` or ``vt``: what the description needs, video, subtitles or both); the
  submission, one JSON object with ``video2idx`` (video name -> integer index) and any of ``VCMR``,
  ``SVMR``, ``VR``, each a list of ``{"desc_id", "predictions": [[video_index, start, end, score],
  ...]}`` in rank order (the score is not used: the list order is the ranking).
* Only the first 100 predictions of a query count. Video indices, times and moments become
  float32; IoU = overlap / (max(e1, e2) - min(s1, s2)) in float32 (0 when that hull is empty), set
  to 0 for a prediction of another video, and a hit when IoU >= the threshold taken as float32
  (0.7 becomes 0.699999988).
* ``VCMR`` R@k at IoU θ (θ = 0.5, 0.7; k = 1, 5, 10, 100): the share of queries with a hit among
  their first k predictions. ``SVMR``: the same after dropping the predictions of other videos
  (the first k of the ground-truth video's predictions). ``VR``: a prediction of the ground-truth
  video among the first k (times unused). Values are percentages rounded to 2 decimals with NumPy's
  rounding.
* ``*_by_type``: the same per description type over that type's queries, and ``desc_type_ratio``,
  the share of each type (``"v 75.08 t 8.0 vt 16.92"``).
* DiDeMo-style items, whose ``ts`` holds 4 or more [start, end] pairs (one per annotator): a
  prediction is a hit when its IoU reaches θ with at least 2 of them.

Where the official script fails, segeval goes on and says so in a note: a query missing from a task
or with an empty list scores 0 (the official asserts that both files hold the same queries, and
stops with an IndexError on an empty list); records for unknown queries are ignored (assertion); a
type without queries is ``null`` (the official writes ``NaN``, which is not JSON); ground truth
without ``type`` gives no ``*_by_type`` (the official stops with a KeyError). Predicted windows
with end < start are evaluated as given: their IoU is 0.
"""

from __future__ import annotations

from segeval.protocols.moments.tvr.report import evaluate_files

__all__ = ["evaluate_files"]
