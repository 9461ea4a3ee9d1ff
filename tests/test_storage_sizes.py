"""``storage.sizes.parse_size``: what ``--max-memory`` reads, and its one-line refusals."""

from __future__ import annotations

import pytest

from solver.errors import RulesError
from solver.storage.sizes import parse_size

GIB = 1 << 30


@pytest.mark.parametrize("text, size", [
    ("16GiB", 16 * GIB), ("16G", 16 * GIB), ("16gb", 16 * GIB), ("16 GiB", 16 * GIB), (" 16gib ", 16 * GIB),
    ("512MiB", 512 << 20), ("100MiB", 100 << 20), ("0.01MiB", int(0.01 * (1 << 20))), ("1.5GiB", 3 * GIB // 2),
    ("2K", 2048), ("1T", 1 << 40), ("2e9", 2 * 10**9), ("2E10", 2 * 10**10), ("1e3K", 1000 * 1024),
    ("4096", 4096), ("4096B", 4096), ("7.", 7), ("8GB", 8 * GIB),
])
def test_sizes_read(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["1x", "-3G", "G", "", "0", "0GiB", ".5G", "1e-3G", "16 GiBs", "16PiB", "1,024"])
def test_bad_sizes_are_one_line_naming_the_option(text):
    with pytest.raises(RulesError) as e:
        parse_size(text, "--budget")
    assert str(e.value) == f"--budget {text!r}: give a size such as 16GiB, 512MiB or 2e10"
    assert e.value.exit_code == 2


def test_the_option_named_by_default_is_max_memory():
    with pytest.raises(RulesError, match=r"^--max-memory '1x': "):
        parse_size("1x")
