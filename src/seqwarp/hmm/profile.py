"""Filter profiles: HMMER 3.4's byte (SSV/MSV) and word (Viterbi filter) scores from one HMM.

The float emission scores come from pyhmmer's ``Profile`` (HMMER's own configuration); the
transitions, the local-entry occupancy and every rounding step are recomputed from the
formulas of ``p7_ProfileConfig``, ``mf_conversion`` and ``vf_conversion``, in float32 exactly
as HMMER does them, so that the filters reproduce HMMER's scores bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyhmmer

__all__ = [
    "END",
    "MSV_WIDTH",
    "NCODES",
    "PAD",
    "VF_WIDTH",
    "BiasModel",
    "FilterProfile",
    "roundf",
]

NCODES = 32  # residue codes 0..Kp-1, then the two layout codes below
END = 30  # ends a sequence inside a striped block
PAD = 31  # fills a lane after its last sequence

LN2 = 0.69314718055994529
SCALE_B = np.float32(3.0 / LN2)
SCALE_W = np.float32(500.0 / LN2)
BASE_B = 190
BASE_W = 12000
MSV_WIDTH = 64  # node padding of the byte tables (one AVX-512 vector of uint8)
VF_WIDTH = 16  # node padding of the word tables (one AVX-512 vector of int32)
TRANSITIONS = ("BM", "MM", "IM", "DM", "MD", "MI", "II", "DD")
MM, MI, MD, IM, II, DM, DD = range(7)  # HMMER's p7H_* order of the .hmm file


def roundf(x: np.ndarray | np.float32) -> np.ndarray:
    """C ``roundf``: round half away from zero, in float32 (numpy's round is half-to-even)."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        a = np.abs(x)
        f = np.floor(a)
        r = np.where(a - f >= np.float32(0.5), f + np.float32(1.0), f)
        return np.where(np.isfinite(x), np.copysign(r, x), x).astype(np.float32)


def _unbiased_byte(scores: np.ndarray) -> np.ndarray:
    """``unbiased_byteify``: cost = -roundf(scale_b * s), capped at 255."""
    c = -roundf(SCALE_B * np.asarray(scores, dtype=np.float32))
    return np.where(c > 255, 255, c).astype(np.uint8)


def _word(scores: np.ndarray) -> np.ndarray:
    """``wordify``: roundf(scale_w * s) clamped to the int16 range (-inf -> -32768)."""
    w = roundf(SCALE_W * np.asarray(scores, dtype=np.float32))
    return np.clip(w, -32768, 32767).astype(np.int16)


def _log(p: np.ndarray) -> np.ndarray:
    """``(float) log((double) p)``: HMMER's transition scores."""
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(p, dtype=np.float64)).astype(np.float32)


def length_move(length: int) -> np.float32:
    """``logf(3 / (L + 3))``: the N/C/J move score of the filters for a target of length L."""
    return np.float32(math.log(np.float32(3.0) / np.float32(length + 3)))


@dataclass(frozen=True)
class BiasModel:
    """The two-state composition HMM of HMMER's bias filter: state 1 emits the model's COMPO."""

    odds: np.ndarray  # float32[NCODES]: state-1 emission odds per residue code (state 0 is 1)
    t10: np.float32  # state 1 -> state 0
    t11: np.float32  # state 1 self-loop
    usable: bool  # False for models without COMPO (HMMER's NaN/garbage quirk: never filter)


