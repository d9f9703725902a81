"""XML input read with the standard library's expat, keeping each element's line for error messages."""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass, field

from segeval.core.domains import Domain
from segeval.core.errors import InputError
from segeval.readers.files import read_document
from segeval.readers.formats import read_number


@dataclass
class Element:
    """One element: its name, attributes, the line of its start tag, its text (direct character data)."""

    name: str
    attrs: dict[str, str]
    line: int
    text: str = ""
    children: list[Element] = field(default_factory=list)


def read_xml(path: str, kind: str) -> Element:
    """The document's root element; an :class:`InputError` with expat's reason for XML that is not well-formed."""
    return parse_xml(read_document(path), path, kind)


def parse_xml(data: bytes, path: str, kind: str) -> Element:
    """:func:`read_xml` on the file's bytes."""
    parser = xml.parsers.expat.ParserCreate()
    document = Element("", {}, 0)
    stack = [document]  # the open elements, under the document

    def start(name: str, attrs: dict[str, str]) -> None:
        element = Element(name, attrs, parser.CurrentLineNumber)
        stack[-1].children.append(element)
        stack.append(element)

    def chars(text: str) -> None:
        stack[-1].text += text

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda name: stack.pop()
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise InputError(
            path,
            f"not well-formed XML ({xml.parsers.expat.ErrorString(exc.code)}); expected {kind} XML",
            line=exc.lineno,
        ) from None
    except LookupError as exc:  # an XML declaration naming an encoding no codec reads
        raise InputError(
            path,
            f"declares an encoding Python cannot read ({exc}); expected {kind} XML in UTF-8",
            line=parser.CurrentLineNumber,
        ) from None
    return document.children[0]


def expect_root(path: str, root: Element, name: str, kind: str) -> None:
    """An :class:`InputError` unless the root element is ``name``."""
    if root.name != name:
        raise InputError(path, f"the root element is <{root.name}>; expected <{name}> ({kind})", line=root.line)


def children(path: str, parent: Element, name: str) -> Iterator[Element]:
    """``parent``'s elements in order, each a ``<name>`` (another is an :class:`InputError` at its line)."""
    for child in parent.children:
        if child.name != name:
            raise InputError(path, f"unexpected <{child.name}> in <{parent.name}>; expected <{name}>", line=child.line)
        yield child


def attribute(path: str, element: Element, name: str) -> str:
    """The attribute's value, or an :class:`InputError` naming the element and the missing attribute."""
    value = element.attrs.get(name)
    if value is None:
        raise InputError(path, f'<{element.name}> has no {name}= attribute; expected {name}="..."', line=element.line)
    return value


def number(path: str, element: Element, name: str, domain: Domain | None = None) -> float:
    """The attribute read by the one number grammar (in ``domain`` when given), else an :class:`InputError`."""
    text = attribute(path, element, name)
    value = read_number(text, path, f"<{element.name}> {name}", line=element.line)
    if domain is not None and not domain.holds(value):
        raise InputError(path, f'<{element.name}> {name}="{text}": expected {domain}', line=element.line)
    return value
