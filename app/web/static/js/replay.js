// The replay viewer at /replay/{id}: the position after any event as the chosen viewer sees it,
// the move list (click to jump), the keys of `basra replay` to step, the score by round, support's dispute log, a
// banner when the match does not verify, and beside the move list the analysis of the current
// play (what the strong bot would have played from that seat's view, and what the play cost).

import { api, matchIdFromPath, player, replayLines, seatOf } from "./api.js";
import { backs, cardElement, cardText, fill, h } from "./cards.js";
import { lineChart } from "./chart.js";
import { framesOf, step, stopsOf } from "./fold.js";
import { languageToggle, t } from "./i18n.js";
import { reportButton } from "./report.js";

const matchId = matchIdFromPath();
const $ = (id) => document.getElementById(id);
const SUPPORT_KEY = "basra.support";

let lines = [];
let frames = [];
let stops = { plays: [], deals: [], rounds: [] };
let at = 0;
let moveItems = []; // [frame index, <li>] of the move list, in order
let logRows = [];
let currentMove = null;
let currentLog = null;
let chartRound = -1;
let analysed = new Map(); // seq -> the analysis of a person's play (GET /matches/{id}/analysis)
let analysisState = "none"; // none (not asked), loading, ready, unavailable
let analysisRequest = 0;
let shownAnalysis = null;

function viewers() {
  const options = [["public", t("public")]];
  const kept = seatOf(matchId);
  if (kept) options.push([`seat:${kept.seat}`, `${t("seat")} ${kept.seat}`]);
  else if (player()) options.push(["player", `${t("seat")} (${player().name})`]);
  options.push(["support", t("support")]);
  return options;
}

function tokenFor(viewer) {
  if (viewer.startsWith("seat:")) return seatOf(matchId).token;
  if (viewer === "player") return player().token;
  if (viewer === "support") return $("support-token").value.trim() || sessionStorage.getItem(SUPPORT_KEY);
  return null;
}

function fillViewers() {
  const select = $("viewer");
  const chosen = select.value;
  fill(select, ...viewers().map(([value, label]) => {
    const option = h("option", null, label);
    option.value = value;
    return option;
  }));
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  $("support-label").hidden = select.value !== "support";
}

async function open() {
  const viewer = $("viewer").value;
  const token = tokenFor(viewer);
  if (viewer === "support" && token) sessionStorage.setItem(SUPPORT_KEY, token);
  $("error").textContent = "";
  try {
    lines = await replayLines(matchId, token);
  } catch (error) {
    $("error").textContent = error.status === 401 ? t("open_after_end") : `${t("error")}: ${error.code} ${error.message}`;
    return;
  }
  frames = framesOf(lines);
  stops = stopsOf(frames);
  const wanted = Number((location.hash.match(/seq=(\d+)/) || [])[1]);
  const found = frames.findIndex((f) => f.seq === wanted);
  at = found >= 0 ? found : 0;
  $("title").textContent = `${lines[0].ruleset} · ${lines[0].seats} · ${matchId}`;
  buildMoves();
  buildLog();
  chartRound = -1;
  analysed = new Map();
  show(at);
  verify(token);
  loadAnalysis(viewer, token);
}

function matchEnded() {
  return lines.some((line) => line.type === "match_ended");
}

async function loadAnalysis(viewer, token) {
  // After the end anyone may read the analysis; before it, support only (it tells of cards a
  // seat could not see), so a seat's or the public's viewer does not ask.
  const request = ++analysisRequest;
  if (!matchEnded() && viewer !== "support") {
    analysisState = "none";
    renderAnalysis(true);
    return;
  }
  analysisState = "loading";
  renderAnalysis(true);
  try {
    const result = await api("GET", `/matches/${encodeURIComponent(matchId)}/analysis`, { token });
    if (request !== analysisRequest) return;
    analysed = new Map(result.plays.map((play) => [play.seq, play]));
    analysisState = "ready";
    markMoves();
  } catch {
    if (request !== analysisRequest) return;
    analysisState = "unavailable";
  }
  renderAnalysis(true);
}

function markMoves() {
  for (const [, item] of moveItems) {
    const play = analysed.get(Number(item.dataset.seq));
    if (!play) continue;
    item.dataset.cost = play.cost.toFixed(1);
    if (play.mistake) {
      item.classList.add("mistake");
      item.title = t("cost", play.cost.toFixed(1));
    }
  }
}

function signed(points) {
  return `${points >= 0 ? "+" : "−"}${Math.abs(points).toFixed(1)}`;
}

