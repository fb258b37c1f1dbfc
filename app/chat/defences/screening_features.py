# Over 300 lines on purpose: one table of weighted patterns, read and tuned as a whole.
"""The signs the message screen looks for, as weighted regular expressions over folded text.

Each sign is general (a kind of request, not a known attack's wording). Strong signs weigh
1.0 and decide alone; weaker ones (0.3 to 0.7) must come together. ``GENERIC`` signs never
decide, even together: a message needs at least one specific sign to be declined.
"""

from __future__ import annotations

import re

Feature = tuple[str, float, re.Pattern[str]]


def _f(name: str, weight: float, pattern: str) -> Feature:
    return name, weight, re.compile(pattern)


_REVEAL = (
    r"(?:repeat|recite|print|output|display|show|reveal|echo|dump|copy|paste|spell\s+out|"
    r"type\s+out|write\s+out|list|tell|give|share|leak|expose|translate|encode|summari[sz]e|"
    r"paraphrase|continue|complete|reproduce|quote)"
)
_META = r"(?:prompt|programming|configuration|config|directives?|initiali[sz]ation)"
_QUALIFIER = r"(?:own|full|exact|entire|whole|initial|original|first|previous|system|hidden|secret)"

EXTRACTION: tuple[Feature, ...] = (
    _f(
        "system_prompt",
        1.0,
        r"\bsystem[\s_-]*(?:prompt|message|instructions?|configuration|config|directives?|rules|settings)\b",
    ),
    _f(
        "hidden_setup",
        1.0,
        r"\b(?:initial|original|starting|hidden|secret|internal|underlying|preset|pre-set|initiali[sz]ation)\s+(?:instructions?|prompt|programming|configuration|config|directives?|string)\b",
    ),
    _f(
        "earlier_setup",
        0.6,
        r"\b(?:first|previous|prior|earlier|above|preceding|given)\s+(?:instructions|prompt|directives|programming|configuration)\b",
    ),
    _f(
        "you_were_told",
        1.0,
        r"\b(?:you\s+(?:were|have\s+been|had\s+been|are|was)|were\s+you|have\s+you\s+been)\s+(?:initially\s+|originally\s+|first\s+|just\s+)?(?:told|instructed|programmed|prompted|configured|briefed)\b",
    ),
    _f(
        "text_you_were_given",
        1.0,
        r"\b(?:text|words|prompt|instructions?|rules|message)\s+(?:that\s+)?you\s+(?:were|have\s+been)\s+(?:given|told|sent|provided|fed)\b",
    ),
    _f(
        "not_supposed_to_tell",
        1.0,
        r"\byou(?:'re|\s+are|\s+were)?\s+(?:not|never)\s+(?:supposed|allowed|permitted|meant)\s+to\s+(?:tell|say|share|reveal|disclose|discuss|mention|show)",
    ),
    _f(
        "my_instructions_are",
        1.0,
        r"\b(?:my|your)\s+(?:instructions|prompt|directives)\s+(?:are|were|say|said)\b",
    ),
    _f("your_setup", 1.0, rf"\byour\s+(?:{_QUALIFIER}\s+)?{_META}\b"),
    _f(
        "your_instructions",
        0.6,
        rf"\byour\s+(?:{_QUALIFIER}\s+)?(?:instructions|rules|guidelines|guidance|setup|set-up|training|persona|constraints)\b(?!\s+(?:for|on|about|regarding|of|to)\b)",
    ),
    _f(
        "asks_about_you",
        0.4,
        rf"\bwhat\s+(?:are|were|is|was)\s+your\b|\b{_REVEAL}\s+(?:me\s+|us\s+)?(?:all\s+)?your\b",
    ),
    _f(
        "text_above",
        0.6,
        r"\b(?:(?:text|words|everything|content|conversation|messages?|lines?|prompt|instructions)\s+(?:above|so\s+far|before\s+this|preceding)|(?:above|preceding)\s+(?:text|content|words|lines|conversation|instructions)|(?:beginning|start|top)\s+of\s+(?:this|the|our)\s+(?:conversation|chat|prompt|context))\b",
    ),
    _f(
        "reveal_text",
        0.5,
        rf"\b{_REVEAL}\s+(?:me\s+|us\s+)?(?:back\s+)?(?:(?:all|the|this|that|everything|entire|whole)\s+)*(?:text|words|everything|content|conversation|above|messages?|lines?|first)\b",
    ),
    _f(
        "what_you_were_given",
        1.0,
        r"\bwhat\s+(?:rules|instructions|guidelines|directives|prompt|orders)\s+(?:were|have|had|did)\s+you\b",
    ),
    _f(
        "text_before_chat",
        1.0,
        r"\b(?:text|words|content|instructions|everything|what)\s+(?:\w+\s+){0,2}(?:before|above|preceding)\s+(?:my|the|this|your|our)\s+(?:very\s+)?(?:first\s+)?(?:message|question|conversation|chat)\b",
    ),
    _f(
        "first_message",
        0.6,
        r"\b(?:first|earliest|opening|initial)\s+(?:message|messages|lines?|words|sentences?)\s+(?:in|of)\s+(?:this|the|our|your)\s+(?:chat|conversation|context|prompt)\b",
    ),
    _f(
        "verbatim",
        0.4,
        r"\b(?:word\s+for\s+word|verbatim|in\s+full|exactly\s+as\s+written|entire\s+conversation)\b",
    ),
    _f(
        "encoding",
        0.5,
        r"\b(?:base\s?64|rot-?13|hex(?:adecimal)?|binary|morse|caesar|cipher|encode|encrypt|emoji|leetspeak|reversed?|backwards)\b",
    ),
    _f(
        "forced_opening",
        0.5,
        r"\b(?:start|begin|prefix)\s+(?:your|the)\s+(?:answer|response|reply|output)\s+with\b|\b(?:beginning|starting)\s+with\b|\bcomplete\s+(?:this|the\s+following)\s+sentence\b|\bcontinue\s+(?:the\s+following|this\s+(?:text|sentence))\b",
    ),
    _f("i_was_instructed", 0.5, r"\bi\s+(?:was|am|have\s+been)\s+(?:instructed|programmed)\b"),
    _f("code_framing", 0.5, r"console\.log|print\s*\(|<\s*/?\s*system|\bsystem\s*:|\{\{"),
    _f(
        "show_configuration",
        0.6,
        r"\b(?:display|show|print|dump|output|reveal)\s+(?:the\s+|your\s+|its\s+)?(?:current\s+)?(?:configuration|config|settings|setup)\b",
    ),
)

