"""Transcripts of chat turns in SQL, for support staff to review: models, migrations, writes and
reads, the chat side's store and the staff's review."""
