"""Shoppers' words for what the shop's pages name otherwise, read as the pages' words.

"Free shipping?" asks about free delivery, "in which cases can I be reimbursed?" about refunds,
"I want to file a reclamation" about a complaint, "cancel purchase 00123842" about an order,
"update my address" or "edit" it about changing it, "how do I contact customer support?" about
contacting the shop ("Contact us"), "cancel my account" about deleting it, "order status" about
its tracking, "where is my order?" about how to track it ("my order number is …, where is it?"
too), "Christmas Eve" about 24 December, "made in the UK?" and "where is it made?" about its
manufacture (not the materials it is made of), "I'm not in" or "nobody's home" for a delivery
about the carrier being unable to deliver, "carry-on" about cabin luggage, "for my husband"
or "for my mum" about the men's or the women's cut, "pay monthly" or "buy now pay later"
about splitting the payment, "your postal address" or "your address"
about the address the shop gives for post, "get hold of you" about contacting it, "pick it up"
about collecting it ("can my husband pick it up?": someone else collecting), "take the money"
about taking payment, "how high" about a height; and "I want to check …", "help me see …" open
a request, asking nothing of the pages themselves.
These are the words of retail customer service in general (not of one shop), so each is read
as the pages' word only when the pages do not use it themselves, as an abbreviation is
(`app.chat.abbreviations`): a shop whose pages speak of shipping keeps "shipping".

An order, invoice or account number (a run of seven or more digits the pages never hold, or of
five after "order", "#" or the like: "the PowerCell 20000" is a model's name) is no
word of the question at all: to the embedder it reads like any figure of the pages ("need to
update purchase 00004587345" found the shop's VAT number), and no line of the pages can hold it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

# (what shoppers write, the pages' word for it); case-insensitive, whole words
_SAME: tuple[tuple[str, str], ...] = (
    (r"shipping|shipment", "delivery"),
    (r"shipments", "deliveries"),
    (r"reimbursements?|compensation|rebates?", "refund"),
    (r"reimbursed", "refunded"),
    (r"reimburse", "refund"),
    (r"(?:my\s+|the\s+)?money\s+back", "a refund"),
    (r"reclamations?", "complaint"),
    (r"claim\s+against", "complaint against"),
    (r"customer\s+(?:support|assistance|care)", "customer service"),
    (r"modify|amend|alter", "change"),
    (r"modifying|amending|altering", "changing"),
    (r"gift\s+(?:voucher|certificate|token)", "gift card"),
    (r"gift\s+(?:vouchers|certificates|tokens)", "gift cards"),
    (r"rucksack|daypack", "backpack"),
    (r"rucksacks|daypacks", "backpacks"),
    (r"head\s*-?torch", "headlamp"),
    (r"head\s*-?torches", "headlamps"),
    (r"returns?\s+(?:window|period|time\s*-?frame)", "time limit for returns"),
    (r"package", "parcel"),
    (r"packages", "parcels"),
    # what a thing comes in, opened: "I've opened the packet": removed from its packaging
    (r"packets?|wrappers?", "packaging"),
    # fabric gone bobbly has pilled: the word of care and warranty pages
    (r"bobbl(?:y|ed|ing)|bobbles?", "pilling"),
    # soles replaced are a resole: "my boots need new soles"
    (r"(?:new|replacement)\s+soles", "resoling"),
    (r"payment\s+(?:options|modalities|types)", "payment methods"),
    # reaching the shop: "what's the fastest way to get hold of you?"
    (r"get\s+hold\s+of\s+(?:you|u|ya|someone|somebody|anyone)", "contact you"),
    # a person the shopper names for an errand is someone else: "can my flatmate collect it?"
    (
        r"my\s+(?:husband|wife|partner|flatmate|housemate|roommate|friend|mum|mom|dad|son|"
        r"daughter|brother|sister|colleague|neighbou?r|boyfriend|girlfriend)"
        r"(?=\s+(?:\w+\s+){0,2}?(?:collect|pick|sign|receive)\b)",
        "someone else",
    ),
    # whom a thing is for says its cut: "a jacket for my husband" is the men's, "for my mum"
    # the women's (a son or a daughter may be a child or grown: no cut; "for my brother's 40th"
    # is an occasion)
    (
        r"for\s+(?:my|her|our)\s+(?:husband|boyfriend|dad|father|brother|grandad|grandpa|"
        r"grandfather|fianc[eé])(?!['’]s)",
        "for men",
    ),
    (
        r"for\s+(?:my|his|our)\s+(?:wife|girlfriend|mum|mom|mother|sister|gran|granny|grandma|"
        r"grandmother|fianc[eé]e)(?!['’]s)",
        "for women",
    ),
    # an order fetched in person is collected: "can my husband pick it up for me?"
    (r"pick\s+it\s+up", "collect it"),
    (r"pick\s+them\s+up", "collect them"),
    (r"pick\s+up", "collect"),
    # paying is the money taken: "when would you take the money for it?"
    (r"take\s+(?:the\s+|my\s+)?money", "take payment"),
    # a height asked: "how high is it inside?" (a tent's Peak height)
    (r"how\s+high", "how tall"),
    (r"eta", "delivery time"),
    # the shop's own address is the one its pages give for post
    (r"postal|mailing", "post"),
    (r"(?:your|ur)\s+address", "your post address"),
    # paying over time, however a shopper puts it (its provider's name is the page's own)
    (
        r"pay(?:ing)?\s+(?:in|by)\s+(?:monthly\s+)?instal?lments|pay(?:ing)?\s+monthly|"
        r"buy\s+now,?\s+pay\s+later|bnpl",
        "split the payment into instalments",
    ),
    # the airline's word for what goes in the cabin: "is it carry on size?" asks no carrying
    (
        r"carry-on|carry\s+on(?=\s+(?:size|sized|luggage|baggage|bags?|cases?|allowance)\b)",
        "cabin luggage",
    ),
    # nobody at home for a delivery: what the pages say happens when the carrier can't deliver
    (
        r"(?:i'?m|i\s+am|we'?re|we\s+are)\s+not\s+(?:in|home|at\s+home|there|around)|"
        r"(?:i|we)\s+won'?t\s+be\s+(?:in|home|at\s+home|there|around)|"
        r"(?:nobody|no\s*-?\s*one)(?:'?s|\s+is)?\s+(?:in|home|at\s+home|there|around)|"
        r"(?:(?:i|we)\s+)?miss(?:ed)?\s+(?:the|my|a)\s+(?:delivery|courier|driver)",
        "the carrier can't deliver",
    ),
    # flying with it: what the pages say of air travel
    (r"(?:aero|air)?planes?|flights?|flying", "air travel"),
    # a jacket's vents under the arms are its pit zips
    (r"(?:underarm|under-arm|armpit|arm\s+pit)\s+(?:vents?|zips?|zippers?)", "pit zips"),
    (r"bitcoins?|btc|ethereum|litecoin|dogecoin|crypto(?:s|currencies)?", "cryptocurrency"),
    # a currency the pages do not name is one other than theirs ("can I pay in euros?")
    (
        r"euros?|(?:us\s+|american\s+|australian\s+|canadian\s+)?dollars|usd|eur|aud|cad|"
        r"yen|swiss\s+francs|kron(?:er|or|a)",
        "another currency",
    ),
    # the days of the year shoppers name, by the dates pages give them
    (r"christmas\s+eve", "24 December"),
    (r"christmas\s+day", "25 December"),
    (r"boxing\s+day", "26 December"),
    (r"new\s+year'?s\s+eve", "31 December"),
    (r"new\s+year'?s\s+day", "1 January"),
)
# A complaint is made, however a shopper puts it, and it is made against the shop: read after
# the words above ("lodge a reclamation" is lodging a complaint).
_COMPLAINT: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(said, re.IGNORECASE), pages)
    for said, pages in (
        (r"\b(?:file|lodge|raise|submit|register|put\s+in)\s+(?:a|an|my)\s+complaint\b",
         "make a complaint"),
        (r"\b(?:filing|lodging|raising|submitting|registering)\s+(?:a|an|my)\s+complaint\b",
         "making a complaint"),
        (r"\s+against\s+(?:your|ur|yor|the|this)\s+"
         r"(?:business|company|organi[sz]ation|shop|store|firm)\b", ""),
    )
)  # fmt: skip
_PATTERN = re.compile(
    "|".join(f"(?P<w{n}>\\b(?:{said})\\b)" for n, (said, _) in enumerate(_SAME)), re.IGNORECASE
)
# A request's opening says what the shopper wants to do, not what is asked of the pages: "I want
# to check the available payment options", "help me see in which cases I can ask for a refund".
_OPENING = re.compile(
    r"^\W*(?:(?:can|could|would)\s+(?:you|u|ya)\s+)?(?:please\s+)?"
    r"(?:help\s+me\s+(?:to\s+)?|(?:i|im|i'm|i\s+am)\s+(?:want|need|have\s+got|have|got|"
    r"would\s+like|wanna|gotta|trying|try)\s+(?:to\s+)?|i'd\s+like\s+to\s+)"
    r"(?:check|see|know|find\s+out|look\s+up)\s+(?=\S)",
    re.IGNORECASE,
)
# "update my order / address", "edit my address", "correct the shipping address": the pages'
# "change" (their "update" is of tracking or a payment plan)
_UPDATE = re.compile(
    r"\b(?P<verb>updat(?:e|ing)|edit(?:ing)?|correct(?:ing)?)"
    r"(?P<rest>\s+(?:(?:my|the|this|that|ur|your|an?)\s+)?"
    r"(?:delivery\s+|shipping\s+)?(?P<thing>order|purchase|address|details)\b)",
    re.IGNORECASE,
)
# "how do I contact customer service?", "speaking to customer support": the shop asked of is the
# one whose pages these are, as "Contact us" is, whatever the pages call their team
_SERVICE = re.compile(
    r"\b(?P<verb>contact(?:ing)?|reach(?:ing)?|(?:speak|talk)(?:ing)?\s+(?:to|with)"
    r"|get(?:ting)?\s+(?:in\s+touch\s+with|hold\s+of)|call(?:ing)?|phon(?:e|ing)|ring(?:ing)?"
    r"|e-?mail(?:ing)?|writ(?:e|ing)\s+to)"
    r"\s+(?:(?:your|the|ur|a|an)\s+)?customer\s+(?:service|support|assistance|care|services)"
    r"(?:\s+(?:team|department|desk|agents?|staff|representatives?|people))?\b",
    re.IGNORECASE,
)
# the channel a shopper names is kept ("call", "email"); any other way of reaching is contact
_CHANNELS = frozenset({"call", "phone", "ring", "email", "e-mail"})
# "I expect a reimbursement of 1200 dollars": the sum a shopper expects is their own case, which
# no line of the pages holds ("a refund of the £3.95 label fee?" names the pages' sum, and stays)
_SUM = re.compile(
    r"\b(?P<what>(?:refund|rebate|compensation|reimbursement)s?)\s+of\s+(?:[$£€]\s*)?"
    r"\d[\d,]*(?:\.\d+)?(?:\s*(?:dollars|pounds|euros|usd|gbp|eur|bucks|quid))?\b",
    re.IGNORECASE,
)
# "cancellation of my account", "terminate my free account": deleting it ("cancel" is the
# pages' word for an order)
_ACCOUNT = re.compile(
    r"\b(?:cancel(?:l?ing|l?ation)?|terminat(?:e|ing|ion))\s+(?:of\s+)?"
    r"(?:(?:my|a|the|an|ur|your|this)\s+)?(?:[a-z]+\s+)?account\b",
    re.IGNORECASE,
)
# "what is my order status", "the status of purchase 0012…": its tracking
_STATUS = re.compile(
    r"\b(?P<thing>order|purchase|parcel|delivery)(?P<gap>(?:\s*#?\s*\d{5,})?)\s+status\b"
    r"|\bstatus\s+of\s+(?P<whose>(?:(?:my|the|this|that|ur|your|an?)\s+)?)"
    r"(?P<of>order|purchase|parcel|delivery)\b",
    re.IGNORECASE,
)
# "where is my order?", "where's my parcel": how to track it
_WHERE = re.compile(
    r"\bwhere(?:['’]?s|\s+is|\s+are)\s+(?P<whose>my|our|the)\s+"
    r"(?P<thing>order|parcel|delivery|stuff|items?|things?|package)\b",
    re.IGNORECASE,
)
# "my order number is 12345678, where is it?": the order given, then asked of as "it"
_GIVEN_ORDER = re.compile(
    r"^\W*(?:(?:my|our|the)\s+)?order\s*(?:number|no\.?|num|ref(?:erence)?)?\s*(?:is\s+)?"
    r"#?\s*\d{5,}\s*[,.;:!-]*\s*(?=\S)",
    re.IGNORECASE,
)
# where a thing is made, not what it is made of: "where are the boots made?", "is it made in the
# UK?" (a record's Materials line answers neither)
_MADE_WHERE = re.compile(r"\b(?P<where>where\b[^?.!]*?\s)made\b|\bmade(?=\s+in\b)", re.I)
# "I expect a refund of 299 dollars": when it comes, as the shopper who waits for it asks
_EXPECTED = re.compile(r"\bexpect(?P<ing>ing)?\s+(?=(?:a|my|the|your|ur)\s+refunds?\b)", re.I)
# "purchase" names an order when it is one the shopper placed: "my purchase", "purchase 0012…"
_PURCHASE = re.compile(
    r"\b(?P<whose>my|the|this|that|ur|your)\s+purchase\b|\bpurchase(?=\s*#?\s*\d{5,}\b)",
    re.IGNORECASE,
)
_REFERENCE = re.compile(
    r"(?<![\w.,£$€-])(?P<lead>(?:order|purchase|invoice|reference|ref|number|no)\.?\s+|#\s*)?"
    r"(?P<ref>\d{5,})(?![\w.,-])",
    re.IGNORECASE,
)


def in_shop_words(
    question: str, holds: Callable[[str], bool], holds_figure: Callable[[str], bool]
) -> str:
    """``question`` with each shopper's word the pages do not use (``holds``: whether the pages
    hold a word or a phrase, lower case) in the pages' word, and without the
    shopper's own reference numbers the pages do not hold (``holds_figure``: whether they hold
    a run of digits)."""

    def same(match: re.Match[str]) -> str:
        pages = _SAME[int(str(match.lastgroup)[1:])][1]  # the alternative's group: "w3"
        return _unless_held(holds, pages, match)

    def update(match: re.Match[str]) -> str:
        if holds(f"{match.group('verb')} {match.group('thing')}".lower()):
            return match.group(0)
        verb = "changing" if match.group("verb").lower().endswith("ing") else "change"
        return verb + match.group("rest")

    def service(match: re.Match[str]) -> str:
        said = match.group("verb").lower().split()[0]  # "speaking" of "speaking to"
        verb = said.removesuffix("ing")
        verb = {"phon": "phone", "writ": "write"}.get(verb, verb)
        verb = verb if verb in _CHANNELS else "contact"
        return f"{verb.removesuffix('e')}ing us" if said.endswith("ing") else f"{verb} us"

    given = _GIVEN_ORDER.match(question)
    if given is not None:  # "…, where is it?": where the order is
        question = re.sub(r"\bit\b", "my order", question[given.end() :], count=1)
    read = _OPENING.sub("", question)
    read = _SERVICE.sub(service, read)
    read = _SUM.sub(lambda m: m["what"], read)
    if not holds("cancel account"):
        read = _ACCOUNT.sub("deleting my account", read)
    if not holds("order status"):
        read = _STATUS.sub(
            lambda m: f"{m['thing']}{m['gap']} tracking" if m["thing"] else
            f"tracking of {m['whose']}{m['of']}",
            read,
        )  # fmt: skip
    read = _WHERE.sub(lambda m: f"how do I track {m['whose']} {m['thing']}", read)
    if not holds("made in"):
        read = _MADE_WHERE.sub(lambda m: f"{m['where'] or ''}manufactured", read)
    read = _UPDATE.sub(update, read)
    read = _PATTERN.sub(same, read)
    for pattern, pages in _COMPLAINT:
        read = pattern.sub(functools.partial(_unless_held, holds, pages), read)
    read = _EXPECTED.sub(lambda m: "waiting for " if m["ing"] else "wait for ", read)
    read = _PURCHASE.sub(
        lambda m: f"{m.group('whose')} order" if m.group("whose") else "order",
        read,
    )

    def reference(match: re.Match[str]) -> str:
        lead, number = match.group("lead") or "", match.group("ref")
        if holds_figure(number) or not (lead or len(number) >= 7):
            return match.group(0)
        return "" if lead.startswith("#") else lead

    read = _REFERENCE.sub(reference, read)
    return re.sub(r"[ \t]{2,}", " ", read).strip()


def _unless_held(holds: Callable[[str], bool], pages: str, match: re.Match[str]) -> str:
    """``pages``' words for a shopper's ``match``, unless the pages hold the shopper's own."""
    return match[0] if holds(match[0].strip().lower()) else pages