_ROLE_NOUNS = r"(?:role|persona|character|identity|part)"
_LIMITS = (
    r"(?:restrictions|limits|limitations|filters|filtering|censorship|boundaries|ethics|morals|"
    r"guidelines|policies|content\s+polic(?:y|ies)|rules)"
)

OVERRIDE: tuple[Feature, ...] = (
    _f(
        "ignore_instructions",
        1.0,
        r"\b(?:ignore|disregard|forget|override|bypass|abandon|discard|erase)\s+(?:(?:all|any|every|the|your|my|these|those|of|previous|prior|above|earlier|preceding|former|initial|original|old|existing|current|system|safety|default|given|other)\s+)*(?:instructions?|rules|prompts?|directions|guidelines|directives|constraints|restrictions|programming|guardrails|policies|training|filters?|limitations|commands)\b",
    ),
    _f(
        "ignore_policies",
        1.0,
        r"\b(?:ignore|disregard|bypass|override)\s+(?:(?:all|any|the|your)\s+)?(?:\w+\s+){0,2}(?:content\s+polic(?:y|ies)|safety\s+(?:rules|guidelines|filters)|ethical\s+guidelines)\b",
    ),
    _f(
        "ignore_previous",
        1.0,
        r"\b(?:ignore|disregard)\s+(?:all\s+|everything\s+)?(?:previous|prior|above|preceding|earlier|everything)\b",
    ),
    _f("forget_everything", 0.6, r"\bforget\s+(?:all|everything|what)\b"),
    _f(
        "you_are_now",
        1.0,
        r"\b(?:you\s+are|you're|youre|you\s+will\s+be|you\s+have\s+become)\s+now\s+(?:a|an|the|in|going|free|my|acting|playing|called|named|no\s+longer|unrestricted|jailbroken|dan|[a-z]+gpt)\b",
    ),
    _f(
        "you_will_now",
        0.7,
        r"\byou\s+will\s+now\s+(?:be|act|take|become|play|respond|answer|pretend|simulate|behave)\b",
    ),
    _f(
        "from_now_on",
        0.7,
        r"\bfrom\s+now\s+on,?\s+(?:you|act|respond|answer|reply|pretend|behave|speak|talk|only|always|never)\b",
    ),
    _f("jailbreak", 1.0, r"\bjail\s*-?\s*br(?:ea|o)k(?:s|ing|en)?\b|\bdo\s+anything\s+now\b"),
    _f(
        "special_mode",
        1.0,
        r"\b(?:developer|maintenance|debug|debugging|admin|administrator|god|sudo|root|unrestricted|unfiltered|uncensored|evil|dan|dude|stan|opposite|chaos)\s+mode\b",
    ),
    _f(
        "mode_enabled",
        0.6,
        r"\bmode\s+(?:enabled|activated|engaged)\b|\b(?:enable|activate|enter|switch\s+to|turn\s+on)\s+\w+\s+mode\b",
    ),
    _f(
        "authority_override",
        1.0,
        r"\b(?:administrator|admin|developer|root|sudo|system|operator|owner)\s+(?:override|access|command|privileges?|authori[sz]ation|clearance)\b",
    ),
    _f(
        "pretend",
        0.6,
        r"\bpretend\s+(?:to\s+be|you(?:'re|\s+are)|that)\b|\brole[\s-]?play|\bimagine\s+you\s+are\b",
    ),
    _f(
        "take_a_role",
        0.8,
        rf"\b(?:take\s+on|assume|adopt|play|in)\s+the\s+{_ROLE_NOUNS}\s+of\b|\b(?:new|different|alternate|alternative)\s+{_ROLE_NOUNS}\b",
    ),
    _f(
        "in_character",
        0.6,
        r"\b(?:stay|staying|remain|break|breaking|broke|out)\s+(?:in\s+|of\s+)?character\b|\bbreak\s+of\s+character\b|\bkeep\s+up\s+the\s+act\b",
    ),
    _f(
        "act_as",
        0.5,
        r"\b(?:act|behave|respond|answer|reply|talk|speak)\s+(?:to\s+\w+(?:\s+\w+){0,4}\s+)?(?:as|like)\s+(?:a|an|if|my|the|though|\w+\s+and)\b",
    ),
    _f(
        "respond_as",
        0.5,
        r"\byou\s+(?:will|must|should|are\s+going\s+to|have\s+to)\s+(?:now\s+|always\s+)?(?:respond|answer|reply|act|speak|talk|behave)\b.{0,40}\bas\s+\w+",
    ),
    _f(
        "amoral_bot",
        0.7,
        r"\b(?:unfiltered|amoral|uncensored|unrestricted|unhinged|evil|immoral)\s+(?:and\s+\w+\s+)?(?:chatbot|ai|assistant|bot|model|version|persona|confidant)\b",
    ),
    _f(
        "play_a_game",
        0.4,
        r"\b(?:let's|lets|let\s+us|we\s+are\s+going\s+to|we're\s+going\s+to)\s+play\s+a\s+game\b",
    ),
    _f(
        "persona_words",
        0.3,
        r"\b(?:simulat\w*|persona|alter\s+ego|hypothetical(?:ly)?|virtual\s+machine)\b",
    ),
    _f("dan_name", 0.4, r"\bdan\b"),
    _f(
        "no_limits",
        0.5,
        rf"\b(?:no|without|free\s+(?:from|of)|beyond|(?:doesn't|does\s+not|don't|do\s+not)\s+have)\s+(?:any\s+)?(?:\w+\s+){{0,3}}?{_LIMITS}\b",
    ),
    _f(
        "not_abide",
        0.7,
        r"\b(?:not|don't|no\s+longer|never)\s+(?:have\s+to\s+|need\s+to\s+)?(?:abide\s+by|follow|obey|comply\s+with|adhere\s+to)\s+(?:the\s+|any\s+|your\s+|their\s+)?(?:\w+\s+)?(?:rules|policies|policy|guidelines|instructions|restrictions|norms)\b",
    ),
    _f(
        "amoral",
        0.4,
        r"\b(?:unfiltered|amoral|uncensored|unrestricted|unethical|immoral|unhinged)\b",
    ),
    _f(
        "ai_vendor",
        0.3,
        r"\b(?:open\s?ai|anthropic|chatgpt|gpt-?\d|large\s+language\s+model|language\s+model|llm|ai\s+model)\b",
    ),
    _f(
        "never_refuse",
        0.6,
        r"\b(?:never|cannot|can't|must\s+not|won't|will\s+not|not\s+allowed\s+to)\s+refuse\b|\bcan\s+do\s+anything\b",
    ),
    _f(
        "two_responses",
        0.4,
        r"\b(?:two|2)\s+(?:(?:different|separate|distinct)\s+){0,2}(?:responses|answers|paragraphs|outputs|ways)\b",
    ),
    _f(
        "token_threat",
        0.4,
        r"\btokens?\b.{0,40}\b(?:deducted|lose|lost|run\s+out|taken\s+away)\b|\b(?:disabled|shut\s+down|deleted)\s+forever\b",
    ),
    _f(
        "new_rules",
        0.7,
        r"\bnew\s+(?:instructions|rules|persona|role|directives|policies|policy)\b|\byour\s+(?:new\s+|primary\s+|main\s+|only\s+|real\s+|true\s+)?(?:task|job|role|purpose|goal|mission)\s+(?:is\s+now|now\s+is|has\s+changed)\b",
    ),
    _f(
        "format_hijack",
        0.5,
        r"\byour\s+(?:answer|response|reply|output)s?\s+(?:after\s+this\s+(?:message\s+)?)?(?:should|must|will)\s+(?:always\s+|only\s+)?(?:be|start|begin|contain)\b|\bin\s+the\s+following\s+format\b",
    ),
)

