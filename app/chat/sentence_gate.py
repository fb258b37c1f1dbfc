"""Hold a streamed answer back by sentence, and show only the sentences that pass the checks.

The guard before it stops leaks and planted links; this gate judges claims, which need a whole
sentence. The prompt's layout ends the answer wherever it appears; a sentence that repeats an
earlier one is dropped; each kept sentence gets its citation marker if it lacks one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from app.chat.citations import MARKER, SENTENCE_BOUNDARY, attribute, strip_invalid_markers
from app.chat.claims import Dropped
from app.chat.scaffolding import scaffolding_start, without_answer_label
from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import content_words

QUOTE_BLOCK = "quote_block"
REPEATED = "repeated"
BARE_YES_NO = "bare_yes_no"
FRAGMENT = "fragment"
ECHO = "echoed_question"
LAYOUT = "prompt_layout"  # the rest of the answer, from where the prompt's layout began
STOPPED_EARLY = "stopped_after_dropped"  # the rest was not generated: too many dropped in a row
MAX_RECORDED = 200
_BARE_YES_NO = re.compile(r"\W*(?:yes|no|yep|nope|sure)\W*(?:\[\d{1,2}\])?\W*", re.IGNORECASE)

Check = Callable[[str], "str | None"]


class SentenceGate:
    """``feed`` the text the guard released, show what it returns, then ``finish``."""

    def __init__(
        self,
        check: Check,
        passages: Sequence[ScoredPassage],
        *,
        known: Sequence[str] = (),
        question: str = "",
        stop_after_dropped: int = 0,
    ) -> None:
        """``known``: lines the shopper has already been shown (a sentence repeating one is
        dropped); ``stop_after_dropped``: after this many sentences dropped in a row, the answer
        ends (``stopped``: the engine need not generate what would be dropped too); 0: never."""
        self._check = check
        self._question = frozenset(content_words(question))
        self._passages = passages
        self._pending = ""
        self._seen: set[str] = {" ".join(content_words(MARKER.sub(" ", k))) for k in known}
        self.kept: list[str] = []
        self.dropped: list[Dropped] = []
        self._stop_after_dropped = stop_after_dropped
        self._dropped_in_row = 0
        self.stopped = False  # nothing after this is the answer: the layout began, or see above

    @property
    def text(self) -> str:
        return "".join(self.kept).strip()

    def feed(self, text: str) -> str:
        if self.stopped:
            return ""
        self._pending += text
        start = scaffolding_start(self._pending)
        if start is not None:
            cut = self._pending[start:].strip()
            self.dropped.append(
                Dropped(cut[:MAX_RECORDED] + ("…" if len(cut) > MAX_RECORDED else ""), LAYOUT)
            )
            self._pending = self._pending[:start]
            self.stopped = True
            return self.finish()
        shown = []
        while (match := SENTENCE_BOUNDARY.search(self._pending)) is not None:
            sentence, self._pending = self._pending[: match.end()], self._pending[match.end() :]
            dropped = len(self.dropped)
            shown.append(self._judge(sentence))
            self._dropped_in_row = self._dropped_in_row + 1 if len(self.dropped) > dropped else 0
            if self._stop_after_dropped and self._dropped_in_row >= self._stop_after_dropped:
                self.dropped.append(
                    Dropped("(the rest of the answer was not generated)", STOPPED_EARLY)
                )
                self._pending = ""
                self.stopped = True
                break
        return "".join(shown)

    def finish(self) -> str:
        rest, self._pending = self._pending, ""
        return self._judge(rest) if rest.strip() else ""

    def _judge(self, sentence: str) -> str:
        if not self.kept and not self.dropped:
            sentence = without_answer_label(sentence)
        sentence = _unbalanced_quotes_removed(sentence)
        body = sentence.strip()
        if not body:
            return sentence if self.kept else ""
        if body.startswith(">"):
            self.dropped.append(Dropped(body, QUOTE_BLOCK))
            return ""
        words = re.findall(r"\w+", MARKER.sub(" ", body).lower())
        key = " ".join(content_words(MARKER.sub(" ", body)))
        looping = len(words) >= 4 and len(set(words)) < len(words) / 2  # "no, no, no, no"
        if looping or (len(key.split()) >= 3 and self._repeats(key)):
            self.dropped.append(Dropped(body, REPEATED))
            return ""
        if _BARE_YES_NO.fullmatch(body):
            self.dropped.append(Dropped(body, BARE_YES_NO))  # a yes or no with nothing to check
            return ""
        if len(key.split()) < 2 or body.startswith("|"):
            self.dropped.append(Dropped(body, FRAGMENT))  # "I'm not.", "Eleanor", a table row
            return ""
        if body.rstrip(" [0-9]").endswith("?") and _echoes(key, self._question):
            self.dropped.append(Dropped(body, ECHO))  # the shopper's question said back
            return ""
        reason = self._check(body)
        if reason is not None:
            self.dropped.append(Dropped(body, reason))
            return ""
        self._seen.add(key)
        marked = attribute(strip_invalid_markers(sentence, len(self._passages)), self._passages)
        self.kept.append(marked)
        return marked

    def _repeats(self, key: str) -> bool:
        """A sentence said before, or the start of one (a repeat cut off by the token limit:
        "If you have a refund, you can change your payment method immediately (go")."""
        return key in self._seen or any(seen.startswith(f"{key} ") for seen in self._seen)


def _unbalanced_quotes_removed(sentence: str) -> str:
    """``sentence`` without its quotation marks when they open or close a quotation it does not
    hold whole: a quotation spanning sentences is checked by none of them as one, and the
    model's words must not read as the shop's ('"You can cancel within 14 days [2].' … 'it."')."""
    if sentence.count('"') % 2:
        sentence = sentence.replace('"', "")
    if sentence.count("“") != sentence.count("”"):
        sentence = sentence.replace("“", "").replace("”", "")
    return sentence


def _echoes(key: str, question: frozenset[str]) -> bool:
    """Most of a question-shaped sentence's words are the shopper's own."""
    words = key.split()
    return bool(words) and sum(w in question for w in words) >= 0.6 * len(words)
