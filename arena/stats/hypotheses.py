"""What a sequential test states and concludes, shared by the two-player test (:mod:`.sprt`) and the field
test (:mod:`.field`): the hypotheses and error rates, the verdicts, the logistic Elo scale and an Elo
estimate with its interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from arena.stats.intervals import z_value

#: Normalised Elo per unit of t-value: 800 / ln(10).
NELO_PER_T = 800.0 / math.log(10.0)
MODELS: tuple[str, ...] = ("normalized", "logistic")
#: The largest normalised Elo an SPRT bound may take (far beyond what a comparison of bots needs).
MAX_NELO = 200.0
VERDICTS: tuple[str, ...] = ("H0", "H1", "continue")


@dataclass(frozen=True)
class SprtParameters:
    """An SPRT's hypotheses (Elo ``elo0`` against ``elo1``) and error rates, as fastchess takes them."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"SPRT {name} must be a finite number, not {value!r}")
        if self.elo0 >= self.elo1:
            raise ValueError(f"SPRT elo0 must be less than elo1 (got elo0={self.elo0}, elo1={self.elo1})")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"SPRT alpha must be between 0 and 1, not {self.alpha}")
        if not 0.0 < self.beta < 1.0:
            raise ValueError(f"SPRT beta must be between 0 and 1, not {self.beta}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError(f"SPRT alpha + beta must be less than 1 (got {self.alpha} + {self.beta})")
        if self.model not in MODELS:
            raise ValueError(f"SPRT model must be one of {', '.join(MODELS)}, not {self.model!r}")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > MAX_NELO:
            # beyond about 231 the t-value iteration has no start (its uniform start puts every point below)
            raise ValueError(f"SPRT normalized Elo bounds must lie within +-{MAX_NELO:g}; use model=logistic")

    @property
    def lower(self) -> float:
        """``log(beta / (1 - alpha))``: at or below it the test accepts H0."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """``log((1 - beta) / alpha)``: at or above it the test accepts H1."""
        return math.log((1.0 - self.beta) / self.alpha)


class SprtStatus(NamedTuple):
    """Where a test stands: its LLR, its bounds and the verdict they give."""

    llr: float
    lower: float
    upper: float
    verdict: str


def verdict(llr: float, params: SprtParameters) -> str:
    """``"H1"`` at or above the upper bound, ``"H0"`` at or below the lower one, else ``"continue"``."""
    if llr >= params.upper:
        return "H1"
    if llr <= params.lower:
        return "H0"
    return "continue"


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` logistic Elo points better: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_elo(score: float) -> float:
    """The logistic Elo difference of an expected score (``-inf`` at 0, ``inf`` at 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


class EloEstimate(NamedTuple):
    """An Elo difference with its interval, logistic and normalised, the mean score and the likelihood of superiority.

    The logistic bounds are ``-inf``/``inf`` when the score's bound reaches 0 or 1.
    """

    elo: float
    low: float
    high: float
    nelo: float
    nelo_low: float
    nelo_high: float
    score: float
    los: float


def estimate(score: float, var: float, units: float, confidence: float, per_game: float) -> EloEstimate:
    z = z_value(confidence)
    half = z * math.sqrt(var / units)
    low, high = score - half, score + half
    sd_game = math.sqrt(per_game * var)
    nelo = (lambda s: (s - 0.5) / sd_game * NELO_PER_T) if sd_game > 0 else (lambda s: math.nan)
    if var > 0:
        los = 0.5 * (1.0 - math.erf(-(score - 0.5) / math.sqrt(2.0 * var / units)))
    else:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return EloEstimate(score_elo(score), score_elo(low), score_elo(high), nelo(score), nelo(low), nelo(high), score, los)


def game_score(rank: float, rival_rank: float) -> float:
    """A's score in one game: 1 if A's rank is better (lower), 0.5 if equal, 0 if worse."""
    return 1.0 if rank < rival_rank else 0.5 if rank == rival_rank else 0.0
