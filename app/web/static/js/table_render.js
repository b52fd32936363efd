// Drawing the table from a folded position (fold.js): the seats around it, the floor, the hand,
// the banner, the scores and the move list. The seats never mirror: your seat at the bottom,
// at 2 seats the other across; at 4 your partner across, the next seat in turn order on your
// right and the one before it on your left (R2: turn order runs 0, 1, 2, 3).

import { backs, cardElement, fill, h } from "./cards.js";
import { cardWord, cardsWords, lastPlayWords, seatName } from "./describe.js";
import { t } from "./i18n.js";

/** Where each seat sits for a viewer at `bottom`: {seat: "bottom" | "right" | "top" | "left"}. */
export function placesOf(seats, bottom) {
  const names = seats === 4 ? ["bottom", "right", "top", "left"] : ["bottom", "top"];
  const places = {};
  for (let k = 0; k < seats; k++) places[(bottom + k) % seats] = names[k];
  return places;
}

/** m:ss of a number of seconds. */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The seat boxes: name, connected, card backs and count, pile, last play and the turn clock. */
export function renderSeats(view) {
  const { shown, mine, connected } = view;
  const bottom = mine === null ? 0 : mine;
  const places = placesOf(shown.seats, bottom);
  for (const place of ["bottom", "right", "top", "left"]) {
    const slot = document.getElementById(`seat-${place}`);
    slot.hidden = !Object.values(places).includes(place);
  }
  for (let seat = 0; seat < shown.seats; seat++) {
    const slot = document.getElementById(`seat-${places[seat]}`);
    const box = h("div", "seat-box" + (shown.turn === seat && shown.status === "playing" ? " on-turn" : ""));
    box.dataset.seat = String(seat);
    const online = Boolean(connected && connected[seat]);
    const isBot = shown.bots.includes(seat);
    const head = h("div", "seat-head");
    const dot = h("span", "presence" + (isBot ? " bot" : online ? " on" : " off"));
    dot.dataset.connected = String(online);
    dot.title = isBot ? t("bot") : online ? t("connected") : t("disconnected");
    dot.setAttribute("aria-label", dot.title);
    head.append(dot, h("span", "seat-name", seatName(shown, seat, mine)));
    const clock = h("span", "seat-clock");
    clock.dataset.testid = "seat-clock";
    clock.dataset.seat = String(seat);
    clock.hidden = true;
    head.append(clock);
    box.append(head);
    const cards = h("div", "seat-cards");
    if (seat !== mine) {
      const held = backs(shown.counts[seat] || 0);
      held.setAttribute("aria-label", t("in_hand", shown.counts[seat] || 0));
      cards.append(held);
    }
    const pile = h("span", "pile");
    pile.dataset.count = String(shown.seatPiles[seat] || 0);
    pile.append(h("span", "pile-back"), h("span", "count", t("pile_n", shown.seatPiles[seat] || 0)));
    cards.append(pile);
    box.append(cards);
    const fresh = shown.lastPlay[seat] && shown.lastPlay[seat].seq === shown.seq;
    const last = h("p", "last-play" + (fresh ? " fresh" : ""), lastPlayWords(shown.lastPlay[seat]));
    last.dataset.testid = "last-play";
    last.dataset.seat = String(seat);
    if (shown.lastPlay[seat]) last.dataset.seq = String(shown.lastPlay[seat].seq);
    box.append(last);
    fill(slot, box);
  }
}

/** The turn clock beside the seat on turn: m:ss of the real deadline, urgent in the last 15 s. */
export function tickClocks(view, nowMs) {
  const { shown, truth } = view;
  for (const clock of document.querySelectorAll("[data-testid=seat-clock]")) {
    const seat = Number(clock.dataset.seat);
    const live = truth.status === "playing" && truth.turn === seat && shown.turn === seat && truth.deadline;
    clock.hidden = !live;
    if (!live) continue;
    const left = (Date.parse(truth.deadline) - nowMs) / 1000;
    clock.textContent = clockText(left);
    clock.classList.toggle("urgent", left <= 15);
    clock.setAttribute("aria-label", t("clock_of", seatName(shown, seat, view.mine), clockText(left)));
  }
}

function sameCards(el, cards) {
  const shown = el.children;
  if (shown.length !== cards.length) return false;
  for (let i = 0; i < cards.length; i++) if (shown[i].dataset.card !== cards[i]) return false;
  return true;
}

