"""Sizes given as text (``--max-memory 16GiB``) read as bytes: the one parser of the commands."""

from __future__ import annotations

import re

from ..errors import RulesError

# A number (digits, a decimal point, an exponent) and a unit: K, M, G or T (powers of 1024),
# with or without "iB" or "B"; any case, spaces around.
SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?(?:E\d+)?)\s*([KMGT]?)(?:I?B)?\s*$")


def parse_size(text: str, option: str = "--max-memory") -> int:
    """Bytes in '16GiB', '16G', '16gb', '512MiB', '1.5GiB', '2e9' (powers of 1024 for K, M, G,
    T; a number alone is bytes). ``RulesError``, one line naming ``option``, for anything else,
    and for a size that is not above 0."""
    m = SIZE.match(text.upper())
    if not m or float(m.group(1)) <= 0:
        raise RulesError(f"{option} {text!r}: give a size such as 16GiB, 512MiB or 2e10")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))
