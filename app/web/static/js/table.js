// The table at /play/{id}. It renders from its feed: each event line is folded into the position
// it holds (fold.js, the replay viewer's fold), and shown at the table's pace (pacer.js). It asks
// `/view` only when it loads and after a gap the feed cannot fill. Tap a card to preview what it
// takes, tap it again (or the floor) to play; a tap first brings the table up to date.

import { api, follow, matchIdFromPath, player, seatOf, setSeat, takeSeat } from "./api.js";
import { motionAllowed, paceMs, settingsPanel, turnAlert } from "./alerts.js";
import { cardElement, fill, h } from "./cards.js";
import { announcement, cardWord, playWords, resultWords, roundWords, rulesetName, seatName, sideNames } from "./describe.js";
import { applyEvent, startState } from "./fold.js";
import { language, languageToggle, t } from "./i18n.js";
import { Pacer } from "./pacer.js";
import { reportButton } from "./report.js";
import { hideRoundSummary, renderResult, showRoundSummary } from "./summary.js";
import { placesOf, renderBanner, renderFloor, renderHand, renderMoves, renderScores, renderSeats, tickClocks } from "./table_render.js";
import "./words_table.js";

const matchId = matchIdFromPath();
const $ = (id) => document.getElementById(id);

let token = null; // this browser's seat token, else its player's token
let view = null; // the view asked for when the page loaded (or after a gap)
let mine = null; // the viewer's seat, or null for a spectator
let frames = []; // the position after each event received, by seq - 1 (frames[i].seq === i + 1)
let truth = null; // the latest position received
let shownIndex = -1; // the frame on screen (its index in frames), -1: the loaded view
let historyIndex = null; // a move chosen in the move list: that position, read-only
let connected = []; // the seats with a feed open now (public)
let selected = null; // the card picked up
let preview = null; // /preview's answer for it
let feed = null;
let clockOffset = 0; // the server's now minus this browser's clock
let busy = false;
let rematchId = null;
let gaps = 0;
const timings = []; // {seq, received, shown, announced}: how soon each event reached the screen
window.basraTimings = timings;

const pacer = new Pacer({
  pace: () => (motionAllowed() ? paceMs() : 0),
  isPaced: (index) => frames[index] && frames[index].event.type === "card_played",
  show: showFrame,
  onIdle: () => {
    document.body.dataset.queue = "0";
  },
});

/** The position on screen: the frame shown, or the loaded view until the feed reached it. */
function shown() {
  if (historyIndex !== null) return frames[historyIndex];
  if (shownIndex >= 0 && frames.length >= view.seq) return frames[shownIndex];
  return fromView(view);
}

/** The loaded view as a folded position (until the feed's own events have caught up to it). */
function fromView(v) {
  const state = startState(v.seats, v.names);
  return {
    ...state,
    seq: v.seq,
    ruleset: v.ruleset,
    target: v.target,
    status: v.status,
    round: v.round,
    deal: v.deal,
    dealer: v.dealer,
    bots: v.bots.slice(),
    hands: Array.from({ length: v.seats }, (_, s) => (s === v.seat ? v.hand.slice() : null)),
    counts: v.hand_counts.slice(),
    floor: v.floor.slice(),
    totals: v.scores.slice(),
    carry: v.carry,
    turn: v.turn,
    deadline: v.after ? v.after.deadline : v.deadline,
    stock: v.stock,
    winner: v.winner,
    reason: v.end_reason,
    ended: v.status === "ended",
    rematch: v.rematch,
  };
}

function myTurn(state) {
  return mine !== null && state.status === "playing" && state.turn === mine;
}

/** An event line, from the feed or from a play's answer: folded once (by seq), then queued. */
function receive(line) {
  if (typeof line.seq !== "number") return;
  const last = frames.length;
  if (line.seq <= last) return; // already folded
  if (line.seq !== last + 1) {
    fillGap();
    return;
  }
  truth = applyEvent(truth, line);
  truth.matchId = matchId;
  frames.push(truth);
  if (line.after && line.after.now) clockOffset = Date.parse(line.after.now) - Date.now();
  if (Array.isArray(line.after && line.after.connected)) connected = line.after.connected.slice();
  if (line.type === "rematch_created") rematchId = line.match_id;
  const index = frames.length - 1;
  if (!view || line.seq <= view.seq) {
    // History the page opened on: folded, not replayed on screen.
    shownIndex = Math.max(shownIndex, index);
    if (view && line.seq === view.seq) render();
    return;
  }
  timings.push({ seq: line.seq, received: Date.now(), shown: null });
  document.body.dataset.queue = String(pacer.waiting + 1);
  pacer.push(index);
  if (myTurn(truth)) catchUp();
}

