#!/usr/bin/env python3
"""Regenerate tests/fixtures/routes/: trec_eval 10.0's outputs on generated document collections.

``tests/properties/test_every_route.py`` compares segeval's bytes on every route with these stored
outputs (no binary needed to run the tests).  To regenerate them, build trec_eval 10.0 from
``../shared/src`` in a temporary folder and point this script at it::

    cp -r ../shared/src/trec_eval-10.0 /tmp/trec_eval-10.0 && make -C /tmp/trec_eval-10.0
    python scripts/make_route_fixtures.py --trec-eval /tmp/trec_eval-10.0/trec_eval

It writes, for each collection of ``COLLECTIONS`` (made by ``tests/support/routes.documents``):
the qrels and run (``docsN.qrels``, ``docsN.run``, stored so that a change to the generator does
not invalidate the outputs), and ``trec_eval.jsonl``: one record per (collection, flags, measure)
with the segeval measure name, the trec_eval arguments and trec_eval's standard output.  The
measures are every registered spelling (``registered_measures``) that trec_eval accepts; the ones
it refuses (segeval's own measures) are listed in ``not_in_trec_eval.txt``.  Keep the folder
under ~1 MB (the script prints its size).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from segeval.measures.definitions import FAMILIES  # noqa: E402
from tests.support.routes import documents, registered_measures  # noqa: E402

#: generator seeds of the stored collections, and whether a query may be in the qrels only (then
#: only the flags with -c are run: without it trec_eval 10 stops, where segeval notes and skips it)
COLLECTIONS = ((1, False), (2, False), (3, True))
#: trec_eval's flags, each measure alone under each
FLAGS: tuple[tuple[str, ...], ...] = ((), ("-q",), ("-c",), ("-J",), ("-M", "3"), ("-l", "2"), ("-q", "-c", "-J"),
                                      ("-q", "-c", "-l", "2", "-M", "5"))
OUT = ROOT / "tests" / "fixtures" / "routes"


def trec_eval_name(name: str) -> str:
    """trec_eval's ``-m`` spelling of a segeval measure name: ``P_10`` -> ``P.10`` (a family's
    parameter after a dot); names with a dot are trec_eval's already."""
    families = {f.name for f in FAMILIES}
    if name in families or name.split(".")[0] in families:  # P, P.3,7, iprec_at_recall..05,.5
        return name
    for f in sorted(FAMILIES, key=lambda f: -len(f.name)):
        if f.param is not None and name.startswith(f.name + "_"):
            return f"{f.name}.{name[len(f.name) + 1:]}"
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trec-eval", required=True, type=Path, help="the trec_eval 10.0 binary")
    parser.add_argument("--out", type=Path, default=OUT)
    a = parser.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    records, refused = [], set()
    for seed, qrels_only in COLLECTIONS:
        c = documents(seed, qrels_only=qrels_only)
        qrels, run = a.out / f"{c.name}.qrels", a.out / f"{c.name}.run"
        qrels.write_text(c.qrels_text())
        run.write_text(c.run_text(0))
        for flags in [f for f in FLAGS if "-c" in f or not qrels_only]:
            for name in registered_measures():
                args = [*flags, "-m", trec_eval_name(name)]
                done = subprocess.run([str(a.trec_eval), *args, str(qrels), str(run)], capture_output=True,
                                      text=True, check=False)
                if done.returncode != 0:
                    # a measure trec_eval does not know or take; anything else: a collection it cannot evaluate
                    if "illegal measure" not in done.stderr and "Cannot initialize measure" not in done.stderr:
                        sys.exit(f"trec_eval {' '.join(args)} on {c.name}: {done.stderr.strip()}")
                    refused.add(name)
                    continue
                records.append({"collection": c.name, "flags": list(flags), "measure": name, "trec_eval": args,
                                "stdout": done.stdout})
    accepted = {r["measure"] for r in records}
    (a.out / "trec_eval.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    (a.out / "not_in_trec_eval.txt").write_text("".join(f"{n}\n" for n in sorted(refused - accepted)))
    size = sum(p.stat().st_size for p in a.out.iterdir())
    print(f"{len(records)} outputs of {len(accepted)} measures ({len(refused - accepted)} refused by trec_eval), "
          f"{size / 1e6:.2f} MB in {a.out}")


if __name__ == "__main__":
    main()
