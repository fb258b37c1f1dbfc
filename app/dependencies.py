"""What the HTTP routes (the JSON API and the staff pages alike) need from the running service, as
typed FastAPI dependencies: the only code that reads the container the lifespan put on the app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.applications import Starlette

from app.chat.conversations import ConversationService
from app.container import Container
from app.gaps.service import KnowledgeGaps
from app.observability.metrics import ChatMetrics
from app.retrieval.passage_search import PassageSearch
from app.settings import Settings
from app.traffic.guards import Guards, client_address
from app.transcripts.review import TranscriptReview


def running_container(app: Starlette) -> Container | None:
    """The app's container once its lifespan has started it, else ``None``."""
    container: Container | None = getattr(app.state, "container", None)
    return container


async def container_of(request: Request) -> Container:
    container: Container = request.app.state.container
    return container


ContainerDep = Annotated[Container, Depends(container_of)]


async def settings_of(container: ContainerDep) -> Settings:
    return container.settings


async def conversations_of(container: ContainerDep) -> ConversationService:
    return container.conversations


async def passage_search_of(container: ContainerDep) -> PassageSearch:
    return container.search


async def guards_of(container: ContainerDep) -> Guards:
    return container.guards


async def metrics_of(container: ContainerDep) -> ChatMetrics:
    return container.metrics


async def transcript_review_of(container: ContainerDep) -> TranscriptReview:
    """What the staff pages read and annotate the transcripts through."""
    return container.transcript_review


async def knowledge_gaps_of(container: ContainerDep) -> KnowledgeGaps:
    """The knowledge-gaps reports of the staff pages."""
    return container.gaps


SettingsDep = Annotated[Settings, Depends(settings_of)]
ConversationsDep = Annotated[ConversationService, Depends(conversations_of)]
PassageSearchDep = Annotated[PassageSearch, Depends(passage_search_of)]
GuardsDep = Annotated[Guards, Depends(guards_of)]
MetricsDep = Annotated[ChatMetrics, Depends(metrics_of)]
TranscriptReviewDep = Annotated[TranscriptReview, Depends(transcript_review_of)]
KnowledgeGapsDep = Annotated[KnowledgeGaps, Depends(knowledge_gaps_of)]


async def client_address_of(request: Request, guards: GuardsDep) -> str:
    """The client's address as the limits count it (see ``client_address``)."""
    return client_address(request, guards.proxy_hops)


ClientAddressDep = Annotated[str, Depends(client_address_of)]


async def limit_requests(guards: GuardsDep, client: ClientAddressDep) -> None:
    """Router dependency: ``RateLimitedError`` (429) once a client exceeds its share."""
    guards.within_request_rate(client)
