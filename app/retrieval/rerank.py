"""The learned second stage: a LightGBM LambdaMART model reorders the first stage's candidates.

Opt-in (``SHOPDESK_RANKER_MODEL``): the model file is LightGBM's text format, written by
``python -m training.ranker``; its feature names must be ``rank_features.FEATURES``, so a model
fitted on other features is refused at start rather than scoring nonsense.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.errors import ConfigurationError, MissingDependencyError
from app.retrieval.rank_features import FEATURES, Candidate, feature_rows

logger = logging.getLogger(__name__)


class LearnedRanker:
    """Scores each candidate's features with a LightGBM booster; higher is better."""

    def __init__(self, booster: Any, source: str = "") -> None:
        names = tuple(booster.feature_name())
        if names != FEATURES:
            raise ConfigurationError(
                f"ranker model {source or '(given)'} was trained on features {names}, "
                f"not this version's {FEATURES}: retrain it with `python -m training.ranker`"
            )
        self._booster = booster

    @classmethod
    def load(cls, path: Path) -> LearnedRanker:
        """The model in ``path``; a missing file or package is a ConfigurationError or
        MissingDependencyError naming what to do."""
        try:
            import lightgbm
        except ImportError as exc:  # pragma: no cover - lightgbm is a main dependency
            raise MissingDependencyError(
                "SHOPDESK_RANKER_MODEL needs the lightgbm package: pip install 'lightgbm>=4'"
            ) from exc
        if not path.is_file():
            raise ConfigurationError(f"SHOPDESK_RANKER_MODEL: no model file at {path}")
        ranker = cls(lightgbm.Booster(model_file=str(path)), str(path))
        logger.info("second-stage ranker loaded from %s", path)
        return ranker

    def scores(self, features: np.ndarray) -> np.ndarray:
        if len(features) == 0:
            return np.zeros(0, dtype=np.float64)
        return np.asarray(self._booster.predict(features, num_threads=1), dtype=np.float64)

    def reorder(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        """The candidates best first by the model; ties keep the first stage's order."""
        scores = self.scores(feature_rows(question, candidates))
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
        return [candidates[i] for i in order]


def load_ranker(path: str | Path) -> LearnedRanker | None:
    """The configured ranker, or None when ``path`` is empty (the ranker is off)."""
    return LearnedRanker.load(Path(path)) if str(path) else None
