"""The one check of printed and signed texts (portal/service/cfe/xmlchars.py) and the pattern the OpenAPI document
publishes for it say the same thing, character by character."""

from __future__ import annotations

import re

import pytest
from pydantic_core import PydanticCustomError

from portal.service.cfe.xmlchars import text_pattern, xml_text

# Every BMP character but the surrogates (a Python text may hold them; JSON cannot carry them alone), and the
# first and last of each astral range that matters.
SAMPLE = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF] + [
    chr(c) for c in (0x10000, 0x1F600, 0xE0000, 0xE0041, 0xE007F, 0xE0080, 0xEFFFF, 0xF0000, 0x10FFFD, 0x10FFFF)
]


def _accepted(text: str, line_breaks: bool) -> bool:
    try:
        xml_text(text, line_breaks=line_breaks)
    except PydanticCustomError:
        return False
    return True


@pytest.mark.parametrize("line_breaks", [True, False])
def test_the_published_pattern_accepts_exactly_what_the_check_accepts(line_breaks):
    # In the Basic Multilingual Plane; the astral characters refused (tags, planes 15-16) are the server's alone.
    pattern = re.compile(text_pattern(line_breaks=line_breaks))
    disagree = [
        f"U+{ord(char):04X}"
        for char in SAMPLE
        if ord(char) <= 0xFFFF
        if bool(pattern.fullmatch(f"a{char}b")) != _accepted(f"a{char}b", line_breaks)
    ]
    assert disagree == []


def test_astral_refusals_are_the_servers_own_rule():
    for char in ("\U000e0041", "\U000f0001", "\U0010fffd"):
        assert re.compile(text_pattern()).fullmatch(f"a{char}") and not _accepted(f"a{char}", True)
    assert re.compile(text_pattern()).fullmatch("\U0001f600") and _accepted("\U0001f600", True)


@pytest.mark.parametrize("text", ["   ", "\u00a0\u3000", "\t\n"])
def test_a_text_of_only_spaces_is_the_servers_own_rule(text):
    # The pattern says which characters; "not only spaces" made schema-driven generators far slower to say.
    assert re.compile(text_pattern()).fullmatch(text)
    with pytest.raises(PydanticCustomError) as refused:
        xml_text(text)
    assert refused.value.type == "blank"


@pytest.mark.parametrize(
    ("text", "normalised"),
    [("a\u00a0b", "a b"), ("a\u2009b\u202fc", "a b c"), ("1\u20282\u20293", "1\n2\n3"), ("plain", "plain")],
)
def test_other_spaces_and_separators_are_normalised(text, normalised):
    assert xml_text(text) == normalised


def test_a_one_line_text_refuses_separators_and_names_the_character():
    with pytest.raises(PydanticCustomError) as refused:
        xml_text("a\u2028b", line_breaks=False)
    assert refused.value.type == "control_chars" and "U+2028" in refused.value.message()
