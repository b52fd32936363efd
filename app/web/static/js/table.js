// The table at /play/{id}: your hand, the floor in turning order, the other seats' counts, the
// scores and the banner; tap a card to preview what it takes, tap it again (or the floor) to play.
// Live by the match's feed. Nothing is sent to the table before the second tap.

import { api, follow, matchIdFromPath, player, replayLines, seatOf, setSeat, takeSeat } from "./api.js";
import { backs, cardElement, cardText, fill, h } from "./cards.js";
import { language, languageToggle, t } from "./i18n.js";

const matchId = matchIdFromPath();
const $ = (id) => document.getElementById(id);

let token = null; // this browser's seat token, else its player's token
let view = null; // the last view: a seat's, or the public table
let selected = null; // the card picked up
let preview = null; // /preview's answer for it
let feed = null;
let clockOffset = 0; // server's now minus this browser's clock, from the last `after`
let busy = false;
let seed = null;
let refreshing = null;
let refreshAgain = false;
let rematchId = null; // the ended match's rematch, once a seat has asked for it
let endSeat = null; // the seat that left (forfeit) or ran out of time (timeout), from match_ended

const mine = () => (view && typeof view.seat === "number" ? view.seat : null);
const sideOf = (seat) => (view.seats === 4 ? seat % 2 : seat);
const nameOf = (seat) => (view.names && view.names[seat]) || `${t("seat")} ${seat}`;

function setView(next) {
  if (view && next.match_id === view.match_id && next.seq < view.seq && next.status !== "ended") return;
  view = next;
  if (view.after && view.after.now) clockOffset = Date.parse(view.after.now) - Date.now();
  if (selected && !(view.hand || []).includes(selected)) {
    selected = null;
    preview = null;
  }
  if (preview && preview.seq !== view.seq) preview = null;
  render();
}

async function load() {
  if (token) {
    try {
      setView(await api("GET", `/matches/${encodeURIComponent(matchId)}/view`, { token }));
      return;
    } catch (error) {
      if (error.status !== 401 && error.status !== 403) throw error;
      const kept = seatOf(matchId);
      if (kept && kept.token === token) setSeat(matchId, null);
      token = null;
    }
  }
  setView(await api("GET", `/matches/${encodeURIComponent(matchId)}`));
}

function refreshSoon() {
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = load()
    .catch(showError)
    .finally(() => {
      refreshing = null;
      if (refreshAgain) {
        refreshAgain = false;
        refreshSoon();
      }
    });
}

function startFeed() {
  if (feed) feed.close();
  if (view.status === "ended") return;
  feed = follow(matchId, token, view.seq, onEvent, (state) => {
    $("live").dataset.state = state;
    renderLive();
  });
}

function onEvent(line) {
  if (line.type === "match_ended") noteEnd(line);
  if (line.type === "rematch_created") {
    // Another seat asked for the next match: offer it on the result, live.
    rematchId = line.match_id;
    if (view && view.status === "ended") renderResult();
  }
  if (line.after && view && line.seq >= view.seq) {
    clockOffset = Date.parse(line.after.now) - Date.now();
  }
  if (view && line.seq > view.seq) refreshSoon();
}

async function choose(card, { tapAgainPlays = true } = {}) {
  if (busy) return;
  if (selected === card) {
    // A second tap plays; moving onto the same card by keyboard does not (Enter does).
    if (tapAgainPlays) await play(card);
    return;
  }
  selected = card;
  preview = null;
  render();
  focusSelected();
  try {
    const answer = await api("POST", `/matches/${encodeURIComponent(matchId)}/preview`, {
      token,
      body: { card },
    });
    if (selected === card) {
      preview = answer;
      render();
    }
  } catch (error) {
    showError(error);
  }
}

async function play(card) {
  if (busy || !view || view.turn !== mine() || view.status !== "playing") return;
  busy = true;
  try {
    const result = await api("POST", `/matches/${encodeURIComponent(matchId)}/plays`, {
      token,
      body: { card, seq: view.seq },
      headers: { "Idempotency-Key": `web-${view.seq}-${card}` },
    });
    selected = null;
    preview = null;
    for (const line of result.events) if (line.type === "match_ended") noteEnd(line);
    setView(result.view);
    clearError();
  } catch (error) {
    showError(error);
    refreshSoon();
  } finally {
    busy = false;
  }
}

function focusSelected() {
  const el = selected && $("hand").querySelector(`[data-card="${selected}"]`);
  if (el) el.focus();
}

function onKey(event) {
  if (!view || !view.hand || event.target.closest("input, select, textarea")) return;
  const hand = view.hand;
  if (!hand.length) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    event.preventDefault();
    // The hand reads in the page's direction: in Arabic the next card is to the left.
    const forward = (event.key === "ArrowRight") !== (language() === "ar");
    const at = hand.indexOf(selected);
    const next = at < 0 ? (forward ? 0 : hand.length - 1) : (at + (forward ? 1 : -1) + hand.length) % hand.length;
    choose(hand[next], { tapAgainPlays: false });
  } else if (event.key === "Enter" && selected) {
    event.preventDefault();
    play(selected);
  } else if (event.key === "Escape") {
    selected = null;
    preview = null;
    render();
  }
}