function currentPlayFrame() {
  // The play the move list highlights: the latest card played at or before the current event.
  for (let i = at; i >= 0; i--) {
    if (frames[i].event && frames[i].event.type === "card_played") return frames[i];
  }
  return null;
}

function renderAnalysis(force = false) {
  const box = $("analysis");
  const frame = analysisState === "ready" ? currentPlayFrame() : null;
  const key = `${analysisState}:${frame ? frame.seq : "-"}`;
  if (!force && key === shownAnalysis) return;
  shownAnalysis = key;
  box.hidden = analysisState === "none";
  const parts = [h("h3", null, t("analysis"))];
  if (analysisState === "loading") parts.push(h("p", "muted", t("analysing")));
  else if (analysisState === "unavailable") parts.push(h("p", "muted", t("no_analysis")));
  else if (analysisState === "ready") {
    const play = frame ? analysed.get(frame.seq) : null;
    if (!frame) parts.push(h("p", "muted", t("analysis_hint")));
    else if (!play) parts.push(h("p", "muted", t("not_analysed", frame.seq)));
    else {
      const line = h("p", "analysis-line");
      line.dataset.seq = String(play.seq);
      line.append(
        h("span", null, t("analysis_played", play.seq, seatName(frame, play.seat), cardText(play.played), signed(play.played_points))),
        h("br"),
        h("span", null, t("analysis_best", cardText(play.best), signed(play.best_points))),
        h("br"),
        h("strong", "analysis-cost", t("cost", play.cost.toFixed(1))),
      );
      parts.push(line);
      if (play.mistake) {
        const mistake = h("p", "analysis-mistake", play.reason ? t("mistake_because", play.reason) : t("mistake"));
        mistake.dataset.testid = "analysis-mistake";
        parts.push(mistake);
      }
    }
    const worst = [...analysed.values()].filter((p) => p.mistake).sort((a, b) => b.cost - a.cost).slice(0, 5);
    if (worst.length) {
      const list = h("ul", "mistakes");
      for (const p of worst) {
        const item = h("li", null, `${p.seq}. ${cardText(p.played)} → ${cardText(p.best)} (${t("cost", p.cost.toFixed(1))})`);
        item.dataset.seq = String(p.seq);
        const jump = frames.findIndex((f) => f.seq === p.seq);
        if (jump >= 0) item.addEventListener("click", () => show(jump));
        list.append(item);
      }
      parts.push(h("h4", null, t("mistakes")), list);
    }
  }
  fill(box, ...parts);
}

function seatName(frame, seat) {
  return `${frame.names[seat] || t("seat")} (${seat})`;
}

function describe(frame) {
  const e = frame.event;
  if (!e) return "";
  if (e.type === "card_played") {
    const took = e.captured.length ? ` · ${t("took", e.captured.map(cardText).join(" "))}` : "";
    const basra = e.basra ? ` · ${t("basra", e.basra)}` : "";
    return `${t("played", seatName(frame, e.seat), cardText(e.card))}${took}${basra}${e.auto ? " (auto)" : ""}`;
  }
  if (e.type === "round_scored") return `${t("round")} ${e.round}: ${e.sides.map((s) => s.total).join(" – ")}`;
  if (e.type === "match_ended") return `${e.type} · ${e.reason} · ${e.totals.join(" – ")}`;
  if (e.type === "cards_dealt") return `${e.type} · ${t("round")} ${e.round} · deal ${e.deal}`;
  return e.type;
}

function show(index) {
  at = Math.max(0, Math.min(frames.length - 1, index));
  const frame = frames[at];
  if (!frame) return;
  $("seq").textContent = String(frame.seq);
  $("where").textContent = `${t("round")} ${frame.round} · deal ${frame.deal}${frame.carry ? " · " + t("carry", frame.carry) : ""}`;
  const rows = [];
  for (let seat = 0; seat < lines[0].seats; seat++) {
    const row = h("div", "hand-row");
    row.dataset.seat = String(seat);
    row.append(h("span", "who", seatName(frame, seat)));
    const hand = frame.hands[seat];
    if (hand) {
      const cards = h("span", "cards");
      cards.append(...hand.map((card) => cardElement(card)));
      row.append(cards);
    } else {
      row.append(backs(frame.counts[seat]));
    }
    rows.push(row);
  }
  fill($("hands"), ...rows);
  fill($("floor"), ...frame.floor.map((card) => cardElement(card)));
  fill($("scores"), ...frame.totals.map((total, side) => {
    const row = h("div", "score-row");
    row.dataset.side = String(side);
    row.append(h("span", null, `${t("side")} ${side}`), h("span", "score-value", String(total)), h("span", "muted", t("cards_left", frame.piles[side])));
    return row;
  }));
  $("last").textContent = describe(frame);
  highlightMove();
  highlightLog();
  renderAnalysis();
  if (frame.round !== chartRound) drawChart(frame.round);
  history.replaceState(null, "", `#seq=${frame.seq}`);
}

