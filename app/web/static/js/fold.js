// The positions of a replay file: one frame after each event, folded from the event lines as
// the file shows them to its viewer (a hidden hand is null: only its count is known).

function sideOf(seats, seat) {
  return seats === 4 ? seat % 2 : seat;
}

function remove(list, cards) {
  const gone = new Set(cards);
  return list.filter((card) => !gone.has(card));
}

/** Every frame of a parsed replay file: [header, ...event lines] → frames (one per event). */
export function framesOf(lines) {
  const header = lines[0];
  const seats = header.seats;
  const sides = seats === 4 ? 2 : seats;
  let state = {
    seq: 0,
    round: 0,
    deal: 0,
    dealer: null,
    names: [...(header.players || Array(seats).fill(null))],
    hands: Array(seats).fill(null),
    counts: Array(seats).fill(0),
    floor: [],
    piles: Array(sides).fill(0),
    basras: Array(sides).fill(0),
    totals: Array(sides).fill(0),
    carry: 0,
    ended: false,
    winner: null,
    reason: null,
    event: null,
  };
  const frames = [];
  for (const e of lines.slice(1)) {
    const next = { ...state, seq: e.seq, event: e };
    switch (e.type) {
      case "seat_taken":
        next.names = state.names.slice();
        next.names[e.seat] = e.name;
        break;
      case "round_started":
        next.round = e.round;
        next.dealer = e.dealer;
        next.deal = 0;
        next.floor = [];
        next.piles = Array(sides).fill(0);
        next.basras = Array(sides).fill(0);
        break;
      case "cards_dealt": {
        next.deal = e.deal;
        const known = e.hands.find((hand) => hand !== null);
        const size = known ? known.length : 4;
        next.hands = e.hands.map((hand) => (hand === null ? null : hand.slice()));
        next.counts = e.hands.map((hand) => (hand === null ? size : hand.length));
        break;
      }
      case "floor_dealt":
        next.floor = e.cards.slice();
        break;
      case "card_played": {
        const side = sideOf(seats, e.seat);
        next.hands = state.hands.slice();
        if (next.hands[e.seat]) next.hands[e.seat] = next.hands[e.seat].filter((card) => card !== e.card);
        next.counts = state.counts.slice();
        next.counts[e.seat] = Math.max(0, next.counts[e.seat] - 1);
        if (e.captured.length) {
          next.floor = remove(state.floor, e.captured);
          next.piles = state.piles.slice();
          next.piles[side] += e.captured.length + 1;
        } else {
          next.floor = [...state.floor, e.card];
        }
        if (e.basra) {
          next.basras = state.basras.slice();
          next.basras[side] += e.basra;
        }
        break;
      }
      case "round_scored":
        next.floor = [];
        next.totals = e.totals.slice();
        next.carry = e.carry;
        break;
      case "match_ended":
        next.ended = true;
        next.winner = e.winner;
        next.reason = e.reason;
        next.totals = e.totals.slice();
        break;
      default:
        break;
    }
    frames.push(next);
    state = next;
  }
  return frames;
}

/** Where the keys stop: plays, deals (the deal complete) and rounds (their opening floor). */
export function stopsOf(frames) {
  const plays = [];
  const deals = [];
  const rounds = [];
  frames.forEach((frame, i) => {
    const e = frame.event;
    if (e.type === "card_played") plays.push(i);
    if (e.type === "floor_dealt") {
      deals.push(i);
      rounds.push(i);
    }
    if (e.type === "cards_dealt" && e.deal > 1) deals.push(i);
  });
  return { plays, deals, rounds };
}

/** The next (+1) or previous (-1) stop from `at`; past the last stop, the end (or the start). */
export function step(stops, at, direction, last) {
  if (direction > 0) {
    const found = stops.find((i) => i > at);
    return found === undefined ? last : found;
  }
  for (let k = stops.length - 1; k >= 0; k--) if (stops[k] < at) return stops[k];
  return 0;
}
