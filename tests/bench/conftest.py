"""The benchmarks' tests share the integration tier's fixtures: the event-loop portal and the
published index of the bundled knowledge base."""

from tests.integration.conftest import chat_settings, portal  # noqa: F401
