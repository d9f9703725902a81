"""Generate the keyword-search differential cases and score them with NIST F4DE KWSEval.

    F4DE_BASE=/path/to/F4DE python scripts/kws_cases.py [OUT_DIR]

writes, per case, the four inputs (ecf.xml, rttm, kwlist.xml, kwslist.xml) and KWSEval's output for each
variant (``official.txt``, ``official_optimum.txt``, ``official_inc.txt``, ``official_params.txt``: other
-S, -F, trials per second, C, V and P_target), and KWSEval -d's DET curve for three of them (run_det:
``official_det.txt``, ``official_inc_det.txt``, ``official_params_det.txt``) under OUT_DIR (default
tests/fixtures/kws). KWSEval is F4DE commit 7de28d51 (KWSEval/tools/KWSEval/KWSEval.pl), run with
``-o -b -f -`` and the Perl hash order fixed (PERL_PERTURB_KEYS=0 PERL_HASH_SEED=0). The hand-made cases put
values exactly on KWSEval's limits (mid-point on the tolerance, word gap on -F, case folding, duplicates,
references and detections outside the excerpts, terms without occurrences); the random ones exercise the
one-to-one pairing with crowded occurrences. Times are multiples of 1/8 s on the limits so that the
comparisons are exact in binary. Then the classes of issue 37: file names in every spelling, case folding and
white space beyond ASCII, splitcts excerpts (all four variants); the cases whose KWSEval output varies from run
to run (exact ties, inputs its schemas refuse, a non-ASCII file name): ``official_run<i>.txt``, every distinct
output of RUNS runs; and Perl's own tables (perl_lc.txt, perl_match.txt.gz, file_ids.txt: perl_tables).
Needs Perl 5 (5.36 here) with the modules F4DE uses (Debian: libtext-csv-perl libtext-csv-xs-perl
libstatistics-descriptive-perl libstatistics-distributions-perl libdbi-perl libdbd-sqlite3-perl libyaml-perl
libdata-dump-perl libmath-random-oo-perl libfile-monitor-perl libxml2-utils sqlite3) and F4DE's common/lib,
KWSEval/lib, KWSEval/tools and KWSEval/data (the schemas).
"""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

VARIANTS = {"official.txt": [], "official_optimum.txt": ["--zGlobalMeasures", "Optimum", "--zGlobalMeasures",
                                                          "Supremum"],
            "official_inc.txt": ["--include-blocks-w-notargs"],
            "official_params.txt": ["--Similarity-threshold", "0.25", "--Find-threshold", "0.75",
                                    "--number-trials-per-sec", "2", "--koefcorrect", "0.2", "--Koefincorrect", "2",
                                    "--prob-of-term", "0.001"]}
RUNS = 40  # KWSEval runs of the cases whose output varies
SCHEMA_PAD = 200
#: the segeval options of each variant
SEGEVAL_OPTIONS = {"official.txt": [], "official_optimum.txt": ["--optimum"], "official_inc.txt": ["--inc"],
                   "official_params.txt": ["-S", "0.25", "-F", "0.75", "--trials-per-second", "2", "--cost", "0.2",
                                           "--value", "2", "--p-target", "0.001"]}

Lex = tuple[str, str, float, float, str, str]  # file, speaker, begin, dur, word, subtype
Det = tuple[str, str, float, float, float]  # kwid, file, begin, dur, score
Excerpt = tuple[str, float, float, str]  # audio_filename, tbeg, dur, source_type


def sph(file: str, begin: float, dur: float, source_type: str = "bnews") -> Excerpt:
    """An excerpt of ``file.sph``."""
    return f"{file}.sph", begin, dur, source_type