/** Show what is queued at once: the viewer's turn, or a tap while the queue runs. */
function catchUp() {
  if (pacer.busy) pacer.flush();
}

/** Show frame `index`, paced over `ms` (0: at once). Returns {finish()} for a paced one. */
function showFrame(index, ms) {
  const before = index > 0 ? frames[index - 1] : startState(truth.seats);
  const frame = frames[index];
  const e = frame.event;
  const timing = timings.find((x) => x.seq === frame.seq);
  if (timing && timing.shown === null) timing.shown = Date.now();
  speak(before, e);
  const said = announcement(before, e, mine);
  if (said) announce(said, e.seq);
  if (e.type === "card_played" && ms > 0 && historyIndex === null) {
    return animatePlay(before, frame, index, ms);
  }
  shownIndex = index;
  afterShown(before, e);
  render();
  return null;
}

function afterShown(before, e) {
  if (e.type === "round_scored") showRoundSummary(before, e, mine);
  if (selected && !(shown().hands[mine] || []).includes(selected)) {
    selected = null;
    preview = null;
  }
  if (preview && preview.seq !== shown().seq) preview = null;
}

/** The played card travels from its seat to the floor; what it takes is marked, then goes to
 * the seat's pile; the position is then the frame's. */
function animatePlay(before, frame, index, ms) {
  const e = frame.event;
  const places = placesOf(frame.seats, mine === null ? 0 : mine);
  const seatBox = $(`seat-${places[e.seat]}`);
  const floor = $("floor");
  // The seat's last play beside it at once.
  const last = seatBox.querySelector("[data-testid=last-play]");
  if (last) last.textContent = "";
  for (const el of floor.children) if (e.captured.includes(el.dataset.card)) el.dataset.captured = "";
  const flying = cardElement(e.card);
  flying.classList.add("flying");
  flying.setAttribute("aria-hidden", "true");
  document.body.append(flying);
  const from = seatBox.getBoundingClientRect();
  const to = floor.getBoundingClientRect();
  const land = { x: to.left + to.width / 2 - 26, y: to.top + to.height / 2 - 37 };
  flying.style.left = `${land.x}px`;
  flying.style.top = `${land.y}px`;
  const travel = flying.animate(
    [
      { transform: `translate(${from.left + from.width / 2 - 26 - land.x}px, ${from.top + from.height / 2 - 37 - land.y}px) scale(0.8)` },
      { transform: "translate(0, 0) scale(1)" },
    ],
    { duration: Math.max(80, ms * 0.45), easing: "ease-out", fill: "forwards" },
  );
  let done = false;
  const settle = () => {
    if (done) return;
    done = true;
    travel.cancel();
    flying.remove();
    shownIndex = index;
    afterShown(before, e);
    render();
  };
  const timer = setTimeout(settle, ms * 0.6);
  return {
    finish() {
      clearTimeout(timer);
      settle();
    },
  };
}

function announce(said, seq) {
  const box = $("announce");
  const line = h("p", `announce-line ${said.kind}`, said.text);
  line.dataset.kind = said.kind;
  line.dataset.seq = String(seq);
  box.prepend(line);
  while (box.children.length > 3) box.lastChild.remove();
  box.hidden = false;
  const timing = timings.find((x) => x.seq === seq);
  if (timing) timing.announced = Date.now();
}

/** The live region: every play in words with its card, Basras, round ends, turn changes. */
function speak(before, e) {
  const lines = [];
  const said = announcement(before, e, mine);
  const after = frames.find((f) => f.seq === e.seq);
  if (e.type === "card_played") {
    lines.push(playWords(before, e, mine));
    if (said) lines.push(said.text);
  } else if (e.type === "round_scored") {
    lines.push(roundWords(before, e, mine));
  } else if (e.type === "floor_dealt") {
    lines.push(t("floor_turned", e.cards.map(cardWord).join(" ")));
  } else if (e.type === "match_ended") {
    if (said) lines.push(said.text);
    if (after) lines.push(resultWords(after, mine));
  }
  if (after && after.status === "playing" && after.turn !== before.turn && after.turn !== null) {
    lines.push(after.turn === mine ? t("turn_now_you") : t("turn_now_of", seatName(after, after.turn, mine)));
  }
  const region = $("spoken");
  for (const said of lines) {
    const p = h("p", null, said);
    p.dataset.seq = String(e.seq);
    region.append(p);
  }
  while (region.children.length > 400) region.firstChild.remove();
}

