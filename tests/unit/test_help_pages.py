"""A question that names only a help page's topic is searched with that page's introduction."""

from __future__ import annotations

from app.chat.answerability import judge
from app.chat.compose import composed_pieces
from app.chat.evidence import asked_stems, kind_readings, select_evidence, units
from app.chat.help_pages import HelpPages
from app.chat.vocabulary import Vocabulary
from app.index.passage import Passage
from app.retrieval.published_index import ScoredPassage
from tests.unit.passages import hit


def _page(title: str, section: str, number: int) -> object:
    passage = hit(title, f"{title} {section} text", kind="policy", doc=f"d-{title}",
                  section=section).passage  # fmt: skip
    return passage.__class__(**{**passage.to_json(), "id": f"{title}::{number}"})


def test_the_one_page_a_question_names_gives_its_introduction() -> None:
    pages = HelpPages(
        [
            _page("Warranty and Repairs", "Warranty and Repairs", 0),
            _page("Warranty and Repairs", "Warranty and Repairs", 1),  # the intro's second part
            _page("Warranty and Repairs", "Warranty and Repairs › Claims", 2),
            _page("Delivery Information", "Delivery Information", 0),
            # an HTML page's title carries the shop's name; its opening section has none
            _page("Privacy Notice | Fernhill Outfitters", "Privacy Notice", 0),
        ]
    )
    assert pages.introducing(asked_stems("What is your warranty?")) == ["Warranty and Repairs::0"]
    assert pages.introducing(asked_stems("whats ur delivery policy")) == ["Delivery Information::0"]
    assert pages.introducing(asked_stems("privacy?")) == ["Privacy Notice | Fernhill Outfitters::0"]
    # asked what the policy says in which cases, as a request
    asked = asked_stems("I need help seeing in what cases I can ask for delivery")
    assert pages.introducing(asked) == ["Delivery Information::0"]
    asked = asked_stems("in which cases can I request delivery?")
    assert pages.introducing(asked) == ["Delivery Information::0"]
    # a question that asks something of the page, or of no page, gets nothing first
    assert pages.introducing(asked_stems("How long does delivery take?")) == []
    assert pages.introducing(asked_stems("Can I call you?")) == []


def _section(title: str, section: str, text: str, number: int) -> Passage:
    passage = hit(title, text, kind="policy", doc=f"d-{title}", section=section).passage
    return Passage(**{**passage.to_json(), "id": f"{title}::{number}"})


ZONE = "| Service | Delivery time | Cost |\n| --- | --- | --- |\n"
DELIVERY = [
    _section("Delivery Information", "Delivery Information", "We dispatch from Leeds.", 0),
    _section(
        "Delivery Information",
        "Delivery Information › Zone 1: UK mainland",
        f"England and Wales.\n{ZONE}| Standard | 2–3 working days | £4.95 |\n"
        "| Next day | 1 day | £7.95 |",
        1,
    ),
    _section(
        "Delivery Information",
        "Delivery Information › Zone 3: Northern Ireland",
        f"All BT postcodes.\n{ZONE}| Standard | 3–5 working days | £6.95 |",
        2,
    ),
    _section(
        "Warranty and Repairs",
        "Warranty and Repairs › Warranty periods",
        "| Category | Warranty period |\n| --- | --- |\n"
        + "\n".join(f"| Kind {n} | {n} years |" for n in range(9)),  # too long to read whole
        0,
    ),
    _section(
        "Contact Us",
        "Contact Us › Email and contact form",
        "Email help@shop.example or use the contact form.",
        0,
    ),
    _section("Contact Us", "Contact Us › Phone", "Call 0113 496 0123.", 1),
]


def test_a_tables_time_or_cost_column_asked_of_its_page_gives_its_first_table() -> None:
    pages = HelpPages(DELIVERY)
    assert pages.table_asked("How much is delivery?") == "Delivery Information::1"
    assert pages.table_asked("How long does delivery take?") == "Delivery Information::1"
    assert pages.table_asked("what are your delivery times") == "Delivery Information::1"
    # the table's section names what else is asked
    assert pages.table_asked("How much is delivery to Northern Ireland?") == (
        "Delivery Information::2"
    )
    assert pages.table_asked("How much is it?") is None  # of nothing the pages name
    assert pages.table_asked("How much is next day delivery?") is None  # a row: the ranking's
    assert pages.table_asked("Do you deliver to Leeds?") is None  # no column asked
    assert pages.table_asked("How long is the warranty?") is None  # 9 rows: no answer to read