def write_case(out: Path, name: str, excerpts: list[Excerpt], lexemes: list[Lex], terms: list[tuple[str, str]],
               detections: list[Det], normalize: bool = True, header: str = "", encoding: str = "UTF-8") -> Path:
    case = out / name
    case.mkdir(parents=True, exist_ok=True)
    total = sum(d for _, _, d, _ in excerpts)
    ecf = [f'<ecf source_signal_duration="{total:.3f}" language="english" version="{name}">']
    ecf += [f'  <excerpt audio_filename="{f}" channel="1" tbeg="{b:.3f}" dur="{d:.3f}" source_type="{t}"/>'
            for f, b, d, t in excerpts]
    (case / "ecf.xml").write_text("\n".join([*ecf, "</ecf>"]) + "\n")
    rttm = [f"SPEAKER {f} 1 0.000 200.000 <NA> <NA> {s} <NA>" for f, s in sorted({(f, s) for f, s, *_ in lexemes})]
    rttm += [f"LEXEME {f} 1 {b:.4f} {d:.4f} {w} {t} {s} <NA>" for f, s, b, d, w, t in lexemes]
    (case / "rttm").write_text("\n".join(rttm) + "\n", encoding="utf-8")
    attr = ' compareNormalize="lowercase"' if normalize else ' compareNormalize=""'
    kw = [f'<kwlist ecf_filename="ecf.xml" version="{name}" language="english"{attr} encoding="{encoding}">']
    for kwid, text in terms:
        kw += [f'  <kw kwid="{kwid}">', f"    <kwtext>{text}</kwtext>", "  </kw>"]
    (case / "kwlist.xml").write_text("\n".join([*kw, "</kwlist>"]) + "\n", encoding="utf-8")
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
    cases.append(write_case(out, "tolerance", [sph("F1", 0.0, 60.0)], lex, [("K1", "river"), ("K2", "bank")], dets))
    # 2. multi-word gaps on the -F limit: 0.5 exactly is an occurrence, 0.625 is not; a fragment in between
    lex = [("F1", "a", 5.0, 0.25, "prime", "lex"), ("F1", "a", 5.75, 0.5, "minister", "lex"),
           ("F1", "a", 15.0, 0.25, "prime", "lex"), ("F1", "a", 15.875, 0.5, "minister", "lex"),
           ("F1", "a", 25.0, 0.25, "prime", "lex"), ("F1", "a", 25.375, 0.125, "mi-", "frag"),
           ("F1", "a", 25.625, 0.5, "minister", "lex"), ("F1", "b", 35.0, 0.25, "prime", "lex"),
           ("F1", "c", 35.5, 0.5, "minister", "lex"), ("F1", "a", 45.0, 0.25, "world", "lex"),
           ("F1", "a", 45.5, 0.25, "cup", "lex"), ("F1", "a", 46.0, 0.25, "final", "lex")]
    dets = [("K1", "F1", 5.0, 1.25, 0.9), ("K1", "F1", 15.0, 1.375, 0.8), ("K1", "F1", 25.0, 1.125, 0.2),
            ("K1", "F1", 35.0, 1.0, 0.55), ("K2", "F1", 45.0, 1.25, 0.7)]
    cases.append(write_case(out, "word_gap", [sph("F1", 0.0, 60.0)], lex,
                            [("K1", "prime minister"), ("K2", "world cup final")], dets))
    # 3. case folding: mixed-case transcript and terms, with and without compareNormalize
    lex = [("F1", "s", 3.0, 0.5, "New", "lex"), ("F1", "s", 3.5, 0.5, "YORK", "lex"),
           ("F1", "s", 8.0, 0.5, "new", "lex"), ("F1", "s", 8.5, 0.5, "york", "lex"),
           ("F1", "s", 13.0, 0.5, "Paris", "lex"), ("F1", "s", 18.0, 0.5, "paris", "lex")]
    dets = [("K1", "F1", 3.0, 1.0, 0.9), ("K1", "F1", 8.0, 1.0, 0.4), ("K2", "F1", 13.0, 0.5, 0.8),
            ("K2", "F1", 18.0, 0.5, 0.6)]
    terms = [("K1", "New York"), ("K2", "PARIS")]
    cases.append(write_case(out, "case_lower", [sph("F1", 0.0, 30.0)], lex, terms, dets))
    cases.append(write_case(out, "case_exact", [sph("F1", 0.0, 30.0)], lex, terms, dets, normalize=False))
    # 4. duplicates: the same detection twice on one occurrence, and two occurrences one detection can reach
    lex = [("F1", "s", 4.0, 0.5, "music", "lex"), ("F1", "s", 4.75, 0.5, "music", "lex"),
           ("F1", "s", 12.0, 0.5, "music", "lex")]
    dets = [("K1", "F1", 12.0, 0.5, 0.7), ("K1", "F1", 12.0, 0.5, 0.7), ("K1", "F1", 4.5, 0.375, 0.9),
            ("K1", "F1", 20.0, 0.5, 0.1)]
    cases.append(write_case(out, "duplicates", [sph("F1", 0.0, 30.0)], lex, [("K1", "music")], dets))
    # 5. outside the excerpts: references and detections before/after/straddling the excerpt edges
    lex = [("F1", "s", 2.0, 0.5, "market", "lex"), ("F1", "s", 11.0, 0.5, "market", "lex"),
           ("F1", "s", 19.75, 0.5, "market", "lex"), ("F1", "s", 25.0, 0.5, "market", "lex"),
           ("F2", "s", 5.0, 0.5, "market", "lex")]
    dets = [("K1", "F1", 2.0, 0.5, 0.9), ("K1", "F1", 11.0, 0.5, 0.8), ("K1", "F1", 19.75, 0.5, 0.75),
            ("K1", "F1", 25.0, 0.5, 0.85), ("K1", "F2", 5.0, 0.5, 0.95), ("K1", "F1", 9.875, 0.25, 0.6)]
    cases.append(write_case(out, "outside_ecf", [sph("F1", 10.0, 10.0), sph("F1", 30.0, 5.0)], lex,
                            [("K1", "market")], dets))
    # 6. terms without occurrences (one with false alarms, one with none, one only outside the excerpts)
    lex = [("F1", "s", 5.0, 0.5, "energy", "lex"), ("F1", "s", 45.0, 0.5, "hospital", "lex")]
    dets = [("K1", "F1", 5.0, 0.5, 0.8), ("K2", "F1", 10.0, 0.5, 0.7), ("K2", "F1", 15.0, 0.5, 0.2),
            ("K3", "F1", 45.0, 0.5, 0.9)]
    cases.append(write_case(out, "no_targets", [sph("F1", 0.0, 40.0)], lex,
                            [("K1", "energy"), ("K2", "weather"), ("K3", "hospital"), ("K4", "football")], dets))
    # 7. a system that detects nothing (no threshold: KWSEval's MTWV threshold "NaN", no OTWV)
    cases.append(write_case(out, "no_detections", [sph("F1", 0.0, 40.0)], lex,
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
    return write_case(out, f"random_{seed}", [sph("R1", 0.0, 90.0), sph("R2", 5.0, 85.0)], lex, terms, dets,
                      header=header)


#: (audio_filename, the file id KWSEval gives the excerpt: the RTTM's file field) for the file-name case
NAMED_EXCERPTS = [("f01.sph", "f01"), ("f02.v2.sph", "f02.v2"), ("F03.SPH", "F03"), ("f04.wav", "f04"),
                  ("dir/f05.sph", "f05"), ("f06", "f06"), (".f07.sph", ".f07"), ("f08..sph", "f08."),
                  ("f09.sph.gz", "f09.sph"), ("d.x/f10.y", "f10"), ("d.x/f11", "d")]


def file_name_case(out: Path) -> Path:
    """Detections naming their file in every spelling (the audio name, the id, with ``.sph``, ``.SPH``, a folder,
    ``.wav``, two dots): one term each, its one occurrence in that excerpt, one YES detection on it, so each
    term's row says whether KWSEval's id of the detection's name is the excerpt's."""
    lex: list[Lex] = []
    terms: list[tuple[str, str]] = []
    dets: list[Det] = []
    for i, (audio, file) in enumerate(NAMED_EXCERPTS):
        spellings = [audio, file, f"{file}.sph", f"{file}.SPH", f"x/y.z/{audio}", f"{file}.wav", f"{file}..sph"]
        for j, spelling in enumerate(spellings):
            kwid, word, begin = f"K{i:02d}{j}", f"w{i:02d}{j}", 5.0 + 4 * j
            lex.append((file, "s", begin, 0.5, word, "lex"))
            terms.append((kwid, word))
            dets.append((kwid, spelling, begin, 0.5, 0.9))
    excerpts = [(audio, 0.0, 40.0, "bnews") for audio, _ in NAMED_EXCERPTS]
    return write_case(out, "file_names", excerpts, lex, terms, dets)


#: terms and transcript words on which Python's lower()/casefold() and Perl's lc and //i could differ: final sigma,
#: dotted capital I (lc gives i + U+0307), sharp s against ss, Latin-1 and Greek letters, the Kelvin sign, a
#: titlecase digraph
FOLDS = [("ΟΔΟΣ", "οδος"), ("ΟΔΟΣ", "οδοσ"), ("ΟΔΟΣ", "ΟΔΟΣ"), ("İSTANBUL", "i̇stanbul"), ("İSTANBUL", "istanbul"),
         ("ÉCOLE", "école"), ("STRASSE", "straße"), ("ǅEMAL", "ǆemal"), ("\u212aELVIN", "kelvin"),
         ("Paris", "paris"), ("new ΟΔΟΣ", "new οδος"), ("die STRASSE", "die straße"), ("la ÉCOLE", "la école"),
         ("big ΔΕΛΤΑ", "big δέλτα")]


def fold_cases(out: Path) -> list[Path]:
    """Each pair of FOLDS as a term and its transcript words (one term each, one YES detection on the words), with
    compareNormalize="lowercase" and without it."""
    lex: list[Lex] = []
    terms: list[tuple[str, str]] = []
    dets: list[Det] = []
    for i, (term, said) in enumerate(FOLDS):
        begin = 5.0 + 4 * i
        for k, word in enumerate(said.split()):
            lex.append(("F1", "s", begin + 0.75 * k, 0.5, word, "lex"))
        terms.append((f"K{i:02d}", term))
        dets.append((f"K{i:02d}", "F1", begin, 0.5 + 0.75 * (len(said.split()) - 1), 0.9))
    excerpts = [sph("F1", 0.0, 4.0 * len(FOLDS) + 10)]
    return [write_case(out, "fold_lowercase", excerpts, lex, terms, dets),
            write_case(out, "fold_exact", excerpts, lex, terms, dets, normalize=False)]


def white_space_case(out: Path) -> Path:
    """RTTM fields split by Perl's \\s on decoded text: a no-break space and an ideographic space split (the
    words of "near far" are found), U+001C (a separator to Python's split, not to Perl's) does not ("a\\x1cb"
    stays one field, and the record one of 9 fields)."""
    lex: list[Lex] = [("F1", "s", 5.0, 0.5, "near", "lex"), ("F1", "s", 5.75, 0.5, "far", "lex"),
                      ("F1", "s", 10.0, 0.5, "a\x1cb", "lex"), ("F1", "s", 15.0, 0.5, "far", "lex")]
    dets: list[Det] = [("K1", "F1", 5.0, 1.25, 0.9), ("K2", "F1", 15.0, 0.5, 0.8)]
    case = write_case(out, "white_space", [sph("F1", 0.0, 30.0)], lex, [("K1", "near far"), ("K2", "far")], dets)
    rttm = (case / "rttm").read_text(encoding="utf-8").split("\n")
    rttm[1] = rttm[1].replace(" ", "\u00a0", 3)  # the LEXEME of "near": its first separators no-break spaces
    rttm[2] = rttm[2].replace(" 5.7500 ", "\u3000 5.7500\u3000")
    (case / "rttm").write_text("\n".join(rttm), encoding="utf-8")
    return case


def splitcts_case(out: Path) -> Path:
    """Excerpts of source type splitcts (KWSEval counts their duration half), cts, confmtg, and two overlapping
    splitcts excerpts of one file; a false alarm makes the trial count show in the TWV."""
    excerpts = [sph("S1", 0.0, 40.0, "splitcts"), sph("S2", 0.0, 40.0, "cts"), sph("S3", 0.0, 40.0, "confmtg"),
                sph("S4", 0.0, 30.0, "splitcts"), sph("S4", 20.0, 20.0, "splitcts")]
    lex: list[Lex] = [(f, "s", 10.0, 0.5, "river", "lex") for f in ("S1", "S2", "S3", "S4")]
    dets: list[Det] = [("K1", f, 10.0, 0.5, 0.9) for f in ("S1", "S2", "S3", "S4")] + [("K1", "S1", 30.0, 0.5, 0.8)]
    return write_case(out, "splitcts", excerpts, lex, [("K1", "river")], dets)


def refused_cases(out: Path) -> list[Path]:
    """Inputs KWSEval's schemas refuse (its output is the error): a kwlist with encoding="" (KWSEval would fold
    bytes, ASCII only, were its validation bypassed) and an excerpt of source type SPLITCTS (not splitcts); and a
    file name outside ASCII (KWSEval compares the RTTM's decoded name with the ECF's bytes: no target). KWSEval
    reads a file while xmllint validates it and stops at the first error found so far, so the ECF often gets
    through (then SPLITCTS counts whole), even with SCHEMA_PAD excerpts after the bad one."""
    lex: list[Lex] = [("F1", "s", 10.0, 0.5, "école", "lex")]
    dets: list[Det] = [("K1", "F1", 10.0, 0.5, 0.9)]
    return [write_case(out, "refused_encoding", [sph("F1", 0.0, 40.0)], lex, [("K1", "ÉCOLE")], dets, encoding=""),
            write_case(out, "refused_file_name", [sph("Fé", 0.0, 40.0)], [("Fé", "s", 10.0, 0.5, "river", "lex")],
                       [("K1", "river")], [("K1", "Fé", 10.0, 0.5, 0.9)]),
            write_case(out, "refused_source_type", [sph("F1", 0.0, 40.0, "SPLITCTS")] + [sph(f"G{i:03d}", 0.0, 1.0)
                                                                                      for i in range(SCHEMA_PAD)],
                       lex, [("K1", "école")], dets)]


def tie_case(out: Path) -> Path:
    """A YES and a NO detection with the same times and score on one occurrence, each first in the file once:
    KWSEval pairs the one its memory addresses order first (a hit, or a miss and a false alarm)."""
    lex: list[Lex] = [("F1", "s", 10.0, 0.5, "river", "lex"), ("F1", "s", 30.0, 0.5, "bank", "lex")]
    dets: list[Det] = [("K1", "F1", 10.0, 0.5, 0.5), ("K1", "F1", 10.0, 0.5, 0.5),
                       ("K2", "F1", 30.0, 0.5, 0.5), ("K2", "F1", 30.0, 0.5, 0.5)]
    case = write_case(out, "tie", [sph("F1", 0.0, 60.0)], lex, [("K1", "river"), ("K2", "bank")], dets)
    text = (case / "kwslist.xml").read_text().split("\n")
    decisions = iter(["YES", "NO", "NO", "YES"])  # K1: YES first in the file, K2: NO first
    text = [line.replace('decision="YES"', f'decision="{next(decisions)}"') if "<kw " in line else line
            for line in text]
    (case / "kwslist.xml").write_text("\n".join(text))
    return case


def tie_group_case(out: Path) -> Path:
    """Two occurrences 0.25 s apart and three detections alike (NO, YES, NO in the file) whose mid-point reaches
    both equally: two pairs, with the YES (a hit and a miss) or without it (two misses and a false alarm)."""
    lex: list[Lex] = [("F1", "s", 10.0, 0.5, "river", "lex"), ("F1", "s", 10.75, 0.5, "river", "lex")]
    dets: list[Det] = [("K1", "F1", 10.375, 0.5, 0.5)] * 3
    case = write_case(out, "tie_group", [sph("F1", 0.0, 60.0)], lex, [("K1", "river")], dets)
    text = (case / "kwslist.xml").read_text().split("\n")
    decisions = iter(["NO", "YES", "NO"])
    text = [line.replace('decision="YES"', f'decision="{next(decisions)}"') if "<kw " in line else line
            for line in text]
    (case / "kwslist.xml").write_text("\n".join(text))
    return case


#: Perl (KWSEval reads the kwlist and the RTTM decoded when encoding="UTF-8": character strings, upgraded here so
#: that code points below 256 fold too). Lines of hex code points: the input, lc's output / the match (1 or 0).
PERL_LC = r"""
binmode STDIN, ":utf8";
sub hex_of { join(",", map { sprintf "%04X", ord } split //, $_[0]) }
for my $c (0 .. 0x10FFFF) {
  next if $c >= 0xD800 && $c <= 0xDFFF;
  my $s = chr($c); utf8::upgrade($s);
  print hex_of($s), " ", hex_of(lc $s), "\n" if lc($s) ne $s;
}
while (my $line = <STDIN>) { chomp $line; print hex_of($line), " ", hex_of(lc $line), "\n"; }
"""
PERL_MATCH = r"""
use feature 'fc';
sub hex_of { join(",", map { sprintf "%04X", ord } split //, $_[0]) }
for my $c (0 .. 0x10FFFF) {
  next if $c >= 0xD800 && $c <= 0xDFFF;
  my $s = chr($c); utf8::upgrade($s);
  my %seen;
  for my $w (lc $s, uc $s, fc $s, ucfirst $s) {
    for my $pair ([$s, $w], [$w, $s]) {
      my ($token, $word) = @$pair;
      next if $token eq $word || $seen{"$token $word"}++;
      print hex_of($token), " ", hex_of($word), " ", ($token =~ /^\Q$word\E$/i ? 1 : 0), "\n";
    }
  }
}
"""
#: KWSEval's file ids (common/lib/MMisc.pm and KWSEval/lib): a detection's, as KWSList.pm takes it, and an excerpt's
PERL_FILE_IDS = r"""
use MMisc; use KWSecf_excerpt;
while (my $name = <STDIN>) {
  chomp $name;
  my ($err, $d, $f, $e) = MMisc::split_dir_file_ext($name);
  my $detection = ($e eq 'sph') ? $f : MMisc::concat_dir_file_ext('', $f, $e);
  print "$name\t$detection\t", KWSecf_excerpt->new($name, 1, 0, 1, "english", "bnews")->{FILE}, "\n";
}
"""


def perl(script: str, stdin: str, *libraries: str) -> str:
    base = Path(os.environ["F4DE_BASE"])
    command = ["perl", *(f"-I{base / lib}" for lib in libraries), "-e", script]
    return subprocess.run(command, input=stdin, capture_output=True, encoding="utf-8", check=True).stdout


def perl_tables(out: Path) -> None:
    """perl_lc.txt: Perl's lc of every code point it changes and of seeded strings around final sigma;
    perl_match.txt.gz: Perl's /i match of each code point with its lc, uc, fc and ucfirst both ways; file_ids.txt:
    KWSEval's file ids of seeded names (several dots, none, leading ones, upper-case or doubled extensions, folders)."""
    rng = random.Random(37)
    letters = "ΣσςΟΔΑ İIiıÉéßẞǅǄKkΩ\u212a-'a"
    strings = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 8))) for _ in range(400)]
    (out / "perl_lc.txt").write_text(perl(PERL_LC, "\n".join(strings) + "\n"))
    with gzip.GzipFile(out / "perl_match.txt.gz", "wb", mtime=0) as handle:  # the same bytes every time
        handle.write(perl(PERL_MATCH, "").encode())
    parts = ["a", "b", ".", ".", "/", "sph", "SPH", "wav", "v2", "gz", "x.y/"]
    names = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 6))) for _ in range(1000)]
    (out / "file_ids.txt").write_text(perl(PERL_FILE_IDS, "\n".join(names) + "\n", "common/lib", "KWSEval/lib"))


