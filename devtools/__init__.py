"""Tools for working on shopdesk (documentation generators), run as modules; not in the wheel."""
