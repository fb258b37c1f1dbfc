"""Protection against crowds and abuse, shared by the JSON API and the web pages: admission of
chat turns, per-client rate limits and sign-in lock-outs, and the request body cap."""
