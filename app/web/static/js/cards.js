// Card faces: every card on a page is an element with data-card (its text, e.g. "10D").

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);

/** Rank and suit of a card's text: "10D" → ["10", "D"]. */
export function parts(card) {
  return [card.slice(0, -1), card.slice(-1)];
}

/** One card face: a button when `onClick` is given, else a span. */
export function cardElement(card, { button = false } = {}) {
  const [rank, suit] = parts(card);
  const el = document.createElement(button ? "button" : "span");
  if (button) el.type = "button";
  el.className = "card " + (RED.has(suit) ? "red" : "black");
  el.dataset.card = card;
  el.setAttribute("aria-label", `${rank}${SUITS[suit]}`);
  const r = document.createElement("span");
  r.className = "rank";
  r.textContent = rank;
  const s = document.createElement("span");
  s.className = "suit";
  s.textContent = SUITS[suit];
  el.append(r, s);
  return el;
}

/** A face-down back with the number of cards it stands for (never a card's text). */
export function backs(count) {
  const el = document.createElement("span");
  el.className = "backs";
  for (let i = 0; i < count; i++) {
    const back = document.createElement("span");
    back.className = "back";
    el.append(back);
  }
  const n = document.createElement("span");
  n.className = "count";
  n.textContent = String(count);
  el.append(n);
  return el;
}

/** A card in running text: "10♦". */
export function cardText(card) {
  const [rank, suit] = parts(card);
  return rank + SUITS[suit];
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children);
  return el;
}

/** A new element with a class and text. */
export function h(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined && text !== null) el.textContent = text;
  return el;
}
