"""The sentence gate and the layout cut: what a streamed model answer may show."""

from __future__ import annotations

from app.chat.claims import check_sentence
from app.chat.quotes import fabricated_quotes, verbatim
from app.chat.scaffolding import STOP_SEQUENCES, scaffolding_start
from app.chat.sentence_gate import QUOTE_BLOCK, REPEATED, STOPPED_EARLY, SentenceGate
from tests.unit.passages import FOOTPRINT, RETURNS, TENT

PASSAGES = [TENT, FOOTPRINT, RETURNS]


def gate() -> SentenceGate:
    return SentenceGate(
        lambda s: check_sentence(s, passages=PASSAGES, question="", product="Stormhollow 2 Tent"),
        PASSAGES,
    )


def stream(g: SentenceGate, pieces: list[str]) -> list[str]:
    shown = [g.feed(p) for p in pieces]
    shown.append(g.finish())
    return shown


def test_a_sentence_is_shown_only_once_complete_and_checked() -> None:
    g = gate()
    shown = stream(g, ["The Stormhollow 2 Tent we", "ighs 1,550 g. It costs £9", "99. Thanks"])
    assert shown[0] == ""  # nothing before the first sentence is complete
    assert "1,550 g [1]" in shown[1]  # checked, then given its citation
    assert "£999" not in "".join(shown)
    assert [d.reason for d in g.dropped] == ["unsupported_figure", "fragment"]  # "Thanks"
    assert g.text.startswith("The Stormhollow 2 Tent weighs 1,550 g [1].")


def test_the_layout_ends_the_answer_in_any_case_or_spacing() -> None:
    g = gate()
    shown = stream(g, ["The Stormhollow 2 Tent weighs 1,550 g.\ncustomer  QUESTION: and", " more"])
    assert g.stopped
    assert "QUESTION" not in "".join(shown) and "more" not in "".join(shown)
    assert scaffolding_start("Fine.\n>>> Shop information: x") == len("Fine.\n")
    assert scaffolding_start("All good here.") is None
    assert "\nCustomer question:" in STOP_SEQUENCES and ">>>" in STOP_SEQUENCES


def test_model_written_quote_blocks_and_repeats_are_dropped() -> None:
    g = gate()
    text = "".join(
        stream(
            g,
            [
                "The tent weighs 1,550 g.\n> “We ship to Ireland for free.” [1]\n",
                "The tent weighs 1,550 g.\n",
            ],
        )
    )
    assert "Ireland" not in text
    assert [d.reason for d in g.dropped] == [QUOTE_BLOCK, REPEATED]


def test_quotations_are_checked_word_for_word() -> None:
    assert verbatim("we can't accept tents that have been pitched outdoors", PASSAGES)
    assert verbatim("“We  can’t accept tents that have been pitched outdoors.” [3]", PASSAGES)
    assert not verbatim("we can't accept tents from Ireland", PASSAGES)
    assert fabricated_quotes("> “We can't accept gas canisters from Ireland.” [1]", PASSAGES)


def test_a_quotation_spanning_sentences_loses_its_marks() -> None:
    """Each sentence alone holds half a quotation, which no check reads as one: the model's
    words are shown as its own, not as the shop's (seen in the verified run of 2026-12-04)."""
    g = SentenceGate(lambda s: None, PASSAGES)
    shown = "".join(
        stream(g, ['"You have 30 days to return unused items [3]. ', 'Tents must be unused." [3]'])
    )
    assert '"' not in shown and "You have 30 days" in shown
    assert not fabricated_quotes(shown, PASSAGES)
    g = SentenceGate(lambda s: None, PASSAGES)  # a whole one is left to the quotation check
    assert '"' in "".join(stream(g, ['They say "we can accept tents" here. ']))


def test_faq_labels_and_an_echoed_question_are_not_the_answer() -> None:
    g = SentenceGate(lambda s: None, PASSAGES, question="How long does the refund take?")
    text = "".join(stream(g, ["Refunds take 5 days.\nHow long does the refund take?\n",
                              "Question: How long?\nAnswer: 5 days."]))  # fmt: skip
    assert text.strip() == "Refunds take 5 days."
    assert g.stopped and [d.reason for d in g.dropped] == ["echoed_question", "prompt_layout"]


def test_a_repeat_cut_off_by_the_token_limit_is_dropped() -> None:
    g = SentenceGate(lambda s: None, PASSAGES)
    shown = stream(g, ["You can return unused items within 30 days [3]. ",
                       "You can return unused items within"])  # fmt: skip
    assert "".join(shown).count("You can return") == 1
    assert [d.reason for d in g.dropped] == [REPEATED]


def test_the_answer_ends_after_the_set_number_of_sentences_dropped_in_a_row() -> None:
    reject_b = SentenceGate(
        lambda s: "unsupported" if "blue" in s else None, [], stop_after_dropped=2
    )
    shown = reject_b.feed("The tent is green. It is blue inside. The fly is blue. ")
    assert "green" in shown
    assert reject_b.stopped
    assert [d.reason for d in reject_b.dropped] == ["unsupported", "unsupported", STOPPED_EARLY]
    assert reject_b.feed("The pegs are green too. ") == ""
    assert reject_b.finish() == ""


def test_a_kept_sentence_resets_the_count_and_zero_never_stops() -> None:
    check = lambda s: "unsupported" if "blue" in s else None  # noqa: E731
    gate = SentenceGate(check, [], stop_after_dropped=2)
    gate.feed("It is blue inside. The tent is green. The fly is blue. The poles are green. ")
    assert not gate.stopped
    assert len(gate.kept) == 2
    never = SentenceGate(check, [], stop_after_dropped=0)
    never.feed("It is blue. The fly is blue. The sky is blue. The tent is green. ")
    assert not never.stopped
    assert "green" in never.text
