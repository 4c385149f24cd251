"""Output writers, one module per format, and the atomic-write helpers they all use."""

from ._atomic import atomic_output, check_output

__all__ = ["atomic_output", "check_output"]
