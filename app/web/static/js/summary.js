// A round's summary (from `round_scored`, R19–R21) and the match's result (R22, R26, R27): in
// words, with names. The summary never blocks play: it sits beside the table, closes on a tap
// or by itself, and the next deal goes on behind it.

import { api, player } from "./api.js";
import { fill, h } from "./cards.js";
import { cardsWords, pointCards, resultWords, sideNames } from "./describe.js";
import { t } from "./i18n.js";

const SUMMARY_SECONDS = 12;
let summaryTimer = null;

/** Show the summary of the round scored by `e`; `before` is the position just before it. */
export function showRoundSummary(before, e, mine) {
  const panel = document.getElementById("round-summary");
  const table = h("table", "summary-table");
  const head = h("tr");
  head.append(h("th"));
  e.sides.forEach((_, side) => head.append(h("th", null, sideNames(before, side, mine))));
  table.append(head);
  const taken = e.sides.map((_, side) => {
    const cards = (before.taken[side] || []).slice();
    if (e.last_pickup && e.last_pickup.side === side) cards.push(...e.last_pickup.cards);
    return cards;
  });
  const row = (label, cells, testid) => {
    const tr = h("tr");
    if (testid) tr.dataset.row = testid;
    tr.append(h("th", null, label));
    for (const cell of cells) tr.append(h("td", null, cell));
    table.append(tr);
  };
  row(t("sum_cards"), e.sides.map((s) => String(s.cards)), "cards");
  row(t("sum_majority"), e.sides.map((s) => (s.majority ? String(s.majority) : t("majority_none"))), "majority");
  row(t("sum_point_cards"), e.sides.map((s, side) => {
    const named = pointCards(before.ruleset, taken[side]);
    return `${named.length ? cardsWords(named) : t("no_point_cards")} = ${s.points}`;
  }), "points");
  row(t("sum_basras"), e.sides.map((s) => String(s.basra)), "basra");
  row(t("sum_round"), e.sides.map((s) => String(s.total)), "round");
  row(t("sum_total"), e.totals.map((total) => String(total)), "total");
  const notes = [];
  if (e.last_pickup && e.last_pickup.cards.length) {
    notes.push(h("p", "muted", t("last_pickup", sideNames(before, e.last_pickup.side, mine), e.last_pickup.cards.length)));
  }
  if (e.carry) notes.push(h("p", "carry-note", t("carry_kept", e.carry)));
  else if (before.carry && e.sides.some((s) => s.majority > 30)) notes.push(h("p", "carry-note", t("carry_paid", Math.max(...e.sides.map((s) => s.majority)))));
  const close = h("button", "close-summary", t("close"));
  close.type = "button";
  close.addEventListener("click", hideRoundSummary);
  fill(panel, h("h2", null, t("summary_title", e.round)), table, ...notes, close);
  panel.dataset.round = String(e.round);
  panel.dataset.seq = String(e.seq);
  panel.hidden = false;
  clearTimeout(summaryTimer);
  summaryTimer = setTimeout(hideRoundSummary, SUMMARY_SECONDS * 1000);
}

/** Close the round summary. */
export function hideRoundSummary() {
  clearTimeout(summaryTimer);
  document.getElementById("round-summary").hidden = true;
}

let results = null; // {status: "waiting" | "ready" | "none", row, profile}
let resultsFor = null;

/** The result panel: the verdict in words, points and rating (R27), rematch, new game, replay. */
export function renderResult(state, mine, actions) {
  const el = document.getElementById("result");
  if (state.status !== "ended") {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const lines = [h("h2", null, t("result"))];
  lines.push(h("p", "verdict", resultWords(state, mine)));
  lines.push(h("p", "reason-words muted", `${t("reason")}: ${t(`reason_${state.reason}`)}`));
  if (state.bots.length) lines.push(h("p", "points-paid", t("practice_pays")));
  else if (mine !== null) lines.push(...resultRows(state, actions.redraw));
  const buttons = h("p", "result-actions");
  const offered = state.rematch || actions.rematchId();
  if (mine !== null) {
    if (offered) lines.push(h("p", "rematch-offered", t("rematch_offered")));
    const again = h("button", "rematch", offered ? t("rematch_join") : t("rematch"));
    again.type = "button";
    again.addEventListener("click", actions.rematch);
    buttons.append(again);
  } else if (offered) {
    const watch = h("a", "rematch-watch", t("rematch_watch"));
    watch.href = `/play/${encodeURIComponent(offered)}`;
    lines.push(h("p", "rematch-offered").appendChild(watch).parentNode);
  }
  const fresh = h("a", "new-game button-link", t("new_game"));
  fresh.href = "/";
  const replay = h("a", "replay-link button-link", t("open_replay"));
  replay.href = `/replay/${encodeURIComponent(state.matchId)}`;
  buttons.append(fresh, replay);
  lines.push(buttons);
  fill(el, ...lines);
}

function resultRows(state, redraw) {
  const me = player();
  if (!me) return [];
  if (resultsFor !== state.matchId) {
    resultsFor = state.matchId;
    results = { status: "waiting" };
    pollResults(state.matchId, me, redraw, 0);
  }
  if (results.status === "waiting") return [h("p", "rating-updating", t("rating_updating"))];
  if (results.status !== "ready") return [];
  const row = results.row;
  const out = [h("p", "points-paid", t("points_earned", `+${row.points}`))];
  if (row.rated && row.rating_before !== null && row.rating_after !== null) {
    const change = Math.round(row.rating_after) - Math.round(row.rating_before);
    const rating = h("p", "rating-change", t("rating_change", Math.round(row.rating_before), Math.round(row.rating_after), (change >= 0 ? "+" : "") + change));
    rating.dataset.change = String(change);
    out.push(rating);
    if (row.rd_after !== null && row.rd_after > 110) out.push(h("p", "provisional-note muted", t("provisional_note", Math.round(row.rd_after))));
  } else {
    out.push(h("p", "muted", t("unrated_note")));
  }
  return out;
}

// The results are a read model: they catch up with the match a moment after it ends.
async function pollResults(matchId, me, redraw, attempt) {
  try {
    const history = await api("GET", `/players/${encodeURIComponent(me.player_id)}/matches`, { token: me.token });
    const row = (history.matches || []).find((m) => m.match_id === matchId);
    if (row) {
      results = { status: "ready", row };
      redraw();
      return;
    }
  } catch {
    if (attempt > 3) {
      results = { status: "none" };
      redraw();
      return;
    }
  }
  if (attempt >= 30) {
    results = { status: "none" };
    redraw();
    return;
  }
  setTimeout(() => pollResults(matchId, me, redraw, attempt + 1), 1000);
}
