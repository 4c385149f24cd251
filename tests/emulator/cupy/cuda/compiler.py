"""``cupy.cuda.compiler``: its compile error."""


class CompileException(Exception):
    pass
