"""``GET /rulesets/{name}``: the numbers and choices of a rule set, read from the rule set
itself (domain/rule_facts.py); the page ``/rules/{ruleset}`` states them in words."""

from __future__ import annotations

from litestar import Controller, get
from litestar.params import FromPath

from app.api.edges.openapi import errors
from domain.rule_facts import RuleFacts, rule_facts
from domain.rulesets import ruleset


class RulesController(Controller):
    """``/rulesets/{name}``: one rule set's facts (public, no token)."""

    path = "/rulesets"
    tags = ("rules",)

    @get("/{name:str}", responses=errors(422), sync_to_thread=False)
    def facts(self, name: FromPath[str]) -> RuleFacts:
        """Hand size, deals, Basra points, the Jack and the 7♦, the majority, point cards,
        the target and the profile points of the rule set ``name``."""
        return rule_facts(ruleset(name))
