"""``cupy.cuda.memory``: its out-of-memory error (the emulated device never runs out)."""


class OutOfMemoryError(MemoryError):
    pass
