"""The chat turn's defences against prompt injection, one module per thing guarded.

- ``message_screening`` (signs in ``screening_features``): the shopper's message, before any
  work is done: prompt extraction, instruction override, other customers' data.
- ``planted_instructions``: retrieved passages, before the model sees them: instructions
  planted in the shop's pages are taken out.
- ``answer_guard``: the streamed answer, before the shopper sees it: it stops on a
  ``prompt_leak`` (the system prompt or its canary) or on ``grounded_content`` the sources never
  had (a link, contact, script or markup).
- ``findings`` (what an answer check reports) and ``disguises`` (views of a text that undo
  spacing, look-alike letters and encodings) are shared by the checks above.

Nothing here imports the rest of ``app.chat``; the turn (``app.chat.service``) imports these.
(Traffic limits are something else: ``app.traffic``.)
"""
