"""tools/kernel_sass.py's SASS digest: instructions count, addresses and encodings do not."""

from __future__ import annotations

from types import ModuleType

from tool_modules import load_tool


def _tool() -> ModuleType:
    return load_tool("kernel_sass")


SASS = """
        Function : kernel
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
        /*0010*/                   VIADDMNMX R2, R3, R4, R5, PT ;           /* 0x0000000403027246 */
        /*0020*/                   EXIT ;                                   /* 0x000000000000794d */
"""


def test_digest_ignores_addresses_and_encodings() -> None:
    tool = _tool()
    moved = SASS.replace("/*0000*/", "/*0100*/").replace("0x00000a00ff017b82", "0x1234")
    assert tool.sass_digest(moved) == tool.sass_digest(SASS)


def test_digest_tells_other_instructions_apart() -> None:
    tool = _tool()
    assert tool.sass_digest(SASS.replace("VIADDMNMX", "VIMNMX3")) != tool.sass_digest(SASS)
    assert tool.sass_digest(SASS.replace("R4", "R6")) != tool.sass_digest(SASS)


def _loop_body(inner_dp: int, outer_dp: int, filler: int) -> list[tuple[int, str, str, bool]]:
    """A row loop of ``inner_dp`` min/max instructions inside a stripe loop that adds
    ``outer_dp`` more (an odd last row) and ``filler`` other instructions, as `_row_loop`
    reads cuobjdump's lines: (address, opcode, operands, conditional)."""
    ops = ["IMAD"] + ["VIADDMNMX"] * inner_dp + ["BRA_INNER"]
    ops += ["VIADDMNMX"] * outer_dp + ["IMAD"] * filler + ["BRA_OUTER"]
    body = []
    for k, op in enumerate(ops):
        if op == "BRA_INNER":
            body.append((16 * k, "BRA", "@P0 0x10", True))
        elif op == "BRA_OUTER":
            body.append((16 * k, "BRA", "@P1 0x0", True))
        else:
            body.append((16 * k, op, "R1, R2", False))
    return body


def test_row_loop_is_the_densest_loop_holding_half_the_maxima() -> None:
    tool = _tool()
    # two rows a pass: the inner loop holds 2/3 of the maxima, the stripe loop the rest
    loop, common = tool._row_loop(_loop_body(inner_dp=24, outer_dp=12, filler=40))
    assert loop["VIADDMNMX"] == 24 and loop["IMAD"] == 0
    assert common["VIADDMNMX"] == 24
    # a stripe loop with few maxima of its own still leaves the row loop inside it
    loop, _ = tool._row_loop(_loop_body(inner_dp=24, outer_dp=1, filler=40))
    assert loop["VIADDMNMX"] == 24
    # an inner loop holding under half of the maxima is not the row loop
    loop, _ = tool._row_loop(_loop_body(inner_dp=4, outer_dp=24, filler=2))
    assert loop["VIADDMNMX"] == 28


def test_rows_a_pass_counts_each_rows_shuffles_up_the_group() -> None:
    tool = _tool()
    Counter = tool.collections.Counter
    assert tool.rows_a_pass(Counter({"SHFL.UP": 3}), affine=True) == 1
    assert tool.rows_a_pass(Counter({"SHFL.UP": 6}), affine=True) == 2
    assert tool.rows_a_pass(Counter({"SHFL.UP": 4}), affine=False) == 2
    assert tool.rows_a_pass(Counter(), affine=False) == 1


ROW_WITH_RARE_BLOCK = """
        /*0000*/                   IMAD R1, R2, R3, R4 ;
        /*0010*/                   VIADDMNMX.S16x2 R2, R3, R4, R5, !PT ;
        /*0020*/               @P0 BRA 0x50 ;
        /*0030*/                   VIADDMNMX R6, R7, 0x1, R8, PT ;
        /*0040*/                   MEMBAR.SC.CTA ;
        /*0050*/                   VIMNMX.S16x2 R2, R2, R5, !PT ;
        /*0060*/               @P1 BRA 0x0 ;
"""


def test_a_packed_lanes_scalar_minimum_does_not_draw_the_common_path() -> None:
    tool = _tool()
    # 16-bit pairs: the block with an index bound's scalar minimum is skipped
    _, common = tool._row_loop(tool.read_body(ROW_WITH_RARE_BLOCK, packed=True))
    assert common["MEMBAR"] == 0 and common["VIADDMNMX.32"] == 0
    assert common["VIADDMNMX"] == 1 and common["VIMNMX"] == 1
    # int32 cells: a scalar maximum is a cell's, and the path takes it
    _, common = tool._row_loop(tool.read_body(ROW_WITH_RARE_BLOCK, packed=False))
    assert common["MEMBAR"] == 1 and common["VIADDMNMX"] == 2


def test_listing_marks_the_common_path(capsys) -> None:
    tool = _tool()
    body = tool.read_body(ROW_WITH_RARE_BLOCK, packed=True)
    span = tool.row_loop_span(body)
    assert span == (0, 6)
    # the rare block (its scalar minimum and barrier) is branched over
    assert tool.common_path(body, *span) == [0, 1, 2, 5, 6]
    tool.print_listing(body, *span)
    marked = [line.split()[0] == "*" for line in capsys.readouterr().out.splitlines()]
    assert marked == [True, True, True, False, False, True, True]
