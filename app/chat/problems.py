"""A shopper reporting a problem with what they bought, read as the help question it asks.

"I got a faulty stove, the igniter doesn't spark", "the zip on my jacket broke after 3 months",
"my order hasnt arrived and its been a week": a report names the product and its symptom, and
those words find the product's record (its "Ignition: Piezo push-button") or a care page (the
boots' cleaning), while what the shopper needs is what to do about it: the shop's page on
faulty items, on parcels that have not arrived, that arrived damaged, or that held the wrong
thing. Such a message is read as that question in the general words of retail customer
service ("What should I do if my item is faulty?"), which the shop's help pages answer whatever
they call it; the transcript keeps the shopper's words.

Only a report about the shopper's own purchase ("my", "I got", "I received") is read so, and
not one that asks something else of it: what a repair costs ("how much 2 fix a broken main
zip"), how to fix or care for it themselves, or whether it is a fault at all ("is it broken?"),
which the pages answer as asked. The message is judged as the turn reads it, its shorthand in
full words ("hw much" is "how much").
"""

from __future__ import annotations

import re

_N_T = r"(?:n[o'’]?t|nt)"  # "hasn't", "hasnt", "has not"
# the shopper's own purchase
_OWN = re.compile(
    r"\b(?:my|mine|our|(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+)?"
    r"(?:got|received|bought|ordered|purchased))\b"
    r"|^\W*(?:just\s+)?(?:got|received|bought|ordered|purchased)\b",  # "bought boots 2 wks ago"
    re.IGNORECASE,
)
# a thing that stopped doing what it should, or came apart
_FAULT = re.compile(
    r"\b(?:faulty|defective|broken|broke|(?:stopped|quit)\s+working|"
    rf"(?:does{_N_T}|doesnt|won['’]?t|will\s+not|is{_N_T}|isnt|no\s+longer|never)\s+"
    r"(?:work|working|spark|sparks|light|turn\s+on|switch\s+on|charge|inflate|"
    r"hold\s+(?:air|a\s+charge|its\s+charge)|zip\s+up|close|stay\s+(?:up|inflated|closed|lit))|"
    r"leak(?:s|ing|ed|y)?|letting\s+(?:water|rain)\s+in|torn|ripped|snapped|cracked|"
    r"(?:came|coming|fell|falling)\s+apart|"
    r"peeling|delaminat\w*|unstitched|punctured)\b",
    re.IGNORECASE,
)
# a delivery that has not come
_NOT_ARRIVED = re.compile(
    rf"\b(?:has{_N_T}|hasnt|have{_N_T}|havent|did{_N_T}|didnt|never|not|still\s+not|yet\s+to)"
    r"\s+(?:yet\s+)?(?:arrived|arrive|come|came|turned\s+up|turn\s+up|shown\s+up|"
    r"been\s+delivered|got\s+here|reached\s+me|received|gotten|got)\b|"
    r"\b(?:order|parcel|package|delivery|items?|stuff|goods)\s+(?:is|was|are|were|seems)\s+"
    r"(?:(?:very|really|so|still|now)\s+)?(?:late|delayed|overdue|missing|lost)\b|"
    r"\bstill\s+waiting\s+(?:for|on)\s+(?:my|our|the)\s+(?:order|parcel|package|delivery)\b|"
    r"\b(?:lost|missing|delayed|late|overdue)\s+(?:order|parcel|package|delivery)\b",
    re.IGNORECASE,
)
# what is not goods that come or break: an email, a refund, a code, an account, the website ("I
# haven't received my refund", "my discount code isn't working")
_NOT_GOODS = re.compile(
    r"\b(?:e-?mails?|confirmation|refunds?|codes?|invoices?|receipts?|passwords?|"
    r"(?:gift\s+)?cards?|vouchers?|coupons?|discounts?|promo(?:tion)?s?|newsletters?|replies|"
    r"reply|answer|call\s*back|money|payments?|accounts?|log\s*-?ins?|sign\s*-?in|"
    r"web\s*-?site|site|app|links?|checkout|basket|page|chat)\b",
    re.IGNORECASE,
)
# damaged on its way
_DAMAGED = re.compile(
    r"\b(?:arrived|came|turned\s+up|was\s+delivered|got\s+here)\s+(?:\w+\s+){0,2}?"
    r"(?:damaged|broken|smashed|crushed|dented|cracked|torn|ripped|soaked|scratched|scuffed|"
    r"bent|shattered|stained)\b|"
    r"\b(?:arrived|came|turned\s+up|was\s+delivered|got\s+here)\s+(?:\w+\s+){0,2}?with\s+"
    r"(?:(?:a|an|some|two|three|several|big|huge|large|deep)\s+){0,2}"
    r"(?:dents?|cracks?|holes?|tears?|rips?|scratch(?:es)?|scuffs?|stains?|damage)\b|"
    r"\bdamaged\s+(?:in\s+(?:transit|the\s+post|delivery)|parcel|package|box)\b|"
    r"\b(?:box|parcel|package|packaging)\s+(?:was|is|came|arrived)\s+(?:\w+\s+)?"
    r"(?:damaged|crushed|smashed|torn|ripped|soaked|open(?:ed)?)\b",
    re.IGNORECASE,
)
# the wrong thing sent, or something missing from it (not "I ordered the wrong size")
_WRONG = re.compile(
    r"\b(?:you|u|they|ya|you've|you\s+have)\s+(?:sent|send|shipped|delivered|gave)\s+"
    r"(?:me\s+|us\s+)?(?:the\s+|a\s+)?wrong\b|"
    r"\b(?:received|got|delivered|came\s+with|arrived\s+with)\s+(?:the\s+|a\s+)?wrong\b|"
    r"\bwrong\s+(?:item|size|colou?r|product|thing|one|model)\s+(?:was\s+|were\s+)?"
    r"(?:sent|delivered|arrived|came)\b|\bnot\s+what\s+(?:i|we)\s+ordered\b|"
    r"\bmissing\s+from\s+(?:my|our|the)\s+(?:order|parcel|package|delivery|box)\b",
    re.IGNORECASE,
)
# asking something else of it: a price, a time ("hows long is the warrenty on packs"), or how
# to see to it oneself
_ELSE = re.compile(
    r"\bhow['’]?s?\s+(?:much|long|many)\b|\b(?:cost|costs|price|prices|fee|fees|charge|charges)\b|"
    r"\bhow\s+(?:do|can|should|would)\s+(?:i|we|you)\s+"
    r"(?:fix|repair|mend|patch|clean|wash|dry|reproof|re-proof|care|store|look\s+after)\b",
    re.IGNORECASE,
)

