"""Generate the keyword-search differential cases and score them with NIST F4DE KWSEval.

    F4DE_BASE=/path/to/F4DE python scripts/kws_cases.py [OUT_DIR]

writes, per case, the four inputs (ecf.xml, rttm, kwlist.xml, kwslist.xml) and KWSEval's output for each
variant (``official.txt``, ``official_optimum.txt``, ``official_inc.txt``, ``official_params.txt``: other
-S, -F, trials per second, C, V and P_target) under OUT_DIR (default
tests/fixtures/kws). KWSEval is F4DE commit 7de28d51 (KWSEval/tools/KWSEval/KWSEval.pl), run with
``-o -b -f -`` and the Perl hash order fixed (PERL_PERTURB_KEYS=0 PERL_HASH_SEED=0). The hand-made cases put
values exactly on KWSEval's limits (mid-point on the tolerance, word gap on -F, case folding, duplicates,
references and detections outside the excerpts, terms without occurrences); the random ones exercise the
one-to-one pairing with crowded occurrences. Times are multiples of 1/8 s on the limits so that the
comparisons are exact in binary.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

VARIANTS = {"official.txt": [], "official_optimum.txt": ["--zGlobalMeasures", "Optimum", "--zGlobalMeasures",
                                                          "Supremum"],
            "official_inc.txt": ["--include-blocks-w-notargs"],
            "official_params.txt": ["--Similarity-threshold", "0.25", "--Find-threshold", "0.75",
                                    "--number-trials-per-sec", "2", "--koefcorrect", "0.2", "--Koefincorrect", "2",
                                    "--prob-of-term", "0.001"]}
#: the segeval options of each variant
SEGEVAL_OPTIONS = {"official.txt": [], "official_optimum.txt": ["--optimum"], "official_inc.txt": ["--inc"],
                   "official_params.txt": ["-S", "0.25", "-F", "0.75", "--trials-per-second", "2", "--cost", "0.2",
                                           "--value", "2", "--p-target", "0.001"]}

Lex = tuple[str, str, float, float, str, str]  # file, speaker, begin, dur, word, subtype
Det = tuple[str, str, float, float, float]  # kwid, file, begin, dur, score


def write_case(out: Path, name: str, excerpts: list[tuple[str, float, float]], lexemes: list[Lex],
               terms: list[tuple[str, str]], detections: list[Det], normalize: bool = True,
               header: str = "") -> Path:
    case = out / name
    case.mkdir(parents=True, exist_ok=True)
    total = sum(d for _, _, d in excerpts)
    ecf = [f'<ecf source_signal_duration="{total:.3f}" language="english" version="{name}">']
    ecf += [f'  <excerpt audio_filename="{f}.sph" channel="1" tbeg="{b:.3f}" dur="{d:.3f}" source_type="bnews"/>'
            for f, b, d in excerpts]
    (case / "ecf.xml").write_text("\n".join([*ecf, "</ecf>"]) + "\n")
    rttm = [f"SPEAKER {f} 1 0.000 200.000 <NA> <NA> {s} <NA>" for f, s in sorted({(f, s) for f, s, *_ in lexemes})]
    rttm += [f"LEXEME {f} 1 {b:.4f} {d:.4f} {w} {t} {s} <NA>" for f, s, b, d, w, t in lexemes]
    (case / "rttm").write_text("\n".join(rttm) + "\n")
    attr = ' compareNormalize="lowercase"' if normalize else ' compareNormalize=""'
    kw = [f'<kwlist ecf_filename="ecf.xml" version="{name}" language="english"{attr} encoding="UTF-8">']
    for kwid, text in terms:
        kw += [f'  <kw kwid="{kwid}">', f"    <kwtext>{text}</kwtext>", "  </kw>"]
    (case / "kwlist.xml").write_text("\n".join([*kw, "</kwlist>"]) + "\n")
    ks = [f'<kwslist kwlist_filename="kwlist.xml" language="english" system_id="{name}"{header}>']
    for kwid, _ in terms:
        mine = sorted((d for d in detections if d[0] == kwid), key=lambda d: -d[4])
        if not mine:
            continue
        ks.append(f'  <detected_kwlist kwid="{kwid}" search_time="1.0" oov_count="0">')
        ks += [f'    <kw file="{f}" channel="1" tbeg="{b:.4f}" dur="{d:.4f}" score="{s:.6f}" '
               f'decision="{"YES" if s >= 0.5 else "NO"}"/>' for _, f, b, d, s in mine]
        ks.append("  </detected_kwlist>")
    (case / "kwslist.xml").write_text("\n".join([*ks, "</kwslist>"]) + "\n")
    return case


def hand_cases(out: Path) -> list[Path]:
    cases = []
    # 1. mid-points exactly on the tolerance: occurrence 10.0-10.5; mids 9.5 and 11.0 hit, 11.125 does not
    lex: list[Lex] = [("F1", "s", 10.0, 0.5, "river", "lex"), ("F1", "s", 20.0, 0.5, "river", "lex"),
                      ("F1", "s", 30.0, 0.5, "river", "lex"), ("F1", "s", 40.0, 0.25, "bank", "lex")]
    dets: list[Det] = [("K1", "F1", 9.25, 0.5, 0.9), ("K1", "F1", 20.75, 0.5, 0.8), ("K1", "F1", 30.875, 0.5, 0.7),
                       ("K1", "F1", 39.0, 0.5, 0.3), ("K2", "F1", 40.0, 0.25, 0.6)]
    cases.append(write_case(out, "tolerance", [("F1", 0.0, 60.0)], lex, [("K1", "river"), ("K2", "bank")], dets))
    # 2. multi-word gaps on the -F limit: 0.5 exactly is an occurrence, 0.625 is not; a fragment in between
    lex = [("F1", "a", 5.0, 0.25, "prime", "lex"), ("F1", "a", 5.75, 0.5, "minister", "lex"),
           ("F1", "a", 15.0, 0.25, "prime", "lex"), ("F1", "a", 15.875, 0.5, "minister", "lex"),
           ("F1", "a", 25.0, 0.25, "prime", "lex"), ("F1", "a", 25.375, 0.125, "mi-", "frag"),
           ("F1", "a", 25.625, 0.5, "minister", "lex"), ("F1", "b", 35.0, 0.25, "prime", "lex"),
           ("F1", "c", 35.5, 0.5, "minister", "lex"), ("F1", "a", 45.0, 0.25, "world", "lex"),
           ("F1", "a", 45.5, 0.25, "cup", "lex"), ("F1", "a", 46.0, 0.25, "final", "lex")]
    dets = [("K1", "F1", 5.0, 1.25, 0.9), ("K1", "F1", 15.0, 1.375, 0.8), ("K1", "F1", 25.0, 1.125, 0.2),
            ("K1", "F1", 35.0, 1.0, 0.55), ("K2", "F1", 45.0, 1.25, 0.7)]
    cases.append(write_case(out, "word_gap", [("F1", 0.0, 60.0)], lex,
                            [("K1", "prime minister"), ("K2", "world cup final")], dets))
    # 3. case folding: mixed-case transcript and terms, with and without compareNormalize
    lex = [("F1", "s", 3.0, 0.5, "New", "lex"), ("F1", "s", 3.5, 0.5, "YORK", "lex"),
           ("F1", "s", 8.0, 0.5, "new", "lex"), ("F1", "s", 8.5, 0.5, "york", "lex"),
           ("F1", "s", 13.0, 0.5, "Paris", "lex"), ("F1", "s", 18.0, 0.5, "paris", "lex")]
    dets = [("K1", "F1", 3.0, 1.0, 0.9), ("K1", "F1", 8.0, 1.0, 0.4), ("K2", "F1", 13.0, 0.5, 0.8),
            ("K2", "F1", 18.0, 0.5, 0.6)]
    terms = [("K1", "New York"), ("K2", "PARIS")]
    cases.append(write_case(out, "case_lower", [("F1", 0.0, 30.0)], lex, terms, dets))
    cases.append(write_case(out, "case_exact", [("F1", 0.0, 30.0)], lex, terms, dets, normalize=False))
    # 4. duplicates: the same detection twice on one occurrence, and two occurrences one detection can reach
    lex = [("F1", "s", 4.0, 0.5, "music", "lex"), ("F1", "s", 4.75, 0.5, "music", "lex"),
           ("F1", "s", 12.0, 0.5, "music", "lex")]
    dets = [("K1", "F1", 12.0, 0.5, 0.7), ("K1", "F1", 12.0, 0.5, 0.7), ("K1", "F1", 4.5, 0.375, 0.9),
            ("K1", "F1", 20.0, 0.5, 0.1)]
    cases.append(write_case(out, "duplicates", [("F1", 0.0, 30.0)], lex, [("K1", "music")], dets))
    # 5. outside the excerpts: references and detections before/after/straddling the excerpt edges
    lex = [("F1", "s", 2.0, 0.5, "market", "lex"), ("F1", "s", 11.0, 0.5, "market", "lex"),
           ("F1", "s", 19.75, 0.5, "market", "lex"), ("F1", "s", 25.0, 0.5, "market", "lex"),
           ("F2", "s", 5.0, 0.5, "market", "lex")]
    dets = [("K1", "F1", 2.0, 0.5, 0.9), ("K1", "F1", 11.0, 0.5, 0.8), ("K1", "F1", 19.75, 0.5, 0.75),
            ("K1", "F1", 25.0, 0.5, 0.85), ("K1", "F2", 5.0, 0.5, 0.95), ("K1", "F1", 9.875, 0.25, 0.6)]
    cases.append(write_case(out, "outside_ecf", [("F1", 10.0, 10.0), ("F1", 30.0, 5.0)], lex,
                            [("K1", "market")], dets))
    # 6. terms without occurrences (one with false alarms, one with none, one only outside the excerpts)
    lex = [("F1", "s", 5.0, 0.5, "energy", "lex"), ("F1", "s", 45.0, 0.5, "hospital", "lex")]
    dets = [("K1", "F1", 5.0, 0.5, 0.8), ("K2", "F1", 10.0, 0.5, 0.7), ("K2", "F1", 15.0, 0.5, 0.2),
            ("K3", "F1", 45.0, 0.5, 0.9)]
    cases.append(write_case(out, "no_targets", [("F1", 0.0, 40.0)], lex,
                            [("K1", "energy"), ("K2", "weather"), ("K3", "hospital"), ("K4", "football")], dets))
    # 7. a system that detects nothing (no threshold: KWSEval's MTWV threshold "NaN", no OTWV)
    cases.append(write_case(out, "no_detections", [("F1", 0.0, 40.0)], lex,
                            [("K1", "energy"), ("K2", "weather")], []))
    return cases


def random_case(out: Path, seed: int) -> Path:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
    files = ["R1", "R2"]
    lex: list[Lex] = []
    for f in files:
        t = 0.5
        while t < 95:
            d = rng.choice([0.25, 0.375, 0.5])
            lex.append((f, "s", t, d, rng.choice(words), "lex"))
            t += d + rng.choice([0.0, 0.125, 0.25, 0.5, 0.625, 1.0])
    terms = [(f"T{i:02d}", w) for i, w in enumerate(words)] + [("T10", "alpha beta"), ("T11", "gamma delta")]
    dets: list[Det] = []
    for f, _, b, d, w, _ in lex:
        kwid = f"T{words.index(w):02d}"
        for _ in range(rng.choice([0, 1, 1, 2])):
            shift = rng.choice([-0.75, -0.5, -0.25, 0.0, 0.125, 0.5, 0.625])
            dets.append((kwid, f, max(0.0, b + shift), d, round(rng.random(), 6)))
    for _ in range(30):
        kwid = rng.choice(terms)[0]
        dets.append((kwid, rng.choice(files), rng.randrange(0, 95 * 8) / 8, 0.5, round(rng.random(), 6)))
    header = ' min_score="-1.0" max_score="2.0"' if seed == 3 else ""  # the pairing's score scale from the header
    return write_case(out, f"random_{seed}", [("R1", 0.0, 90.0), ("R2", 5.0, 85.0)], lex, terms, dets, header=header)


def run_kwseval(case: Path, extra: list[str]) -> str:
    base = Path(os.environ["F4DE_BASE"])
    env = dict(os.environ, PERL_PERTURB_KEYS="0", PERL_HASH_SEED="0")
    command = ["perl", "-x", "-I", str(base / "common/lib"), "-I", str(base / "KWSEval/lib"),
               str(base / "KWSEval/tools/KWSEval/KWSEval.pl"), "-e", "ecf.xml", "-r", "rttm", "-s", "kwslist.xml",
               "-t", "kwlist.xml", "-o", "-b", "-f", "-", *extra]
    done = subprocess.run(command, cwd=case, env=env, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests/fixtures/kws"
    cases = hand_cases(out) + [random_case(out, seed) for seed in (1, 2, 3)]
    for case in cases:
        for name, extra in VARIANTS.items():
            (case / name).write_text(run_kwseval(case, extra))
        print(case.name)


if __name__ == "__main__":
    main()
