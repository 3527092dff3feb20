"""A small XML file read whole into elements that know their line, for formats of one small file per picture
(Pascal VOC's Annotations/<id>.xml, about a kilobyte each).

Read with expat, the standard library's parser, as the CVAT reader is (ADR 0039): a DOCTYPE or an entity is
refused before it can expand (no tool writes one in these files), and so is a file over MAX_FILE bytes, an
element nested deeper than MAX_DEPTH or a text or attribute over budget.MAX_TEXT characters. defusedxml would
refuse the entities too, but keeps no line numbers, which every refusal here names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from desktop_app.formats.budget import MAX_DOCUMENT, MAX_TEXT, text_too_long
from desktop_app.formats.records import FormatError, read_text, shown

MAX_FILE = MAX_DOCUMENT  # one file read whole
MAX_DEPTH = 32  # VOC nests 4 deep (annotation/object/bndbox/xmin; attributes/attribute/name)


@dataclass
class Element:
    tag: str
    attrib: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The element's text without the white space around it (what a name or a number is)."""
        return "".join(self.parts).strip()

    @property
    def raw(self) -> str:
        """The element's text as written (an attribute's value, whose spaces are its own)."""
        return "".join(self.parts)

    def find(self, tag: str) -> Element | None:
        return next((child for child in self.children if child.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        return [child for child in self.children if child.tag == tag]


class _Refused(Exception):
    def __init__(self, error: FormatError):
        self.error = error


def parse(file: Path, what: str) -> Element:
    """The file's root element; a FormatError naming the file and line when it is not one well-formed, plain
    XML document within the limits. `what` names the tool that writes such files, for the DOCTYPE refusal."""
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise FormatError(f"cannot read the file ({exc.strerror or exc})", file) from None
    if size > MAX_FILE:
        raise FormatError(f"the file is {size:,} bytes; one annotation file may be at most {MAX_FILE:,}", file)
    text = read_text(file)
    parser = expat.ParserCreate()
    parser.buffer_text = True
    stack: list[Element] = []
    root: list[Element] = []
    sizes: list[int] = []  # characters of text so far, per open element

    def refuse(message: str, field_name: str | None = None):
        raise _Refused(FormatError(message, file, parser.CurrentLineNumber, field_name))

    def on_start(tag: str, attrib: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            refuse(f"elements nested more than {MAX_DEPTH} deep")
        for name, value in attrib.items():
            problem = text_too_long(len(value), f"attribute {shown(name)} of <{tag[:60]}>")
            if problem:
                refuse(problem, f"{tag}.{name}")
        element = Element(tag, dict(attrib), parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(element)
        stack.append(element)
        sizes.append(0)

    def on_end(_tag: str) -> None:
        stack.pop()
        sizes.pop()

    def on_text(data: str) -> None:
        if stack:
            element = stack[-1]
            element.parts.append(data)
            sizes[-1] += len(data)
            if sizes[-1] > MAX_TEXT:
                refuse(f"the text of <{element.tag[:60]}> is more than {MAX_TEXT:,} characters; the limit is "
                       f"{MAX_TEXT:,}", element.tag)

    def on_doctype(*_args) -> None:
        refuse(f"the file declares a DOCTYPE or entities, which {what} never writes (an entity can expand to "
               "gigabytes); write the file again without them")

    parser.StartElementHandler = on_start
    parser.EndElementHandler = on_end
    parser.CharacterDataHandler = on_text
    parser.StartDoctypeDeclHandler = on_doctype
    parser.EntityDeclHandler = on_doctype
    try:
        parser.Parse(text, True)
    except _Refused as refused:
        raise refused.error from None
    except expat.ExpatError as exc:
        raise FormatError(f"not well-formed XML: {expat.ErrorString(exc.code)} at column {exc.offset + 1}", file,
                          exc.lineno) from None
    return root[0]