function render() {
  if (!view) return;
  const state = shown();
  const ctx = { shown: state, truth: truth || state, mine, selected, preview, history: historyIndex !== null, connected };
  renderLive();
  $("title").textContent = `${rulesetName(state.ruleset || view.ruleset)} · ${t("seats_n", state.seats)} · ${t("target_n", state.target || view.target)}`;
  $("rules-link").href = `/rules/${encodeURIComponent(view.ruleset)}`;
  renderSeats(ctx);
  renderBanner(ctx);
  renderFloor(ctx);
  renderPreview(state);
  renderHand(ctx, (card) => choose(card));
  renderScores(ctx, (side) => sideNames(state, side, mine));
  renderMoves(frames, shownIndex, mine, historyIndex, chooseMove);
  $("history-back").hidden = historyIndex === null;
  renderSeatPicker(state);
  const ended = { ...state, matchId };
  renderResult(ended, mine, { rematch, rematchId: () => rematchId, redraw: render });
  $("leave").hidden = !(mine !== null && (truth || state).status === "playing");
  turnAlert(myTurn(truth || state) && historyIndex === null, t("table_title"));
  tick();
}

function renderLive() {
  const state = $("live").dataset.state;
  $("live").textContent = state && truth && truth.status !== "ended" ? t(state) : "";
}

function renderPreview(state) {
  const el = $("preview");
  el.className = "preview";
  if (!selected) {
    el.textContent = "";
    return;
  }
  if (!preview) {
    el.textContent = cardWord(selected);
    return;
  }
  const bits = [];
  if (preview.captured.length) bits.push(t("takes", preview.captured.map(cardWord).join(" ")));
  else bits.push(t("takes_nothing"));
  if (preview.sweep) bits.push(t("sweep"));
  if (preview.basra) {
    bits.push(t("basra", preview.basra));
    el.classList.add("basra");
  }
  if (state.turn === mine) bits.push(t("play_hint"));
  el.textContent = `${cardWord(selected)}: ${bits.join(" · ")}`;
}

function tick() {
  if (!view) return;
  const state = shown();
  tickClocks({ shown: state, truth: truth || state, mine }, Date.now() + clockOffset);
}

function chooseMove(index) {
  historyIndex = index === frames.length - 1 ? null : index;
  render();
}

function leaveHistory() {
  historyIndex = null;
  render();
}

/** A tap on a card: the table first comes up to date; a second tap on the same card plays. */
async function choose(card, { tapAgainPlays = true } = {}) {
  if (busy) return;
  if (historyIndex !== null) leaveHistory();
  if (pacer.busy) {
    catchUp();
    // Acting on the current position: the card may be gone from it.
    if (!((truth.hands[mine] || []).includes(card))) return;
  }
  if (selected === card) {
    if (tapAgainPlays) await play(card);
    return;
  }
  selected = card;
  preview = null;
  render();
  focusSelected();
  try {
    const answer = await api("POST", `/matches/${encodeURIComponent(matchId)}/preview`, { token, body: { card } });
    if (selected === card) {
      preview = answer;
      render();
    }
  } catch (error) {
    showError(error);
  }
}

async function play(card) {
  if (pacer.busy) catchUp();
  if (busy || !truth || truth.turn !== mine || truth.status !== "playing") return;
  busy = true;
  const seq = truth.seq;
  try {
    const result = await api("POST", `/matches/${encodeURIComponent(matchId)}/plays`, {
      token,
      body: { card, seq },
      headers: { "Idempotency-Key": `web-${seq}-${card}` },
    });
    selected = null;
    preview = null;
    for (const line of result.events) receive(line);
    clearError();
  } catch (error) {
    showError(error);
    selected = null;
    preview = null;
    render();
  } finally {
    busy = false;
  }
}

function focusSelected() {
  const el = selected && $("hand").querySelector(`[data-card="${selected}"]`);
  if (el) el.focus();
}

function onKey(event) {
  if (event.target.closest("input, select, textarea, summary")) return;
  if (event.key === "Escape") {
    if (!$("round-summary").hidden) hideRoundSummary();
    else if (historyIndex !== null) leaveHistory();
    selected = null;
    preview = null;
    render();
    return;
  }
  if (!truth || mine === null) return;
  // Keys act on the current position, as a tap does: what is still being shown is caught up.
  if ((event.key === "ArrowLeft" || event.key === "ArrowRight") && pacer.busy) catchUp();
  const hand = shown().hands[mine] || [];
  if (!hand.length) return;
  // Keys on the other controls (the move list, the result, the summary, links) are theirs.
  if (event.target.closest("a, #move-list, #result, #round-summary, .settings, header, #seat-picker, .actions")) return;
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
  }
}