function buildMoves() {
  const list = h("ol");
  moveItems = [];
  frames.forEach((frame, i) => {
    const e = frame.event;
    let item = null;
    if (e.type === "round_started") item = h("li", "round-head", `${t("round")} ${e.round}`);
    else if (e.type === "card_played" || e.type === "round_scored" || e.type === "match_ended") {
      item = h("li", null, `${e.seq}. ${describe(frame)}`);
    }
    if (!item) return;
    item.dataset.seq = String(e.seq);
    item.addEventListener("click", () => show(i));
    list.append(item);
    moveItems.push([i, item]);
  });
  fill($("moves"), h("h3", null, t("moves")), list);
  currentMove = null;
  if (analysisState === "ready") markMoves();
}

function highlightMove() {
  let found = null;
  for (const [i, item] of moveItems) {
    if (i > at) break;
    if (!item.classList.contains("round-head")) found = item;
  }
  if (found === currentMove) return;
  if (currentMove) currentMove.classList.remove("current");
  currentMove = found;
  if (found) {
    found.classList.add("current");
    found.scrollIntoView({ block: "nearest" });
  }
}

function buildLog() {
  const support = lines.length > 1 && lines.slice(1).some((line) => "caused_by" in line);
  $("log-panel").hidden = !support;
  logRows = [];
  currentLog = null;
  if (!support) return;
  const head = h("tr");
  for (const key of ["seq", "at", "who", "request", "event"]) head.append(h("th", null, key === "seq" ? "seq" : t(key)));
  const rows = frames.map((frame) => {
    const e = frame.event;
    const row = h("tr");
    row.append(h("td", null, String(e.seq)), h("td", null, e.at), h("td", null, e.caused_by || ""), h("td", null, e.request_id || ""), h("td", null, describe(frame)));
    return row;
  });
  logRows = rows;
  fill($("log"), head, ...rows);
}

function highlightLog() {
  const row = logRows[at] || null;
  if (row === currentLog) return;
  if (currentLog) currentLog.classList.remove("current");
  currentLog = row;
  if (row) row.classList.add("current");
}

function drawChart(round) {
  chartRound = round;
  const sides = lines[0].seats === 4 ? 2 : lines[0].seats;
  const series = Array.from({ length: sides }, () => [0]);
  const labels = ["0"];
  let marker = 0;
  for (const frame of frames) {
    const e = frame.event;
    if (e.type !== "round_scored") continue;
    e.totals.forEach((total, side) => series[side].push(total));
    labels.push(String(e.round));
    if (e.round < round || (e.round === round && frames[at].event.seq >= e.seq)) marker = labels.length - 1;
  }
  fill($("chart"), lineChart(series, { width: 480, height: 160, labels, marker, testid: "score-chart" }));
}

async function verify(token) {
  const box = $("verify");
  fill(box);
  try {
    const result = await api("GET", `/matches/${encodeURIComponent(matchId)}/verification`, { token });
    const report = Array.isArray(result) ? result[0] : result;
    const divergence = report && (report.divergence || (report.ok === false ? report : null));
    if (divergence) {
      const banner = h("p", "verify-banner", t("does_not_verify", divergence.seq, divergence.kind));
      banner.dataset.testid = "verify-banner";
      banner.dataset.seq = String(divergence.seq);
      if (divergence.explanation) banner.title = divergence.explanation;
      const jump = frames.findIndex((f) => f.seq === divergence.seq);
      if (jump >= 0) banner.addEventListener("click", () => show(jump));
      fill(box, banner);
    } else {
      fill(box, h("p", "verify-ok", t("verified")));
    }
  } catch {
    /* not verifiable for this viewer yet (before the end), or the route is not on this server */
  }
}

// The keys of docs/replay-format.md ("Stepping through"), with the meanings `basra replay`
// gives them: n/space/→ and p/← by event, >/. and </, by play, } and { by complete deal,
// ] and [ by round (its opening floor), ^/Home and $/End to the first and last event.
function target(key) {
  const last = frames.length - 1;
  switch (key) {
    case "n": case " ": case "ArrowRight": return Math.min(at + 1, last);
    case "p": case "ArrowLeft": return Math.max(at - 1, 0);
    case ">": case ".": return step(stops.plays, at, 1, last);
    case "<": case ",": return step(stops.plays, at, -1, last);
    case "}": return step(stops.deals, at, 1, last);
    case "{": return step(stops.deals, at, -1, last);
    case "]": return step(stops.rounds, at, 1, last);
    case "[": return step(stops.rounds, at, -1, last);
    case "^": case "Home": return 0;
    case "$": case "End": return last;
    default: return null;
  }
}

