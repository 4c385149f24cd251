"""``cupy.cuda.nvrtc``: the version the emulator reports."""


def getVersion() -> tuple[int, int]:
    return (13, 0)