def test_a_tables_column_and_row_both_asked_give_that_table() -> None:
    hours = _section(
        "Contact Us",
        "Contact Us › Opening hours",
        "| Channel | Monday to Friday | Saturday |\n| --- | --- | --- |\n"
        "| Phone: 0113 496 0123 | 08:00–18:00 | 09:00–17:00 |\n"
        "| Live chat | 08:00–20:00 | Closed |",
        2,
    )
    pages = HelpPages([*DELIVERY, hours])
    asked = asked_stems("what time does live chat close on a saturday")
    assert pages.cell_asked(asked) == "Contact Us::2"
    assert pages.cell_asked(asked_stems("is the phone open on saturday?")) == "Contact Us::2"
    # a column without a row, or a row without a column, names no cell
    assert pages.cell_asked(asked_stems("can I get saturday delivery?")) is None
    assert pages.cell_asked(asked_stems("do you have live chat?")) is None


def test_a_tables_row_of_the_products_kind_under_the_asked_column_is_found() -> None:
    """ "what's the warranty on the cairngorm 800?": the Warranty period table's row of the
    kind it is of; a kind no row holds, or a column not asked, finds none."""
    periods = _section(
        "Warranty and Repairs",
        "Warranty and Repairs › Warranty periods",
        "| Product category | Warranty period |\n| --- | --- |\n"
        "| Waterproof jackets and trousers | 2 years |\n"
        "| Insulated jackets, fleeces and base layers | 2 years |\n"
        "| Stoves | 3 years |",
        1,
    )
    pages = HelpPages([*DELIVERY, periods])
    insulated = kind_readings("Cairngorm 800 Down Jacket", "Insulated jackets")
    assert pages.row_of_kind(asked_stems("warranty"), insulated) == "Warranty and Repairs::1"
    assert pages.row_of_kind(asked_stems("warranty"), [asked_stems("tent")]) is None
    assert pages.row_of_kind(asked_stems("colour"), insulated) is None
    # a category no row names whole ("Stoves & cookware"): the title's kind
    stove = kind_readings("Emberlite Canister Stove", "Stoves & cookware")
    assert stove[-1] == asked_stems("stove")
    assert pages.row_of_kind(asked_stems("warranty"), stove) == "Warranty and Repairs::1"


def test_a_row_labelled_with_a_models_name_is_no_kinds_row() -> None:
    """Seen in the twenty-ninth session's lab: "what kind of crampons can I fit to the Ben
    Nevis boot?" drew the size guide's "Ben Nevis Leather Mountain Boot" row, for its "Fit
    advice" column, once a title's kind alone ("boot") could pick a row."""
    fits = _section(
        "Size Guide",
        "Size Guide › Boots",
        "| Model | Sizes | Fit advice |\n| --- | --- | --- |\n"
        "| Ben Nevis Leather Mountain Boot | UK 6–13 | True to size, wide (G) fitting |",
        1,
    )
    pages = HelpPages([*DELIVERY, fits])
    boot = kind_readings("Ben Nevis Leather Mountain Boot", "Hiking boots")
    fit = asked_stems("what kind of crampons can I fit")
    assert pages.row_of_kind(fit, boot) is None


def test_asking_when_what_was_ordered_arrives_asks_how_long_delivery_takes() -> None:
    pages = HelpPages(DELIVERY)
    for asked in (
        "I need to check how long it takes for the item to arrive",
        "how soon can I expect my order?",
        "wanna check when my parcel is gonna arrive",
    ):
        assert pages.table_asked(asked) == "Delivery Information::1", asked
    assert pages.table_asked("When can I expect my refund?") is None  # a refund is no delivery
    assert pages.table_asked("When will my tent arrive?") is None  # a product: the ranking's
    assert pages.table_asked("how quickly does it arrive?") is None  # the conversation's subject
    assert pages.table_asked("when can I expect the refund for my order?") is None


def test_a_question_naming_only_a_sections_heading_gives_that_section() -> None:
    pages = HelpPages(DELIVERY)
    assert pages.section_named("whats your email") == "Contact Us::0"
    assert pages.section_named("phone?") == "Contact Us::1"
    assert pages.section_named("what is your email address?") == "Contact Us::0"
    assert pages.section_named("what's your phone number?") == "Contact Us::1"
    assert pages.section_named("what is your email and phone number?") is None  # two sections
    assert pages.section_named("contact") is None  # the page's title, two sections
    kept = _section("Privacy", "Privacy › How long we keep your information", "6 years.", 0)
    asked = "How long do I have?"  # after a returns question: not this section
    assert HelpPages([*DELIVERY, kept]).section_named(asked) is None
    promise = _section("Returns", "Returns › Our 30-day refund promise", "30 days.", 0)
    assert HelpPages([promise]).section_named("do you have a refund promise?") == "Returns::0"
    assert HelpPages([promise]).section_named("do you have a price promise?") is None


