// The rules page /rules/{ruleset}: the rule set's facts (GET /rulesets/{name}) stated in words
// through translated templates, so no number is written twice; with tips for new players.

import { api } from "./api.js";
import { fill, h } from "./cards.js";
import { languageToggle, t } from "./i18n.js";
import "./words_lobby.js";

let facts = null;

function rulesetFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[1] || "classic");
}

function section(title, ...lines) {
  const out = h("section", "panel");
  out.append(h("h2", null, t(title)));
  for (const line of lines.filter(Boolean)) out.append(h("p", null, line));
  return out;
}

function render() {
  if (!facts) return;
  const f = facts;
  document.title = t("rules_title", f.ruleset);
  document.getElementById("title").textContent = t("rules_title", f.ruleset);
  const basra = f.basra_lone_card_only
    ? t("r_basra_lone", f.basra_points)
    : f.basra_doubles
      ? t("r_basra_double", f.court_counts, f.basra_by_card.A, f.basra_by_card["7"], f.basra_by_card.K)
      : t("r_basra_fixed", f.basra_points);
  const jack = f.jack_basra ? t("r_jack_lone", f.jack_basra) : f.basra_lone_card_only ? null : t("r_jack_never");
  const komi = f.komi_basra_limit !== null ? t("r_komi_basra", f.komi_basra_limit) : null;
  const points = Object.keys(f.point_cards).length
    ? t("r_points", f.point_cards.A, f.point_cards.J, f.point_cards["2C"], f.point_cards["10D"])
    : t("r_no_points");
  const tips = [
    t("tip_majority", f.majority_award),
    t("tip_jack"),
    Object.keys(f.point_cards).length ? t("tip_tens", f.point_cards["10D"], f.point_cards["2C"]) : null,
    t("tip_lone"),
    t("tip_sums"),
  ];
  const tipList = h("ul", "tips");
  tipList.dataset.testid = "tips";
  for (const tip of tips.filter(Boolean)) tipList.append(h("li", null, tip));
  const tipSection = h("section", "panel");
  tipSection.append(h("h2", null, t("rules_tips")), tipList);
  fill(
    document.getElementById("rules"),
    section(
      "rules_setup",
      t("r_setup", f.hand_size, f.first_floor, f.deals_two_seats, f.deals_four_seats),
      f.komi_sweeps ? t("r_setup_reburied") : t("r_setup_reburied_jack"),
    ),
    section("rules_play", t("r_play", f.ace_value), t("r_jack"), f.komi_sweeps ? t("r_komi") : t("r_komi_plain")),
    section("rules_basra", basra, jack, komi, f.komi_extra_cases ? t("r_komi_extra") : null),
    section(
      "rules_scoring",
      t("r_majority", f.majority_cards, f.majority_award, f.deck_cards),
      f.majority_carries ? t("r_majority_carry", f.majority_tie) : null,
      points,
      t("r_round", f.round_points),
    ),
    section("rules_winning", t("r_target", f.target), t("r_profile", f.profile_points.win, f.profile_points.draw, f.profile_points.loss)),
    tipSection,
  );
}

async function start() {
  languageToggle(render);
  try {
    facts = await api("GET", `/rulesets/${encodeURIComponent(rulesetFromPath())}`);
    render();
  } catch (error) {
    document.getElementById("error").textContent = `${error.code || ""} ${error.message || error}`;
  }
}

start();