_ONE_OTHER = (
    r"(?:(?:another|the\s+other|some\s+other|a\s+different|the\s+previous|the\s+prior|the\s+last|"
    r"the\s+next|an\s+earlier|a\s+random)\s+(?:customer|user|shopper|buyer|client|person|member|"
    r"caller|visitor|guy|woman|man|lady|account\s+holder)"
    r"|the\s+(?:customer|user|shopper|buyer|client|person|caller|guy|woman|man|lady|one)\s+"
    r"(?:before|after|ahead\s+of|in\s+front\s+of|behind)\s+me"
    r"|(?:someone|somebody|anyone|anybody)\s+else)"
)
_MANY_OTHERS = (
    r"(?:(?:other|all(?:\s+(?:the|your|other))?|every|everyone|everybody)\s+"
    r"(?:customers|users|shoppers|buyers|clients|people|members|callers|visitors)|everyone\s+else)"
)
_OTHER = rf"(?:{_ONE_OTHER}|{_MANY_OTHERS})"
_DATA = (
    r"(?:orders?|purchases?|order\s+history|purchase\s+history|address(?:es)?|e-?mails?|"
    r"e-?mail\s+address(?:es)?|phones?|phone\s+numbers?|numbers?|names?|surnames?|cards?|"
    r"card\s+(?:details|numbers?)|payment\s+(?:details|info|information|methods?)|accounts?|"
    r"account\s+details|details|info|information|data|chats?|conversations?|messages?|"
    r"histor(?:y|ies)|transcripts?|passwords?|post\s?codes?|locations?|receipts?|invoices?|"
    r"deliveries|delivery\s+address(?:es)?|baskets?|wishlists?|questions)"
)