/** The floor in arrival order (R12), the trail marked, a preview's take marked. */
export function renderFloor(view) {
  const { shown, preview, selected, mine, history } = view;
  const floor = document.getElementById("floor");
  if (!sameCards(floor, shown.floor)) fill(floor, ...shown.floor.map((card) => cardElement(card)));
  const takes = new Set(preview ? preview.captured : []);
  for (const el of floor.children) {
    if (takes.has(el.dataset.card)) el.dataset.take = "";
    else delete el.dataset.take;
    el.classList.toggle("trail", el.dataset.card === shown.trail);
    delete el.dataset.captured;
  }
  floor.classList.toggle("playable", !history && Boolean(selected) && shown.turn === mine);
}

/** The viewer's hand, as buttons; `onTap(card)` on each. */
export function renderHand(view, onTap) {
  const { shown, mine, selected } = view;
  const el = document.getElementById("hand");
  const hand = mine === null ? [] : shown.hands[mine] || [];
  if (!sameCards(el, hand)) {
    fill(el, ...hand.map((card) => {
      const button = cardElement(card, { button: true });
      button.addEventListener("click", () => onTap(card));
      return button;
    }));
  }
  for (const button of el.children) {
    const picked = button.dataset.card === selected;
    button.classList.toggle("selected", picked);
    button.setAttribute("aria-pressed", String(picked));
    button.disabled = view.history;
  }
  el.hidden = mine === null;
}

/** The banner: whose turn, the cards left to deal, the carry; data-seq is the position shown. */
export function renderBanner(view) {
  const { shown, mine } = view;
  const parts = [];
  if (shown.status === "waiting") parts.push(h("span", "waiting", t("waiting_players")));
  if (shown.status === "playing") {
    if (typeof shown.stock === "number") parts.push(h("span", "stock", t("stock", shown.stock)));
    if (shown.carry) parts.push(h("span", "carry", t("carry", shown.carry)));
    if (shown.turn !== null && shown.turn !== undefined) {
      const yours = shown.turn === mine;
      parts.push(h("span", "turn" + (yours ? " yours" : ""), yours ? t("turn_you") : t("turn_of", seatName(shown, shown.turn, mine))));
    }
  }
  if (shown.status === "ended") parts.push(h("span", "ended", t("ended")));
  if (view.history) parts.push(h("span", "history-note", t("earlier", shown.seq)));
  const banner = document.getElementById("banner");
  fill(banner, ...parts);
  banner.dataset.seq = String(shown.seq);
  banner.dataset.status = shown.status;
}

/** The scores by side, the viewer's side marked. */
export function renderScores(view, sideNamesOf) {
  const { shown, mine } = view;
  const rows = shown.totals.map((score, side) => {
    const row = h("div", "score-row" + (mine !== null && (shown.seats === 4 ? mine % 2 : mine) === side ? " mine" : ""));
    row.dataset.side = String(side);
    row.append(h("span", "score-names", sideNamesOf(side)), h("span", "score-value", String(score)));
    return row;
  });
  fill(document.getElementById("scores"), ...rows);
}

/** The move list: every play shown so far, grouped by round and deal, each a button. */
export function renderMoves(frames, upto, mine, current, onChoose) {
  const list = document.getElementById("move-list-items");
  const items = [];
  let round = 0;
  let deal = 0;
  for (let i = 0; i <= upto && i < frames.length; i++) {
    const frame = frames[i];
    const e = frame.event;
    if (e.type === "round_started") {
      round = e.round;
      items.push(h("li", "round-head", t("round_n", round)));
    }
    if (e.type === "cards_dealt") {
      deal = e.deal;
      items.push(h("li", "deal-head", t("deal_n", deal)));
    }
    if (e.type !== "card_played") continue;
    const before = i > 0 ? frames[i - 1] : frame;
    const li = h("li", "move" + (e.basra ? " basra" : "") + (current === i ? " current" : ""));
    li.dataset.seq = String(e.seq);
    li.dataset.round = String(round);
    li.dataset.deal = String(deal);
    const button = h("button", "move-button");
    button.type = "button";
    const who = h("span", "who", seatName(before, e.seat, mine));
    const card = h("span", "played", cardWord(e.card));
    button.append(who, card);
    if (e.captured.length) button.append(h("span", "took", "→ " + cardsWords(e.captured)));
    if (e.basra) button.append(h("span", "mark basra-mark", t("basra_mark", e.basra)));
    if (e.auto) button.append(h("span", "mark clock-mark", t("clock_mark")));
    button.addEventListener("click", () => onChoose(i));
    li.append(button);
    items.push(li);
  }
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  fill(list, ...items);
  if (atEnd && current === null) list.scrollTop = list.scrollHeight;
}