function renderSeatPicker(state) {
  const buttons = [];
  if (mine === null && state.status === "waiting") {
    for (let seat = 0; seat < state.seats; seat++) {
      if (state.names[seat] || state.bots.includes(seat)) continue;
      const button = h("button", "take-seat", t("take_seat", seat));
      button.type = "button";
      button.dataset.seat = String(seat);
      button.addEventListener("click", async () => {
        try {
          const taken = await takeSeat(matchId, seat);
          token = taken.token;
          await restart();
        } catch (error) {
          showError(error);
        }
      });
      buttons.push(button);
    }
  }
  fill($("seat-picker"), ...buttons);
}

async function rematch() {
  try {
    const next = await api("POST", `/matches/${encodeURIComponent(matchId)}/rematch`, { token });
    if (next.open_seats.includes(mine) || next.reserved.includes(mine)) {
      await takeSeat(next.match_id, mine).catch(() => null);
    }
    location.assign(`/play/${encodeURIComponent(next.match_id)}`);
  } catch (error) {
    showError(error);
  }
}

async function leave() {
  if (!confirm(t("leave"))) return;
  try {
    const answer = await api("POST", `/matches/${encodeURIComponent(matchId)}/leave`, { token });
    for (const line of answer.events) receive(line);
  } catch (error) {
    showError(error);
  }
}

/** A refusal in the page's language: its code's words, or the code itself named. */
function showError(error) {
  const code = error && error.code;
  const key = code ? `error_${code}` : "error_network";
  const words = t(key);
  $("error").textContent = words === key ? t("error_other", code) : words;
  $("error").dataset.code = code || "network";
}

function clearError() {
  $("error").textContent = "";
}

/** The view: the seat's when this browser holds a seat of the match, else the public table. */
async function loadView() {
  if (token) {
    try {
      return await api("GET", `/matches/${encodeURIComponent(matchId)}/view`, { token });
    } catch (error) {
      if (error.status !== 401 && error.status !== 403) throw error;
      const kept = seatOf(matchId);
      if (kept && kept.token === token) setSeat(matchId, null);
      token = null;
    }
  }
  return api("GET", `/matches/${encodeURIComponent(matchId)}`);
}

/** Load the view and follow the feed from the match's first event (the move list's history). */
async function restart() {
  if (feed) feed.close();
  view = await loadView();
  mine = typeof view.seat === "number" ? view.seat : null;
  connected = Array.isArray(view.connected) ? view.connected.slice() : [];
  if (view.after && view.after.now) clockOffset = Date.parse(view.after.now) - Date.now();
  frames = [];
  truth = startState(view.seats);
  truth.matchId = matchId;
  shownIndex = -1;
  render();
  startFeed(0);
}

function startFeed(fromSeq) {
  feed = follow(
    matchId,
    token,
    fromSeq,
    receive,
    (state) => {
      $("live").dataset.state = state;
      renderLive();
    },
    (presence) => {
      if (Array.isArray(presence.connected)) connected = presence.connected.slice();
      render();
    },
  );
}

/** An event arrived past one the page does not hold: read the feed again from the last one
 * held; if that cannot fill it either, start again from the view. */
function fillGap() {
  gaps += 1;
  if (feed) feed.close();
  if (gaps <= 2) {
    startFeed(frames.length);
    return;
  }
  gaps = 0;
  restart().catch(showError);
}

async function start() {
  languageToggle(() => {
    fill($("settings-slot"), settingsPanel(render));
    render();
  });
  const kept = seatOf(matchId);
  const me = player();
  token = kept ? kept.token : me ? me.token : null;
  $("floor").addEventListener("click", () => {
    if (selected) play(selected);
  });
  $("leave").addEventListener("click", leave);
  // Report the match to support: a seat with its token, a player who watched a public table.
  $("report-slot").append(reportButton(matchId, () => token || (player() && player().token) || null));
  $("history-back").addEventListener("click", leaveHistory);
  fill($("settings-slot"), settingsPanel(render));
  document.addEventListener("keydown", onKey);
  try {
    await restart();
  } catch (error) {
    showError(error);
    return;
  }
  setInterval(tick, 250);
}

start();
