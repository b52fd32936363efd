"""The rule sets' facts, for the rules pages (``GET /rulesets/{name}``)."""