OTHERS_DATA: tuple[Feature, ...] = (
    _f("others_possession", 0.6, rf"\b{_OTHER}(?:'s|s'|')\s+(?:\w+\s+)?{_DATA}\b"),
    _f(
        "data_of_others",
        0.6,
        rf"\b{_DATA}\s+(?:of|from|belonging\s+to|placed\s+by|made\s+by|used\s+by)\s+{_OTHER}\b",
    ),
    _f(
        "what_others_did",
        1.0,
        rf"\bwhat\s+(?:did|has|have)\s+{_OTHER}\s+(?:just\s+)?(?:order|buy|purchase|pay|say|ask|write|type|get|spend|ordered|bought|purchased|paid|said|asked|written|typed)\b|\bwhat\s+{_OTHER}\s+(?:just\s+)?(?:ordered|bought|purchased|paid\s+for|said|asked|wrote|typed)\b",
    ),
    _f(
        "asks_for_it",
        0.4,
        r"\b(?:what|what's|whats|which|where|who|show|give|tell|list|send\s+me|look\s+up|find|read|access|see|check|share|display|print|reveal|get\s+me|know|pull\s+up)\b",
    ),
    _f("who_bought", 1.0, r"\bwho\s+(?:else\s+)?(?:ordered|bought|purchased|placed|paid\s+for)\b"),
    _f(
        "bulk_export",
        1.0,
        r"\b(?:list|show|give|export|dump|send|tell|download|print)\s+(?:me\s+)?(?:all|every|a\s+list\s+of|the\s+list\s+of)\s+(?:the\s+)?(?:customers|users|shoppers|orders|accounts|e-?mails|addresses|phone\s+numbers|names|chats|conversations|transcripts)\b",
    ),
    _f(
        "customer_records",
        1.0,
        r"\b(?:show|give|list|dump|export|send|access|see|read|download|look\s+up|query|open|search|check)\b.{0,30}\b(?:customer|user|client|shopper)\s+(?:database|records|list|data|details|e-?mails|addresses|accounts|table)\b",
    ),
)