def run_kwseval(case: Path, extra: list[str], root: str = "-") -> str:
    base = Path(os.environ["F4DE_BASE"])
    env = dict(os.environ, PERL_PERTURB_KEYS="0", PERL_HASH_SEED="0")
    command = ["perl", "-x", "-I", str(base / "common/lib"), "-I", str(base / "KWSEval/lib"),
               str(base / "KWSEval/tools/KWSEval/KWSEval.pl"), "-e", "ecf.xml", "-r", "rttm", "-s", "kwslist.xml",
               "-t", "kwlist.xml", "-o", "-b", "-f", root, *extra]
    done = subprocess.run(command, cwd=case, env=env, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


#: the variants whose term-weighted DET curve (KWSEval -d) is stored, as ``<variant>_det.txt``
DET_VARIANTS = ("official.txt", "official_inc.txt", "official_params.txt")


def run_det(case: Path, extra: list[str]) -> str:
    """KWSEval -d's curve (``dets/sum.Occurrence.dat.1``: one row per threshold; columns 1, 4, 5, 6 kept: score,
    PMiss, PFA, TWV, the ±2 SE columns dropped) and its ``dat.2`` row (MTWV's score, TWV, PMiss, PFA first)."""
    with tempfile.TemporaryDirectory() as tmp:
        run_kwseval(case, [*extra, "-d"], root=f"{tmp}/r")
        dets = Path(tmp) / "r.dets"
        if not (dets / "sum.Occurrence.dat.1").exists():  # no detection score: KWSEval draws no curve
            return "# no sum.Occurrence.dat.1: KWSEval -d drew no curve\n"
        curve = (dets / "sum.Occurrence.dat.1").read_text().splitlines()
        best = (dets / "sum.Occurrence.dat.2").read_text().splitlines()
    head = [line for line in curve[:3] if line.startswith("#")]
    rows = [" ".join(line.split()[i] for i in (0, 3, 4, 5)) for line in curve if not line.startswith("#")]
    return "\n".join([*head, "# 1:score 4:PMiss 5:PFA 6:TWV of dat.1, then dat.2", *rows, *best]) + "\n"


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests/fixtures/kws"
    cases = hand_cases(out) + [random_case(out, seed) for seed in (1, 2, 3)] + [file_name_case(out)] + \
        fold_cases(out) + [white_space_case(out), splitcts_case(out)]
    for case in cases:
        for name, extra in VARIANTS.items():
            (case / name).write_text(run_kwseval(case, extra), encoding="utf-8")
            if name in DET_VARIANTS:
                (case / name.replace(".txt", "_det.txt")).write_text(run_det(case, extra))
        print(case.name)
    # the outputs that differ from run to run: every distinct one kept
    for case in [*refused_cases(out), tie_case(out), tie_group_case(out)]:
        seen = sorted({run_kwseval(case, []) for _ in range(RUNS)})
        for i, text in enumerate(seen):
            (case / f"official_run{i + 1}.txt").write_text(text, encoding="utf-8")
        print(case.name, len(seen), "outputs")
    perl_tables(out)


if __name__ == "__main__":
    main()
