"""Passage search over the served index, for staff and tools: the passages and their scores."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query
from pydantic import BaseModel, BeforeValidator

from app.api.problems import PROBLEM_RESPONSES
from app.dependencies import PassageSearchDep, limit_requests

router = APIRouter(
    prefix="/api",
    tags=["search"],
    dependencies=[Depends(limit_requests)],
    responses=PROBLEM_RESPONSES,
)


class SearchHit(BaseModel):
    passage_id: str
    title: str
    section: str
    source: str
    citation: str
    score: float
    text: str


class SearchResponse(BaseModel):
    index_version: str
    hits: list[SearchHit]


def _digits(value: object) -> object:
    """A number as digits only: int() would read "1\x85" (a trailing Unicode space) as 1."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("k must be a whole number written in digits")
    return value


@router.get("/search", response_model=SearchResponse)
async def search(
    passages: PassageSearchDep,
    q: Annotated[str, Query(min_length=1, max_length=2000)],
    k: Annotated[int, BeforeValidator(_digits), Query(ge=1, le=50)] = 5,
) -> SearchResponse:
    """The ``k`` passages nearest to ``q``, best first, whatever their score."""
    if not q.strip():
        raise HTTPException(status_code=422, detail="the query is empty")
    found = await passages.find(q, top_k=k)
    return SearchResponse(
        index_version=found.index_version,
        hits=[
            SearchHit(
                passage_id=h.passage.id,
                title=h.passage.title,
                section=h.passage.section,
                source=h.passage.source,
                citation=h.passage.citation_target,
                score=round(h.score, 4),
                text=h.passage.text,
            )
            for h in found.passages
        ],
    )
