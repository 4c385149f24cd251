"""Output writers, one module per format, and the atomic-write helper they all use."""

from ._atomic import atomic_output

__all__ = ["atomic_output"]