@dataclass(frozen=True)
class FilterProfile:
    """One model's filter scores, node-major with node k at column k (column 0 unused)."""

    name: str
    M: int
    alphabet: str
    match_scores: np.ndarray  # float32[NCODES, M + 1]: HMMER's match score of x at node k
    transitions: np.ndarray  # float32[M + 1, 7]: the model's transition probabilities
    msv_cost: np.ndarray  # uint8[NCODES, 1 + MSV_WIDTH*j]: biased byte cost of x at node k
    bias_b: int
    tbm_b: int
    tec_b: int
    msv_mu: float
    msv_lambda: float
    vf_mu: float
    vf_lambda: float
    bias: BiasModel

    @classmethod
    def from_hmm(
        cls, hmm: pyhmmer.plan7.HMM, background: pyhmmer.plan7.Background
    ) -> FilterProfile:
        """Configure ``hmm`` (local multihit, as hmmsearch does) and derive every filter score."""
        M = hmm.M
        profile = pyhmmer.plan7.Profile(M, hmm.alphabet)
        profile.configure(hmm, background, 100)
        rsc = np.asarray(profile.emission_scores, dtype=np.float32)  # [Kp, 2(M+1)]: match, insert
        kp = rsc.shape[0]
        k = hmm.alphabet.K
        scores = np.full((NCODES, M + 1), -np.inf, dtype=np.float32)
        scores[:kp, 1:] = rsc[:, 2::2]
        top = max(0.0, float(scores[:k, 1:].max()))
        bias_b = int(_unbiased_byte(np.float32(-top)))
        cost = -roundf(SCALE_B * scores)
        cost = np.where(cost > 255 - bias_b, 255, cost + bias_b).astype(np.uint8)
        cost[:, 0] = 255
        tbm = np.float32(math.log(np.float32(2.0) / (np.float32(M) * np.float32(M + 1))))
        mu_msv, lam_msv, mu_vf, lam_vf = list(hmm.evalue_parameters.as_vector())[:4]
        return cls(
            name=hmm.name if isinstance(hmm.name, str) else hmm.name.decode(),
            M=M,
            alphabet=hmm.alphabet.type,
            match_scores=scores,
            transitions=np.array(hmm.transition_probabilities, dtype=np.float32),
            msv_cost=_pad(cost, MSV_WIDTH, 255),
            bias_b=bias_b,
            tbm_b=int(_unbiased_byte(tbm)),
            tec_b=int(_unbiased_byte(np.float32(math.log(np.float32(0.5))))),
            msv_mu=float(mu_msv),
            msv_lambda=float(lam_msv),
            vf_mu=float(mu_vf),
            vf_lambda=float(lam_vf),
            bias=_bias_model(hmm, background),
        )

    @cached_property
    def vf_emit(self) -> np.ndarray:
        """int16[NCODES, 1 + VF_WIDTH*j]: word match emission of x at node k.

        The Viterbi-filter tables are made on first use: the CPU search leaves that filter
        to HMMER, and building them (the occupancy loop above all) costs about as much as
        all the byte tables.
        """
        return _pad(_word(self.match_scores), VF_WIDTH, -32768)

    @cached_property
    def vf_trans(self) -> np.ndarray:
        """int16[8, 1 + VF_WIDTH*j]: TRANSITIONS, by destination node k (made on first use)."""
        return _pad(_vf_transitions(self.transitions, self.M), VF_WIDTH, -32768)