def test_the_asked_table_is_the_answer_whole_under_its_sections_heading() -> None:
    passages = [ScoredPassage(DELIVERY[0], 0.6), ScoredPassage(DELIVERY[1], 0.3)]
    question = "How much is delivery?"
    similarity = [0.0] * len(units(passages))
    similarity[0] = 0.5  # the introduction's line is closer by its own vector
    selection = select_evidence(question, (), passages, similarity, answering=DELIVERY[1].id)
    assert [line.text for line in selection.lines] == [
        "| Service | Delivery time | Cost |",
        "| Standard | 2–3 working days | £4.95 |",
        "| Next day | 1 day | £7.95 |",
    ]
    assert selection.answers_as_given and not selection.more
    head, table = composed_pieces(selection.lines, passages)
    assert head == "Here is what our Delivery Information page says under **Zone 1: UK mainland**:"
    assert "| --- | --- | --- |" in table
    vocabulary = Vocabulary(DELIVERY)
    assert judge(question, selection, passages, vocabulary).partial is False


CHANGES = [
    _section(
        "Changing an Order",
        "Changing an Order",
        "We start picking orders quickly so that they reach you fast, which leaves a short window."
        " This page explains what you can change, when, and what to do if you've missed it.",
        0,
    ),
    _section(
        "Changing an Order",
        "Changing an Order › The 60-minute window",
        "For 60 minutes after you place an order you can change or cancel it yourself. After that"
        " we start picking it, and the order can't be changed any more.",
        1,
    ),
    _section(
        "Returns",
        "Returns",
        "We want you to be completely happy with your kit. If something isn't right, you can"
        " return it within 30 days. This policy adds to your statutory rights.",
        0,
    ),
]


def test_an_introduction_that_only_says_what_its_page_holds_gives_its_first_section() -> None:
    pages = HelpPages(CHANGES)
    assert pages.introducing(asked_stems("how do I change my order?")) == ["Changing an Order::0"]
    assert pages.first_section("Changing an Order::0") == "Changing an Order::1"
    assert pages.first_section("Returns::0") is None  # its introduction says something itself


def test_what_a_page_says_of_itself_is_never_a_line() -> None:
    texts = [u.text for u in units([ScoredPassage(CHANGES[0], 0.5)])]
    assert texts == [
        "We start picking orders quickly so that they reach you fast, which leaves a short window."
    ]


def test_a_page_asked_as_a_whole_reads_as_it_is_written() -> None:
    # "whats ur returns policy": the introduction's sentences in their own order
    intro = ScoredPassage(CHANGES[2], 0.6)
    selection = select_evidence("whats ur returns policy", (), [intro], [0.2, 0.3, 0.5])
    assert [line.text for line in selection.lines + selection.more] == [
        "We want you to be completely happy with your kit.",
        "If something isn't right, you can return it within 30 days.",
        "This policy adds to your statutory rights.",
    ]
    # the first section of a page whose introduction only says what it holds, as written,
    # and nothing beside it
    section, other = ScoredPassage(CHANGES[1], 0.5), ScoredPassage(CHANGES[2], 0.7)
    selection = select_evidence(
        "whats your order changing policy", (), [section, other], [0.3, 0.4, 0.2, 0.6, 0.6],
        answering=CHANGES[1].id,
    )  # fmt: skip
    assert [line.text for line in selection.lines + selection.more] == [
        "For 60 minutes after you place an order you can change or cancel it yourself.",
        "After that we start picking it, and the order can't be changed any more.",
    ]


def test_the_help_pages_topics_are_their_titles_words() -> None:
    pages = HelpPages(
        [
            _page("Returns and Refunds", "Returns and Refunds", 0),
            _page("Delivery Information", "Delivery Information", 0),
            _page("Delivery Information", "Delivery Information › Zones", 1),
        ]
    )
    assert asked_stems("i want to return my nightjar 300") & pages.topics
    assert asked_stems("can i get a refund?") & pages.topics
    assert not asked_stems("how much does the nightjar 300 weigh?") & pages.topics


def test_a_body_measurement_given_finds_the_size_tables_row_holding_it() -> None:
    """ "I'm a 104 cm chest, what size torridon?": the men's table's L row, 103–108."""
    mens = _section(
        "Size Guide",
        "Size Guide › Men's clothing",
        "| Size | Chest (cm) | Waist (cm) |\n|---|---|---|\n"
        "| M | 97–102 | 82–87 |\n| L | 103–108 | 88–93 |",
        3,
    )
    kids = _section(
        "Size Guide",
        "Size Guide › Kids' clothing",
        "| Size | Height (cm) | Chest (cm) |\n|---|---|---|\n| 9–10 years | 134–140 | 67–71 |",
        4,
    )
    pages = HelpPages([*DELIVERY, mens, kids])
    assert pages.measured("i'm a 104 cm chest, what size torridon should i get?") == [
        "Size Guide::3"
    ]
    assert pages.measured("she is 136 cm tall, what height is that?") == ["Size Guide::4"]
    # no figure, a figure in no row, or a column the question does not name: nothing
    assert pages.measured("what size torridon should i get?") == []
    assert pages.measured("i'm a 150 cm chest") == []
    assert pages.measured("my waist is 104 cm") == []
