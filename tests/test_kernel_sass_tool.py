"""tools/kernel_sass.py's SASS digest: instructions count, addresses and encodings do not."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

TOOL = Path(__file__).resolve().parents[1] / "tools" / "kernel_sass.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kernel_sass", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
