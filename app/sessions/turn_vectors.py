"""Embeddings of recent turns, kept resident on the embedder's device and spilled to the store.

History-aware retrieval blends the new question with the questions before it. Those earlier
questions were embedded when they were asked; this cache keeps their vectors (torch tensors on
the embedder's device, least recently used evicted beyond ``capacity``) and writes each one
through to the session store, so an evicted vector, another replica or a restarted app reads it
back instead of re-encoding the turn.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.sessions.base import SessionStore


@dataclass
class TurnVectorStats:
    resident_hits: int = 0
    spilled_reads: int = 0
    missing: int = 0


class TurnVectorCache:
    def __init__(self, store: SessionStore, *, capacity: int, device: str = "cpu") -> None:
        import torch

        self._torch: Any = torch
        self._store = store
        self._capacity = capacity
        self._device = device
        self._resident: OrderedDict[tuple[str, int], Any] = OrderedDict()
        self.stats = TurnVectorStats()

    def __len__(self) -> int:
        return len(self._resident)

    async def put(self, session_id: str, index: int, vector: np.ndarray) -> None:
        self._remember((session_id, index), vector)
        await self._store.save_vector(session_id, index, vector)

    async def get(self, session_id: str, indices: list[int]) -> list[Any]:
        """Tensors for the requested turns that exist, in the order asked."""
        found: dict[int, Any] = {}
        wanted: list[int] = []
        for index in indices:
            tensor = self._resident.get((session_id, index))
            if tensor is None:
                wanted.append(index)
            else:
                self._resident.move_to_end((session_id, index))
                found[index] = tensor
        self.stats.resident_hits += len(found)
        if wanted:
            spilled = await self._store.load_vectors(session_id, wanted)
            self.stats.spilled_reads += len(spilled)
            self.stats.missing += len(wanted) - len(spilled)
            for index, vector in spilled.items():
                found[index] = self._remember((session_id, index), vector)
        return [found[i] for i in indices if i in found]

    def blend(
        self, current: np.ndarray, history: list[Any], weights: tuple[float, ...]
    ) -> np.ndarray:
        """Normalised ``current + Σ wᵢ·historyᵢ`` (most recent first), computed on the device."""
        torch = self._torch
        total = torch.from_numpy(np.asarray(current, dtype=np.float32)).to(self._device)
        for weight, vector in zip(weights, reversed(history), strict=False):
            total = total + weight * vector
        total = total / torch.linalg.vector_norm(total).clamp_min(1e-12)
        return np.asarray(total.detach().cpu().numpy(), dtype=np.float32)

    def _remember(self, key: tuple[str, int], vector: np.ndarray) -> Any:
        tensor = self._torch.from_numpy(np.asarray(vector, dtype=np.float32)).to(self._device)
        self._resident[key] = tensor
        self._resident.move_to_end(key)
        while len(self._resident) > self._capacity:
            self._resident.popitem(last=False)
        return tensor