function renderLive() {
  const state = $("live").dataset.state;
  $("live").textContent = state && view && view.status !== "ended" ? t(state) : "";
}

function render() {
  if (!view) return;
  renderLive();
  $("title").textContent = `${view.ruleset} · ${view.seats} · ${view.match_id}`;
  renderOpponents();
  renderBanner();
  renderFloor();
  renderPreview();
  renderHand();
  renderScores();
  renderSeatPicker();
  renderResult();
  $("leave").hidden = !(mine() !== null && view.status === "playing");
}

function renderOpponents() {
  const seats = [];
  for (let seat = 0; seat < view.seats; seat++) {
    if (seat === mine()) continue;
    const box = h("div", "seat-box" + (view.turn === seat ? " on-turn" : ""));
    box.dataset.seat = String(seat);
    const label = h("span", "seat-name", nameOf(seat));
    const side = h("span", "seat-side", `${t("side")} ${sideOf(seat)}`);
    box.append(label, side, backs(view.hand_counts[seat] || 0));
    seats.push(box);
  }
  fill($("opponents"), ...seats);
}

function renderBanner() {
  const parts = [];
  if (view.status === "waiting") parts.push(h("span", "waiting", t("waiting_players")));
  if (view.status === "playing") {
    parts.push(h("span", "stock", t("stock", view.stock)));
    if (view.carry) parts.push(h("span", "carry", t("carry", view.carry)));
    if (view.turn !== null && view.turn !== undefined) {
      const who = view.turn === mine() ? t("turn_you") : t("turn_of", nameOf(view.turn));
      parts.push(h("span", "turn" + (view.turn === mine() ? " yours" : ""), who));
    }
    const clock = h("span", "countdown");
    clock.id = "countdown";
    parts.push(clock);
  }
  if (view.status === "ended") parts.push(h("span", "ended", t("ended")));
  fill($("banner"), ...parts);
  $("banner").dataset.seq = String(view.seq);
  $("banner").dataset.status = view.status;
  tick();
}

function tick() {
  const clock = $("countdown");
  if (!clock || !view) return;
  const deadline = view.after && view.after.deadline;
  if (!deadline || view.status !== "playing") {
    clock.textContent = "";
    return;
  }
  const left = Math.max(0, Math.ceil((Date.parse(deadline) - (Date.now() + clockOffset)) / 1000));
  clock.textContent = t("time_left", left);
  clock.classList.toggle("short", left <= 10);
}

function sameCards(el, cards) {
  const shown = el.children;
  if (shown.length !== cards.length) return false;
  for (let i = 0; i < cards.length; i++) if (shown[i].dataset.card !== cards[i]) return false;
  return true;
}

function renderFloor() {
  const takes = new Set(preview ? preview.captured : []);
  const floor = $("floor");
  // The same cards keep their elements: only the marks change (a tap never moves the floor).
  if (!sameCards(floor, view.floor)) fill(floor, ...view.floor.map((card) => cardElement(card)));
  for (const el of floor.children) {
    if (takes.has(el.dataset.card)) el.dataset.take = "";
    else delete el.dataset.take;
  }
  floor.classList.toggle("playable", Boolean(selected) && view.turn === mine());
}

function renderPreview() {
  const el = $("preview");
  el.className = "preview";
  if (!selected) {
    el.textContent = "";
    return;
  }
  if (!preview) {
    el.textContent = cardText(selected);
    return;
  }
  const bits = [];
  if (preview.captured.length) bits.push(t("takes", preview.captured.map(cardText).join(" ")));
  else bits.push(t("takes_nothing"));
  if (preview.sweep) bits.push(t("sweep"));
  if (preview.basra) {
    bits.push(t("basra", preview.basra));
    el.classList.add("basra");
  }
  if (view.turn === mine()) bits.push(t("play_hint"));
  el.textContent = `${cardText(selected)}: ${bits.join(" · ")}`;
}

function renderHand() {
  const hand = view.hand || [];
  const el = $("hand");
  if (!sameCards(el, hand)) {
    fill(el, ...hand.map((card) => {
      const button = cardElement(card, { button: true });
      button.addEventListener("click", () => choose(card));
      return button;
    }));
  }
  for (const button of el.children) {
    const picked = button.dataset.card === selected;
    button.classList.toggle("selected", picked);
    button.setAttribute("aria-pressed", String(picked));
  }
  el.hidden = mine() === null;
}

function renderScores() {
  const sides = view.scores.map((score, side) => {
    const seats = [];
    for (let seat = 0; seat < view.seats; seat++) if (sideOf(seat) === side) seats.push(nameOf(seat));
    const row = h("div", "score-row" + (mine() !== null && sideOf(mine()) === side ? " mine" : ""));
    row.dataset.side = String(side);
    row.append(h("span", "score-names", seats.join(" + ")), h("span", "score-value", String(score)));
    return row;
  });
  fill($("scores"), ...sides);
}

