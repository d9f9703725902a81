"""How many judged spans each result span overlaps, by an interval tree and by sorted arrays (docs/internals.md,
"Segment adapters: sorted arrays, not an interval tree").  Needs ``pip install intervaltree`` (segeval does
not depend on it).

    python scripts/intervaltree_vs_arrays.py   # CPU seconds of each, the same counts
"""

import time

import numpy as np
from intervaltree import IntervalTree

rng = np.random.default_rng(0)
n, m = 20_000, 100_000  # judged spans and result spans of one video: far more than a query's video holds
starts = rng.uniform(0, 1e6, n)
ends = starts + rng.uniform(1, 120, n)
result_starts = rng.uniform(0, 1e6, m)
result_ends = result_starts + rng.uniform(1, 60, m)

t = time.process_time()
tree = IntervalTree.from_tuples(zip(starts.tolist(), ends.tolist(), strict=True))
built = time.process_time() - t
t = time.process_time()
tree_counts = np.array([len(tree.overlap(a, b)) for a, b in zip(result_starts.tolist(), result_ends.tolist(),
                                                                  strict=True)])
queried = time.process_time() - t
t = time.process_time()  # a span overlaps (a, b) unless it ends by a or starts from b: two searches per result
array_counts = (np.searchsorted(np.sort(starts), result_ends, "left")
                - np.searchsorted(np.sort(ends), result_starts, "right"))
arrays = time.process_time() - t
assert (tree_counts == array_counts).all()
print(f"intervaltree: built in {built:.3f} s, {m} queries in {queried:.3f} s; sorted arrays: {arrays:.4f} s "
      f"({(built + queried) / arrays:.0f}x less)")
