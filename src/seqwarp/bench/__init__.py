"""Benchmarks: `python -m seqwarp.bench {align,align-gpu,hmm,assembly}`."""
