"""``Cigars``: the batch of CIGAR strings results carry (ASCII codes, offsets)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqwarp.align import Cigars, results
from seqwarp.align.cpu import cigar_text

cigar_lists = st.lists(st.text(alphabet="0123456789=XID", max_size=12), max_size=30)


@given(cigar_lists)
def test_behaves_as_the_list_it_was_made_from(strings: list[str]) -> None:
    cigars = Cigars.from_strings(strings)
    assert len(cigars) == len(strings)
    assert cigars == strings and list(cigars) == strings and cigars.tolist() == strings
    assert cigars[1:4] == strings[1:4]
    for part in (slice(None), slice(2, None), slice(-3, -1), slice(5, 2), slice(None, None, 2)):
        assert cigars[part] == strings[part]
    if strings:
        assert cigars[-1] == strings[-1] and cigars[0] == strings[0]
        assert cigars != [*strings[:-1], strings[-1] + "="]
    with pytest.raises(IndexError):
        cigars[len(strings)]


@given(cigar_lists)
def test_made_from_codes_decodes_only_what_is_read(strings: list[str]) -> None:
    # strings read one at a time or as slices before (and after) the whole text is decoded
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in strings], out=offsets[1:])
    codes = np.frombuffer("".join(strings).encode("ascii"), dtype=np.uint8)
    cigars = Cigars.from_bytes(codes, offsets)
    for part in (slice(None), slice(2, None), slice(-3, -1), slice(5, 2), slice(None, None, 2)):
        assert cigars[part] == strings[part]
    assert [cigars[p] for p in range(len(strings))] == strings
    assert cigars == Cigars.from_strings(strings) and cigars.text == "".join(strings)
    assert cigars[1:4] == strings[1:4] and list(cigars) == strings
    # pieces whose offsets start inside the codes, joined back in order
    cut = len(strings) // 2
    first, second = Cigars(codes, offsets[: cut + 1]), Cigars(codes, offsets[cut:])
    parts = [(slice(cut, len(strings)), second), (slice(0, cut), first)]
    assert Cigars.scatter(len(strings), parts) == strings


@settings(deadline=None)  # the first call compiles the numba scatter
@given(cigar_lists, st.randoms(use_true_random=False))
def test_scatter_puts_each_part_at_its_positions(strings: list[str], random) -> None:
    positions = list(range(len(strings) + 3))
    random.shuffle(positions)
    cut = len(strings) // 2
    chosen = np.array(positions[: len(strings)], dtype=np.int64)
    parts = [
        (chosen[:cut], Cigars.from_strings(strings[:cut])),
        (chosen[cut:], Cigars.from_strings(strings[cut:])),
    ]
    merged = Cigars.scatter(len(strings) + 3, parts)
    expected = [""] * (len(strings) + 3)
    for p, s in zip(chosen, strings, strict=True):
        expected[p] = s
    assert merged == expected


@settings(deadline=None)
@given(cigar_lists, cigar_lists, st.randoms(use_true_random=False))
def test_replaced_puts_new_strings_at_their_positions(
    strings: list[str], new: list[str], random
) -> None:
    new = new[: len(strings)]
    chosen = np.array(sorted(random.sample(range(len(strings)), len(new))), dtype=np.int64)
    # codes that start past the first string's, as a part of a larger buffer does
    base = Cigars.from_strings(["IDX", *strings])
    cigars = Cigars(base.codes, base.offsets[1:])
    expected = list(strings)
    for p, text in zip(chosen, new, strict=True):
        expected[p] = text
    assert cigars.replaced(chosen, Cigars.from_strings(new)) == expected
    # blocks of 1 and 3 strings: replacements at a block's ends, blocks without any
    for block in (1, 3):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(results, "_SPLICE_BLOCK", block)
            assert cigars.replaced(chosen, Cigars.from_strings(new)) == expected


def test_text_of_operation_runs() -> None:
    # ops: 12 matches, 1 mismatch, 3 insertions | 1 deletion | nothing
    ops = np.array([0] * 12 + [1] + [2] * 3 + [3], dtype=np.uint8)
    ops_offsets = np.array([0, 16, 17, 17], dtype=np.int64)
    counts = np.array([16, 1, 0], dtype=np.int64)
    text, offsets = cigar_text(ops, ops_offsets, counts)
    assert Cigars.from_bytes(text, offsets) == ["12=1X3I", "1D", ""]


def test_scatter_joins_consecutive_ranges_in_order() -> None:
    first = Cigars.from_strings(["1=", "2X"])
    second = Cigars.from_strings(["3I"])
    third = Cigars.from_strings(["4D", ""])
    parts = [(slice(3, 5), third), (np.array([2]), second), (slice(0, 2), first)]
    assert Cigars.scatter(5, parts) == ["1=", "2X", "3I", "4D", ""]
    # a gap between the ranges: the missing position is empty
    assert Cigars.scatter(6, parts) == ["1=", "2X", "3I", "4D", "", ""]
    assert Cigars.scatter(2, []) == ["", ""]
