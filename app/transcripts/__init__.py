"""Transcripts of chat turns in SQL, for support staff to review: models, migrations, queries."""