def _pad(table: np.ndarray, width: int, fill: int) -> np.ndarray:
    """Extend the node axis to a multiple of ``width`` with nodes that can never score.

    Node k feeds only node k + 1, so trailing dead nodes change no real cell, and their
    cells (0 in bytes, -32768 in words) never raise a row maximum; the kernels' inner loops
    then run whole SIMD vectors, without a scalar remainder.
    """
    nodes = table.shape[1] - 1
    padded = -(-nodes // width) * width
    out = np.full((table.shape[0], padded + 1), fill, dtype=table.dtype)
    out[:, : nodes + 1] = table
    return out


def _occupancy_entry(t: np.ndarray, M: int) -> np.ndarray:
    """Local entry scores tBM(k) = log(mocc[k] / Z), HMMER's occupancy-weighted begin."""
    mocc = np.zeros(M + 1, dtype=np.float32)
    mocc[1] = t[0, MI] + t[0, MM]
    for k in range(2, M + 1):
        stay = float(np.float32(mocc[k - 1] * np.float32(t[k - 1, MM] + t[k - 1, MI])))
        mocc[k] = np.float32(stay + (1.0 - float(mocc[k - 1])) * float(t[k - 1, DM]))
    z = np.float32(0.0)
    for k in range(1, M + 1):
        z = np.float32(z + np.float32(mocc[k] * np.float32(M - k + 1)))
    entry = np.full(M + 1, -np.inf, dtype=np.float32)
    entry[1:] = _log(mocc[1:] / z)
    return entry


def _vf_transitions(t: np.ndarray, M: int) -> np.ndarray:
    """Word transitions by destination node: BM/MM/IM/DM into k, MD/MI/II/DD out of k."""
    tsc = np.full((M + 1, 7), -np.inf, dtype=np.float32)  # profile scores, node 1..M-1 only
    tsc[1:M] = _log(t[1:M])
    into = np.full((M + 1, 7), -np.inf, dtype=np.float32)  # tsc[k-1] seen from node k
    into[1:] = tsc[:M]
    out = np.full((M + 1, 7), -np.inf, dtype=np.float32)
    out[1:M] = tsc[1:M]
    words = np.full((8, M + 1), -32768, dtype=np.int16)
    words[0] = _word(_occupancy_entry(t, M))
    words[1] = _word(into[:, MM])
    words[2] = _word(into[:, IM])
    words[3] = _word(into[:, DM])
    words[4] = _word(out[:, MD])
    words[5] = _word(out[:, MI])
    words[6] = np.minimum(_word(out[:, II]), -1)
    words[7] = _word(out[:, DD])
    words[:, 0] = -32768
    return words


def _bias_model(hmm: pyhmmer.plan7.HMM, background: pyhmmer.plan7.Background) -> BiasModel:
    """State-1 emission odds and transitions of ``p7_bg_SetFilter`` for this model."""
    alphabet = hmm.alphabet
    K, kp = alphabet.K, alphabet.Kp
    odds = np.ones(NCODES, dtype=np.float32)
    compo = hmm.composition
    usable = compo is not None
    if usable:
        f = np.asarray(background.residue_frequencies, dtype=np.float32)[:K]
        e = np.asarray(compo, dtype=np.float32)[:K]
        odds[:K] = (e / f).astype(np.float32)
        for code in range(K + 1, kp - 2):  # degenerate codes, X (any) included
            odds[code] = _degenerate_odds(
                e, f, _degenerate_members(alphabet.symbols[code], alphabet)
            )
    l1 = np.float32(np.float32(hmm.M) / np.float32(8.0))
    return BiasModel(
        odds=odds,
        t10=np.float32(np.float32(1.0) / (l1 + np.float32(1.0))),
        t11=np.float32(l1 / (l1 + np.float32(1.0))),
        usable=usable,
    )


_DEGENERATE = {
    "amino": {"B": "ND", "J": "IL", "Z": "EQ", "O": "K", "U": "C"},
    "nucleic": {
        "R": "AG", "Y": "CT", "M": "AC", "K": "GT", "S": "CG", "W": "AT",
        "H": "ACT", "B": "CGT", "V": "ACG", "D": "AGT",
    },
}  # fmt: skip


def _degenerate_members(symbol: str, alphabet: pyhmmer.easel.Alphabet) -> list[int]:
    """Canonical codes a degenerate symbol stands for, ascending (X and N: all of them)."""
    canon = alphabet.symbols[: alphabet.K].replace("U", "T")
    table = _DEGENERATE["amino" if alphabet.is_amino() else "nucleic"]
    if symbol not in table:
        return list(range(alphabet.K))
    return sorted(canon.index(c) for c in table[symbol])


def _degenerate_odds(compo: np.ndarray, f: np.ndarray, members: list[int]) -> np.float32:
    """``esl_hmm_Configure``'s odds of a degenerate code: the members' summed composition over
    their summed background frequencies (not the mean of their odds), both summed in float32
    in code order as easel does, so that targets rich in B, J, Z or X are scored as by HMMER."""
    emitted = np.float32(0.0)
    background = np.float32(0.0)
    for code in members:
        emitted = np.float32(emitted + compo[code])
        background = np.float32(background + f[code])
    return np.float32(emitted / background)
