"""The rules pages in a real browser, in English and Arabic: every number a page states is one
of its rule set's facts (read from the rule set itself) and appears in docs/rules.md; the
lobby's rule-set choice links to the page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from domain.rule_facts import rule_facts
from domain.rulesets import RULESETS

pytestmark = pytest.mark.e2e

RULES_DOC = Path(__file__).resolve().parents[3] / "docs" / "rules.md"


def _numbers(value: Any) -> set[int]:
    """Every whole number in a fact (nested dicts included; True/False are not numbers)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_numbers(v) for v in value.values())) if value else set()
    if hasattr(value, "__struct_fields__"):
        return set().union(*(_numbers(getattr(value, f)) for f in value.__struct_fields__))
    return set()


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_number_on_the_rules_page_is_the_rule_sets_in_both_languages(
    new_page: Any, name: str
) -> None:
    facts = rule_facts(RULESETS[name])
    allowed = _numbers(facts)
    documented = {int(n) for n in re.findall(r"\d+", RULES_DOC.read_text(encoding="utf-8"))}
    page = new_page()
    page.goto(f"/rules/{name}")
    rules = page.page.locator("[data-testid=rules]")
    rules.locator("[data-testid=tips] li").first.wait_for()
    english = rules.inner_text()
    page.page.locator("#lang").click()
    page.page.wait_for_function("document.documentElement.lang === 'ar'")
    arabic = rules.inner_text()
    assert english != arabic and "البصرة" in arabic
    for text in (english, arabic):
        stated = {int(n) for n in re.findall(r"\d+", text)}
        # the page states the target, the majority and the Basra's worth at least
        assert {facts.target, facts.majority_cards, facts.majority_award} <= stated
        assert stated <= allowed, (name, stated - allowed)
        assert stated <= documented, (name, stated - documented)
    # the tips come with the page
    assert page.page.locator("[data-testid=tips] li").count() >= 4


def test_the_lobby_links_the_chosen_rule_sets_page(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    page.page.locator("#create select[name=ruleset]").select_option("lebanese")
    link = page.page.locator("[data-testid=rules-link]")
    assert link.get_attribute("href") == "/rules/lebanese"
    link.click()
    page.page.locator("[data-testid=tips] li").first.wait_for()
    assert "6" in page.page.locator("[data-testid=rules]").inner_text()
