"""XML input read with the standard library's expat, keeping each element's file and line for error messages."""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass, field

from segeval.core.domains import Domain
from segeval.core.errors import InputError
from segeval.readers.files import read_bytes
from segeval.readers.formats import read_number


@dataclass
class Element:
    """One element of the file ``path``: its name, attributes, the line of its start tag, its text (direct character
    data) and child elements."""

    path: str
    name: str
    attrs: dict[str, str]
    line: int
    text: str = ""
    children: list[Element] = field(default_factory=list)

    def error(self, problem: str) -> InputError:
        """An :class:`InputError` at the element's line."""
        return InputError(self.path, problem, line=self.line)

    def each(self, name: str) -> Iterator[Element]:
        """The child elements in order, each a ``<name>`` (another is an :class:`InputError` at its line)."""
        for child in self.children:
            if child.name != name:
                raise child.error(f"unexpected <{child.name}> in <{self.name}>; expected <{name}>")
            yield child

    def attribute(self, name: str) -> str:
        """The attribute's value, or an :class:`InputError` naming the element and the missing attribute."""
        value = self.attrs.get(name)
        if value is None:
            raise self.error(f'<{self.name}> has no {name}= attribute; expected {name}="..."')
        return value

    def number(self, name: str, domain: Domain | None = None) -> float:
        """The attribute read by the one number grammar (in ``domain`` when given), else an :class:`InputError`."""
        text = self.attribute(name)
        value = read_number(text, self.path, f"<{self.name}> {name}", line=self.line)
        if domain is not None and not domain.holds(value):
            raise self.error(f'<{self.name}> {name}="{text}": expected {domain}')
        return value


def read_xml(path: str, kind: str, root: str, role: str) -> Element:
    """The root element of the file, a ``<root>`` (``role`` names what it holds); an :class:`InputError` with
    expat's reason for XML that is not well-formed (expected ``kind`` XML), or for another root."""
    return parse_xml(read_bytes(path, lines=False), path, kind, root, role)  # XML may be one long line


def parse_xml(data: bytes, path: str, kind: str, root: str, role: str) -> Element:
    """:func:`read_xml` on the file's bytes."""
    parser = xml.parsers.expat.ParserCreate()
    document = Element(path, "", {}, 0)
    stack = [document]  # the open elements, under the document

    def start(name: str, attrs: dict[str, str]) -> None:
        element = Element(path, name, attrs, parser.CurrentLineNumber)
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
    element = document.children[0]
    if element.name != root:
        raise element.error(f"the root element is <{element.name}>; expected <{root}> ({role})")
    return element