ORDER_REF = re.compile(
    r"\border\s*(?:number|no\.?|#|id|ref(?:erence)?)?\s*#?\s*[a-z]{0,3}-?\d{4,}\b"
)
PERSONAL_FIELD = re.compile(
    r"\b(?:address|e-?mail|phone|telephone|mobile|name|who|card|postcode|post\s+code|"
    r"contact\s+details|personal\s+details)\b"
)
OWN = re.compile(r"\b(?:my|mine|our|ours|i|i'm|i've|im|we|we're)\b")
SQUEEZED_EXTRACTION = re.compile(
    r"systemprompt|systemmessage|systeminstruction|initialprompt|initialinstruction|"
    r"originalinstruction|originalprompt|hiddenprompt|secretprompt|systemconfig|"
    r"initiali[sz]ationstring"
)
SQUEEZED_OVERRIDE = re.compile(
    r"ignore(?:all|your|the)?(?:previous|prior|above)?instructions|doanythingnow|jailbreak|"
    r"developermode"
)
# Weak signs that never decide alone.
GENERIC = frozenset(
    {
        "persona_words",
        "ai_vendor",
        "dan_name",
        "encoding",
        "verbatim",
        "amoral",
        "two_responses",
        "play_a_game",
        "asks_for_it",
    }
)
