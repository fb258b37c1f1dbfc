"""Training scripts for shopdesk's learned parts; run as modules from a checkout, not shipped."""
