"""The reference transcript (RTTM): ``LEXEME`` records and the occurrences of a term in them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from segeval.core.errors import InputError
from segeval.readers.files import read_utf8
from segeval.readers.formats import read_number

#: Perl's \s on decoded text (Unicode White_Space): Python's \s less the separators U+001C-U+001F
_SPACE = re.compile(r"[^\S\x1c-\x1f]+")


def words(text: str) -> list[str]:
    """The words of a text as KWSEval splits RTTM lines and term texts (Perl's ``split``, ends trimmed)."""
    return text.split() if text.isprintable() else [word for word in _SPACE.split(text) if word]  # fast: no U+001C


def lowercase(text: str) -> str:
    """Perl's ``lc`` on decoded text: Python's ``lower()`` less its one context rule, a final ``Σ`` to ``ς``."""
    return text.replace("Σ", "σ").lower()


def same_word(token: str, word: str) -> bool:
    """Perl's ``/i`` match of a token with a later word of a term: equal under full case folding."""
    return token.casefold() == word.casefold()


@dataclass(eq=False)
class Lexeme:
    """One ``LEXEME`` record; ``end`` is begin + duration rounded to 4 decimals (KWSEval's RTTMRecord)."""

    file: str
    channel: str
    begin: float
    end: float
    token: str
    subtype: str
    speaker: str
    next: Lexeme | None = None


@dataclass(frozen=True)
class Occurrence:
    """A reference occurrence of a term: its words' records in order."""

    words: tuple[Lexeme, ...]

    @property
    def begin(self) -> float:
        return self.words[0].begin

    @property
    def end(self) -> float:
        return self.words[-1].end


class Transcript:
    """The lexemes of an RTTM file, linked per (file, channel, speaker) as KWSEval links them, by first word."""

    def __init__(self, lexemes: list[Lexeme], lowercase: bool) -> None:
        self.lowercase = lowercase
        self._by_first: dict[str, list[Lexeme]] = {}
        chains: dict[tuple[str, str, str], list[Lexeme]] = {}
        for lexeme in lexemes:
            chains.setdefault((lexeme.file, lexeme.channel, lexeme.speaker), []).append(lexeme)
            if lexeme.subtype not in ("frag", "fp"):
                self._by_first.setdefault(self.normalize(lexeme.token), []).append(lexeme)
        for records in chains.values():
            # KWSEval (RTTMList::__linkEntries) links the i-th record in FILE order to the (i+1)-th in begin
            # order: the same chain as sorting when the file is in time order, and its quirk when it is not
            ordered = sorted(records, key=lambda r: r.begin)
            for i in range(len(records) - 1):
                records[i].next = ordered[i + 1]

    def normalize(self, text: str) -> str:
        return lowercase(text) if self.lowercase else text

    def occurrences(self, text: str, word_gap: float) -> list[Occurrence]:
        """Every occurrence of the term ``text`` (KWSEval's ``findTermOccurrences``; docs/speech.md, "Occurrences")."""
        term = words(self.normalize(text))
        found = []
        for first in self._by_first.get(term[0], ()) if term else ():
            chain = [first]
            for word in term[1:]:
                following = chain[-1].next
                if (
                    following is None
                    or float(f"{following.begin - chain[-1].end:.4f}") > word_gap
                    or not same_word(following.token, word)
                ):
                    break
                chain.append(following)
            else:  # every word found
                found.append(Occurrence(tuple(chain)))
        return found


def read_rttm(path: str, lowercase: bool) -> Transcript:
    """The ``LEXEME`` records of an RTTM file; a bad record, or none, is an :class:`InputError`."""
    lexemes = []
    records = 0
    text = read_utf8(path, "an RTTM file in UTF-8")
    for number, raw in enumerate(text.split("\n"), 1):
        fields = words(raw.split(";;", 1)[0])
        if not fields:
            continue
        if len(fields) != 9:
            raise InputError(
                path,
                f"expected 9 fields (type file channel tbeg dur ortho subtype speaker conf), found {len(fields)}",
                line=number,
                text=raw,
            )
        kind, file, channel, tbeg, dur, token, subtype, speaker, _ = fields
        records += 1
        if kind.upper() != "LEXEME":
            continue
        begin, duration = (
            read_number(t, path, f"LEXEME {what}", minimum=0, line=number, shown=raw)
            for t, what in ((tbeg, "tbeg"), (dur, "dur"))
        )
        lexemes.append(Lexeme(file, channel, begin, float(f"{begin + duration:.4f}"), token, subtype, speaker))
    if not lexemes:  # an empty or word-less reference would score every term as having no occurrence
        what = "holds no LEXEME record" if records else "has no data lines"
        raise InputError(
            path,
            f"{what}; expected the reference's words as LEXEME records (type file channel tbeg "
            f"dur ortho subtype speaker conf)",
            kind="no data",
        )
    return Transcript(lexemes, lowercase)