function renderSeatPicker() {
  const buttons = [];
  if (mine() === null && view.status === "waiting") {
    for (let seat = 0; seat < view.seats; seat++) {
      if (view.names[seat] !== null || view.bots.includes(seat)) continue;
      const button = h("button", "take-seat", t("take_seat", seat));
      button.type = "button";
      button.dataset.seat = String(seat);
      button.addEventListener("click", async () => {
        try {
          const taken = await takeSeat(matchId, seat);
          token = taken.token;
          await load();
          startFeed();
        } catch (error) {
          showError(error);
        }
      });
      buttons.push(button);
    }
  }
  fill($("seat-picker"), ...buttons);
}

let pointsAsked = false;
let pointsText = null;

function renderResult() {
  const el = $("result");
  if (view.status !== "ended") {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const lines = [h("h2", null, t("result"))];
  let verdict;
  if (view.winner === null || view.winner === undefined) verdict = t("draw");
  else if (mine() !== null) verdict = sideOf(mine()) === view.winner ? t("won") : t("lost");
  else verdict = t("winner_side", view.winner);
  lines.push(h("p", "verdict", `${verdict} · ${view.scores.join(" – ")} · ${t("reason")}: ${view.end_reason}`));
  // R26 and R25: say who left the table or ran out of time, to every seat.
  if (endSeat !== null && (view.end_reason === "forfeit" || view.end_reason === "timeout")) {
    const who = `${nameOf(endSeat)} (${t("seat")} ${endSeat})`;
    lines.push(h("p", "ended-by", t(view.end_reason === "forfeit" ? "left_forfeit" : "ran_out", who)));
  }
  if (view.bots.length) lines.push(h("p", "points-paid", t("practice_pays")));
  else if (pointsText) lines.push(h("p", "points-paid", pointsText));
  if (seed) {
    const p = h("p", "seed", `${t("seed")}: `);
    p.append(h("code", null, seed));
    lines.push(p);
  }
  const link = h("a", "replay-link", t("open_replay"));
  link.href = `/replay/${encodeURIComponent(matchId)}`;
  lines.push(h("p", null).appendChild(link).parentNode);
  const offered = rematchId || view.rematch;
  if (mine() !== null) {
    if (offered) lines.push(h("p", "rematch-offered", t("rematch_offered")));
    const again = h("button", "rematch", offered ? t("rematch_join") : t("rematch"));
    again.type = "button";
    again.addEventListener("click", rematch);
    lines.push(again);
  } else if (offered) {
    const watch = h("a", "rematch-watch", t("rematch_watch"));
    watch.href = `/play/${encodeURIComponent(offered)}`;
    lines.push(h("p", "rematch-offered").appendChild(watch).parentNode);
  }
  fill(el, ...lines);
  // The feed stays open after the end: it brings the rematch another seat asks for.
  if (!seed) fetchSeed();
  if (!pointsAsked && !view.bots.length) fetchPoints();
}

/** What the end line says beyond the view: the revealed seed, and who left or ran out. */
function noteEnd(line) {
  if (line.seed) seed = line.seed;
  if (typeof line.seat === "number") endSeat = line.seat;
}

async function fetchSeed() {
  try {
    const lines = await replayLines(matchId, null);
    if (lines[0] && lines[0].seed) seed = lines[0].seed;
    const end = lines.find((line) => line.type === "match_ended");
    if (end) noteEnd(end);
    if (seed) renderResult();
  } catch {
    /* the replay opens after the end; nothing to add */
  }
}

async function fetchPoints() {
  pointsAsked = true;
  const me = player();
  if (!me) return;
  try {
    const history = await api("GET", `/players/${encodeURIComponent(me.player_id)}/matches`, { token: me.token });
    const row = (history.matches || []).find((m) => m.match_id === matchId);
    if (row && typeof row.points === "number") {
      pointsText = t("points_paid", row.points);
      renderResult();
    }
  } catch {
    /* the results are not on this server */
  }
}

async function rematch() {
  try {
    // Asked again, the server answers with the rematch already made: offered or not, one call.
    const next = await api("POST", `/matches/${encodeURIComponent(matchId)}/rematch`, { token });
    if (next.open_seats.includes(mine()) || next.reserved.includes(mine())) {
      await takeSeat(next.match_id, mine()).catch(() => null);
    }
    location.assign(`/play/${encodeURIComponent(next.match_id)}`);
  } catch (error) {
    showError(error);
  }
}

async function leave() {
  if (!confirm(t("leave"))) return;
  try {
    await api("POST", `/matches/${encodeURIComponent(matchId)}/leave`, { token });
    await load();
  } catch (error) {
    showError(error);
  }
}

function showError(error) {
  $("error").textContent = `${t("error")}: ${error.code || ""} ${error.message || error}`;
}

function clearError() {
  $("error").textContent = "";
}

async function start() {
  languageToggle(render);
  const kept = seatOf(matchId);
  const me = player();
  token = kept ? kept.token : me ? me.token : null;
  $("floor").addEventListener("click", () => {
    if (selected) play(selected);
  });
  $("leave").addEventListener("click", leave);
  document.addEventListener("keydown", onKey);
  try {
    await load();
  } catch (error) {
    showError(error);
    return;
  }
  startFeed();
  setInterval(tick, 250);
}

start();
