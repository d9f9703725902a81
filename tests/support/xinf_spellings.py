"""Sampled-judgement cases with grades spelled as sample_eval.pl reads them, and its stored outputs.

Usage: python -m tests.support.xinf_spellings SAMPLE_EVAL_PL

The qrels of the stored ``graded`` and ``random`` cases (tests/fixtures/xinf) with each grade rewritten
at random as ``01``, ``+1``, ``002`` (positive grades), ``-0``, ``00`` (0) or ``-01`` (-1); stored as
``spelled_<case>.qrels`` with the reference's ``-q`` output (``spelled_<case>.q.out``) and its output
under ``-G 1=-1 2=0.5`` (``spelled_<case>.G.out``: grade 1 made unsampled, grade 2 halved; ``01``
is not grade ``1`` for the mapping, as the reference keys grades by their text).  The runs are the
cases' own.
"""

from __future__ import annotations

import random
import subprocess
import sys

from tests.conftest import FIXTURES

XINF = FIXTURES / "xinf"
CASES = ("graded", "random")
GAINS = ("1=-1", "2=0.5")


def spelled(qrels: str, seed: str) -> str:
    """The qrels text with its grades respelled (the same text for the same seed)."""
    rng = random.Random(seed)
    out = []
    for line in qrels.splitlines():
        *head, rel = line.split()
        g = int(rel)
        options = [rel, f"0{g}", f"+{g}", f"00{g}"] if g > 0 else [rel, "-0", "00"] if g == 0 else [rel, "-01"]
        out.append(" ".join([*head, rng.choice(options)]))
    return "\n".join(out) + "\n"


def main(reference: str) -> None:
    for name in CASES:
        qrels = XINF / f"spelled_{name}.qrels"
        qrels.write_text(spelled((XINF / f"{name}.qrels").read_text(), name))
        run = XINF / f"{name}.run"
        for suffix, args in (("q", ["-q", str(qrels), str(run)]), ("G", [str(qrels), str(run), "-G", *GAINS])):
            out = subprocess.run(["perl", reference, *args], check=True, capture_output=True).stdout
            (XINF / f"spelled_{name}.{suffix}.out").write_bytes(out)
        print(f"spelled_{name}: stored")


if __name__ == "__main__":
    main(sys.argv[1])
