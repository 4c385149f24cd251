"""Filter profiles equal HMMER's own byte scores (pyhmmer's OptimizedProfile)."""

from __future__ import annotations

import numpy as np
import pytest
from hmm_support import load_models
from pyhmmer.easel import Alphabet, DigitalSequence
from pyhmmer.plan7 import Background, Profile

from seqwarp.hmm import cpu
from seqwarp.hmm.profile import SCALE_B, FilterProfile, length_move, roundf

MODELS = ["pyhmmer:PF02826", "pyhmmer:Thioesterase", "pyhmmer:KR", "Pkinase", "M1", "XYPPX",
          "SMC_N", "MADE1", "ecori", "pyhmmer:RREFam"]  # fmt: skip


def _optimized(hmm):
    background = Background(hmm.alphabet)
    profile = Profile(hmm.M, hmm.alphabet)
    profile.configure(hmm, background, 400)
    return profile.to_optimized(), background


def test_roundf_rounds_half_away_from_zero() -> None:
    values = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -np.inf], dtype=np.float32)
    assert roundf(values).tolist() == [1.0, 2.0, 3.0, -1.0, -3.0, 0.0, -np.inf]


@pytest.mark.parametrize("name", MODELS)
def test_byte_costs_equal_hmmer(name: str) -> None:
    for hmm in load_models(name):
        om, background = _optimized(hmm)
        fp = FilterProfile.from_hmm(hmm, background)
        assert (fp.bias_b, fp.tbm_b, fp.tec_b) == (om.bias_b, om.tbm, om.tec)
        rbv = np.asarray(om.rbv)  # striped, 16 bytes a vector: node k in vector (k-1) % Q
        q = rbv.shape[1] // 16
        k = np.arange(1, hmm.M + 1)
        columns = ((k - 1) % q) * 16 + (k - 1) // q
        kp = hmm.alphabet.Kp
        assert np.array_equal(rbv[:kp][:, columns], fp.msv_cost[:kp, 1 : hmm.M + 1])
        assert (fp.msv_cost[:, hmm.M + 1 :] == 255).all()


@pytest.mark.parametrize("length", [1, 2, 17, 400, 2000, 35000, 100000])
def test_length_dependent_byte_cost_equals_hmmer(length: int) -> None:
    om, _ = _optimized(load_models("fn3")[0])
    om.L = length
    assert int(min(255, -roundf(SCALE_B * length_move(length)))) == om.tjb


def test_length_scores_equal_hmmer() -> None:
    """The batched per-length terms: the N/C/J move bit for bit as ``length_move``, the null
    score within a float32 rounding of ``p7_bg_NullOne``."""
    lengths = np.array([0, 1, 2, 17, 400, 2000, 35000, 100000], dtype=np.int64)
    moves, null = cpu.length_scores(lengths)
    assert [float(m) for m in moves] == [float(length_move(int(n))) for n in lengths]
    alphabet = Alphabet.amino()
    background = Background(alphabet)
    for length, score in zip(lengths[1:], null[1:], strict=True):
        background.L = int(length)
        target = DigitalSequence(alphabet, sequence=np.zeros(length, dtype=np.uint8))
        assert abs(score - background.null1(target)) < 1e-5