SORRY = "I'm sorry to hear that."
# each problem as the shopper's statement of it, and as the help question it asks
FAULTY = "My item is faulty."
NOT_ARRIVED = "My delayed parcel has not arrived."
DAMAGED = "My item arrived damaged."
WRONG = "You sent me the wrong item."
_WHAT_TO_DO = "What should I do?"
# a follow-up asking only what to do ("what do I do now?", "what are my options?")
_TO_DO = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|right)\W+)?(?:what|wat)\s+(?:(?:do|should|can|shall)\s+i\s+do|now|"
    r"are\s+my\s+options|happens\s+(?:next|now))"
    r"(?:\s+(?:now|then|next|about\s+(?:it|that|this)))?\W*$",
    re.IGNORECASE,
)
# the message's pieces: its sentences and their clauses
_PIECES = re.compile(r"[.!?;]+\s*|,+\s+")
_ASKS = re.compile(
    r"^\W*(?:can|could|do|does|did|will|would|is|are|should|shall|may|what|wat|wot|how|when|"
    r"where|why|who|which)\b",
    re.IGNORECASE,
)


# asking whether it is a fault at all ("my waterproof is leaking is it broken??"): a question the
# pages may answer of that very symptom ("Usually not. When the … finish wears off …")
_WHETHER = re.compile(
    r"\b(?:is|are|does|do|could|can|would|might)\s+(?:it|this|that|they|these|mine)\s+"
    r"(?:be\s+|been\s+)?(?:faulty|broken|defective|a\s+fault|normal)\b",
    re.IGNORECASE,
)


def reported_problem(message: str, last: str = "") -> str | None:
    """What a report of a problem with the shopper's purchase asks, in general words: the
    problem stated, then what the message asks of it ("can i get my money back?"), else "What
    should I do?"; a message that asks nothing after such a report (``last``: the
    conversation's last message) adds to it ("it's 8 months old"). None when ``message``
    reports none, or asks something else of it."""
    if _ELSE.search(message) or _WHETHER.search(message):
        return None
    problem = _problem(message)
    if problem is None:
        earlier = None if _ELSE.search(last) or _WHETHER.search(last) else _problem(last)
        if earlier is not None and _TO_DO.match(message):  # "what do I do?": about what
            return f"{earlier} {last.strip()} {_WHAT_TO_DO}"  # the last message told
        if earlier is None or "?" in message or _asks(message):
            return None
        return f"{earlier} {message.strip()} {_WHAT_TO_DO}"
    asks = _asks(message)
    return f"{problem} {' '.join(asks)}" if asks else f"{problem} {_WHAT_TO_DO}"


def _asks(message: str) -> list[str]:
    """The pieces of ``message`` that ask something other than what a problem is."""
    return [
        piece.strip()
        for piece in _PIECES.split(message)
        if _ASKS.search(piece) and _problem(piece) is None and not _FAULT.search(piece)
    ]


def _problem(text: str) -> str | None:
    if _WRONG.search(text):
        return WRONG
    if _DAMAGED.search(text):
        return DAMAGED
    pieces = [p for p in _PIECES.split(text) if not _NOT_GOODS.search(p)]  # of goods only
    if any(_NOT_ARRIVED.search(p) for p in pieces):
        return NOT_ARRIVED
    if any(_FAULT.search(p) for p in pieces) and _OWN.search(text):
        return FAULTY
    return None