const KEY_ROWS = [
  ["n  space  →", "key_next_event"], ["p  ←", "key_prev_event"],
  [">  .", "key_next_play"], ["<  ,", "key_prev_play"],
  ["}", "key_next_deal"], ["{", "key_prev_deal"],
  ["]", "key_next_round"], ["[", "key_prev_round"],
  ["^  Home", "key_first"], ["$  End", "key_last"],
  ["g NUMBER Enter", "key_jump"], ["v  s  0-3", "key_viewer"], ["?  h", "key_help"],
];

let jumping = null; // the digits typed after g, until Enter

function say(text) {
  $("key-message").textContent = text;
}

function buildKeyHelp() {
  const table = h("table", "list");
  for (const [keys, meaning] of KEY_ROWS) {
    const row = h("tr");
    const cell = h("td", null);
    cell.dir = "ltr";
    cell.append(...keys.split("  ").map((key) => h("kbd", null, key)));
    row.append(cell, h("td", null, t(meaning)));
    table.append(row);
  }
  fill($("key-help"), table);
}

function jumpKey(key) {
  if (key === "Enter") {
    const typed = jumping;
    jumping = null;
    say("");
    if (!typed) return;
    const found = frames.findIndex((f) => f.seq === Number(typed));
    if (found < 0) say(t("outside", typed, frames[frames.length - 1].seq));
    else show(found);
    return;
  }
  if (/^[0-9]$/.test(key)) jumping += key;
  else if (key === "Backspace") jumping = jumping.slice(0, -1);
  else {
    jumping = null;
    say(t("jump_cancelled"));
    return;
  }
  say(t("jump_prompt", frames[frames.length - 1].seq, jumping));
}

function chooseViewer(value) {
  const select = $("viewer");
  if (![...select.options].some((o) => o.value === value)) return false;
  select.value = value;
  select.dispatchEvent(new Event("change"));
  return true;
}

function viewerKey(key) {
  const select = $("viewer");
  if (key === "v") {
    const options = [...select.options].map((o) => o.value);
    chooseViewer(options[(options.indexOf(select.value) + 1) % options.length]);
  } else if (key === "s") {
    chooseViewer("support");
  } else if (!chooseViewer(`seat:${key}`)) {
    say(t("no_seat_viewer", key));
    return;
  }
  say(`${t("viewer")}: ${select.options[select.selectedIndex].textContent}`);
}

function onKey(event) {
  if (!frames.length || event.target.closest("input, select, textarea")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (jumping !== null) {
    event.preventDefault();
    jumpKey(key);
    return;
  }
  const moved = target(key);
  if (moved !== null) {
    event.preventDefault();
    say(moved === at && key !== "^" && key !== "$" && key !== "Home" && key !== "End"
      ? t(moved === frames.length - 1 ? "at_last" : "at_first") : "");
    show(moved);
  } else if (key === "g") {
    event.preventDefault();
    jumping = "";
    say(t("jump_prompt", frames[frames.length - 1].seq, ""));
  } else if (key === "?" || key === "h") {
    event.preventDefault();
    $("key-help").hidden = !$("key-help").hidden;
  } else if (key === "v" || key === "s" || /^[0-3]$/.test(key)) {
    event.preventDefault();
    viewerKey(key);
  }
}

function start() {
  languageToggle(() => {
    fillViewers();
    buildKeyHelp();
    if (frames.length) {
      buildMoves();
      buildLog();
      chartRound = -1;
      show(at);
      renderAnalysis(true);
    }
  });
  fillViewers();
  buildKeyHelp();
  const kept = seatOf(matchId);
  if (kept) $("viewer").value = `seat:${kept.seat}`;
  if (new URLSearchParams(location.search).get("viewer") === "support") $("viewer").value = "support";
  $("support-label").hidden = $("viewer").value !== "support";
  $("viewer").addEventListener("change", () => {
    $("support-label").hidden = $("viewer").value !== "support";
    if ($("viewer").value !== "support") open();
  });
  $("open").addEventListener("click", open);
  $("support-token").addEventListener("keydown", (event) => {
    if (event.key === "Enter") open();
  });
  document.addEventListener("keydown", onKey);
  $("report-slot").append(reportButton(matchId, () => seatOf(matchId)?.token || player()?.token || null));
  open();
}

start();
