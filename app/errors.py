"""Domain errors, translated to exit codes, HTTP statuses or chat messages only at the edges."""

from __future__ import annotations


class ShopdeskError(Exception):
    """Base of every error shopdesk raises on purpose."""


class ConfigurationError(ShopdeskError, ValueError):
    """A setting is missing, inconsistent or insecure; the message names the variable to set."""


class ModelUnavailableError(ShopdeskError):
    """A model folder or package is missing or damaged; the message says how to fix it."""


class MissingDependencyError(ShopdeskError):
    """An optional package is not installed; the message names the extra that brings it."""


class IndexNotPublishedError(ShopdeskError):
    """No index version has been published yet (run the ingestion job)."""


class CorruptIndexVersionError(ShopdeskError):
    """A published index version cannot be read back."""


class NothingToPublishError(ShopdeskError):
    """The ingestion run produced no passages; the published version is left serving."""


class IngestLockedError(ShopdeskError):
    """Another ingestion run is publishing into the same index root."""


def require(module: str, extra: str) -> object:
    """Import an optional heavy module, or fail with a message naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module} is not installed: install shopdesk with the `{extra}` extra "
            f"(pip install -e '.[{extra}]')"
        ) from exc


class InvalidMessageError(ShopdeskError, ValueError):
    """A shopper's message cannot be answered as sent; the text says what to change."""


class EngineUnavailableError(ShopdeskError):
    """No generation engine can take the request now (starting, crashed, or every server down)."""


class ServerBusyError(ShopdeskError):
    """Every answering slot and queue place is taken; the shopper should try again shortly."""

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class RateLimitedError(ShopdeskError):
    """One client sends faster than its share; it may try again after ``retry_after_s``."""

    def __init__(self, message: str, *, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class EngineTimeoutError(EngineUnavailableError):
    """An answer took longer than the per-turn generation limit and was abandoned."""


class TranscriptsUnavailableError(ShopdeskError):
    """The transcript database cannot be reached; what must not be lost waits in the outbox."""


class TranscriptNotFoundError(ShopdeskError):
    """No stored conversation or answer has that id (within the asking session, for shoppers)."""


class SessionStoreUnavailableError(ShopdeskError):
    """The session store (Redis) cannot be reached; turns go on from the recorded transcripts."""
