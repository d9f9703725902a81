"""The term list (kwlist): each term's id and text, and how texts are compared."""

from __future__ import annotations

from dataclasses import dataclass

from segeval.protocols.speech.rttm import words
from segeval.protocols.speech.xmlfile import read_xml


@dataclass(frozen=True)
class Term:
    kwid: str
    text: str
    line: int


@dataclass(frozen=True)
class TermList:
    terms: dict[str, Term]
    lowercase: bool  # compareNormalize="lowercase"


def read_kwlist(path: str) -> TermList:
    """The terms of a kwlist file (UTF-8 only, as docs/speech.md says)."""
    root = read_xml(path, "kwlist", "kwlist", "term list")
    encoding = root.attrs.get("encoding", "UTF-8")
    if encoding != "UTF-8":  # KWSEval's schema: UTF-8 or GB2312 (encoding="" only unvalidated: then ASCII folding)
        raise root.error(f'encoding="{encoding}": expected "UTF-8" (segeval reads UTF-8 kwlists and RTTMs)')
    normalize = root.attribute("compareNormalize")  # KWSEval stops without it ("" compares as written)
    if normalize not in ("", "lowercase"):
        raise root.error(f'compareNormalize="{normalize}": expected "lowercase" or nothing')
    terms: dict[str, Term] = {}
    for element in root.each("kw"):
        kwid = element.attribute("kwid")
        texts = [child for child in element.children if child.name == "kwtext"]
        if len(texts) != 1 or not words(texts[0].text):
            raise element.error(f"term {kwid}: expected one non-empty <kwtext>")
        if kwid in terms:
            raise element.error(
                f"term {kwid} is listed twice (first on line {terms[kwid].line}); expected each kwid once"
            )
        terms[kwid] = Term(kwid, texts[0].text.strip(), element.line)
    if not terms:
        raise root.error("no <kw>: expected at least one term")
    return TermList(terms, normalize == "lowercase")
