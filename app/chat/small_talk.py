"""A greeting, a thanks or a goodbye, answered as a person at the shop's desk would.

"hi there!", "thanks, that's all", "bye": nothing to look up, so nothing is searched; the pages
being searched for "hi" had answered "I'm sorry, I couldn't find anything about that …". Only a
message that is small talk and nothing else is: "hi, do you sell tents?" asks about tents.
"""

from __future__ import annotations

import re

_NAME = r"(?:\s+(?:there|all|team|folks|guys|everyone|mate|again))?"
_GREETING = re.compile(
    rf"^(?:hi+|hello+|hey+|hiya|howdy|yo|greetings|good\s+(?:morning|afternoon|evening)){_NAME}$"
)
_THANKS = re.compile(
    r"^(?:(?:ok(?:ay)?|great|perfect|brilliant|lovely|cool|awesome|fab|super|"
    r"(?:that'?s|thats)\s+(?:great|perfect|brilliant|lovely|helpful|all|it|everything))\s*,?\s*)*"
    r"(?:(?:thanks?|thank\s+(?:you|u)|thx|ty|cheers|ta|many\s+thanks)"
    r"(?:\s+(?:so|very)\s+much|\s+a\s+lot|\s+again|\s+for\s+(?:your|the|ur)\s+help)?)"
    r"(?:\s*,?\s*(?:(?:that'?s|thats)\s+(?:all|it|everything)|bye|goodbye))*$"
)
_DONE = re.compile(
    r"^(?:(?:no\s*,?\s*)?(?:that'?s|thats)\s+(?:all|it|everything)|bye+|goodbye|good\s*bye|"
    r"see\s+(?:you|ya)|ok(?:ay)?\s+bye|all\s+sorted|all\s+good)$"
)
_ACKNOWLEDGED = re.compile(r"^(?:ok(?:ay)?|great|perfect|brilliant|lovely|cool|awesome|got\s+it)$")

GREETING = (
    "Hello! I'm the {shop} assistant. Ask me about our products, delivery, returns or an order."
)
THANKS = "You're welcome! Is there anything else I can help with?"
GOODBYE = "Thanks for chatting with {shop}. Goodbye!"


def small_talk_reply(message: str, *, shop: str) -> str | None:
    """The reply to ``message`` when it is only a greeting, a thanks, a goodbye or an "ok";
    None when it asks or tells anything else."""
    said = re.sub(r"[^\w\s',]", " ", message.lower()).strip(" ,")
    said = re.sub(r"\s+", " ", said)
    if _GREETING.match(said):
        return GREETING.format(shop=shop)
    if _THANKS.match(said) or _ACKNOWLEDGED.match(said):
        return THANKS
    if _DONE.match(said):
        return GOODBYE.format(shop=shop)
    return None
