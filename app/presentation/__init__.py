"""Views of the service's records that more than one edge shows (the API, the shopper page)."""
