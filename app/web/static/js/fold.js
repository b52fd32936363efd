// The one fold of a match's event lines, shared by the table and the replay viewer: a position
// after each event, folded from the lines as the viewer was shown them (a hidden hand is null:
// only its count is known). A feed's line also carries `after` (whose turn, until when, the
// cards left to deal): the fold takes it as it comes. Pure: no page, no clock.

/** The side a seat plays for (R2: partners are 0+2 and 1+3). */
export function sideOf(seats, seat) {
  return seats === 4 ? seat % 2 : seat;
}

function remove(list, cards) {
  const gone = new Set(cards);
  return list.filter((card) => !gone.has(card));
}

/** The position before the first event of a match with `seats` seats. */
export function startState(seats, names) {
  const sides = seats === 4 ? 2 : seats;
  return {
    seq: 0,
    seats,
    ruleset: null,
    target: null,
    handSize: 4,
    status: "waiting",
    round: 0,
    deal: 0,
    dealer: null,
    names: [...(names || Array(seats).fill(null))],
    bots: [],
    hands: Array(seats).fill(null),
    counts: Array(seats).fill(0),
    floor: [],
    trail: null, // the card the last play left on the floor (it stays marked until the next)
    piles: Array(sides).fill(0),
    seatPiles: Array(seats).fill(0),
    taken: Array(sides).fill(null).map(() => []), // the cards each side took this round (public, R23)
    basras: Array(sides).fill(0),
    totals: Array(sides).fill(0),
    carry: 0,
    lastPlay: Array(seats).fill(null), // each seat's latest card_played line of the round
    lastScore: null, // the latest round_scored line
    turn: null,
    deadline: null,
    now: null,
    stock: null,
    chain: null,
    ended: false,
    winner: null,
    reason: null,
    endSeat: null,
    rematch: null,
    event: null,
  };
}

/** The position after one more event line `e` (a new object; `state` is left as it was). */
export function applyEvent(state, e) {
  const seats = state.seats;
  const sides = state.piles.length;
  const next = { ...state, seq: typeof e.seq === "number" ? e.seq : state.seq, event: e };
  switch (e.type) {
    case "match_created":
      next.ruleset = e.ruleset;
      next.target = e.target;
      next.handSize = e.ruleset === "lebanese" ? 6 : 4;
      next.bots = (e.bots || []).slice();
      next.names = state.names.slice();
      for (const seat of next.bots) if (!next.names[seat]) next.names[seat] = `${e.bot_kind || "easy"} bot`;
      break;
    case "seat_taken":
      next.names = state.names.slice();
      next.names[e.seat] = e.name;
      break;
    case "round_started":
      next.status = "playing";
      next.round = e.round;
      next.dealer = e.dealer;
      next.deal = 0;
      next.floor = [];
      next.trail = null;
      next.piles = Array(sides).fill(0);
      next.seatPiles = Array(seats).fill(0);
      next.taken = Array(sides).fill(null).map(() => []);
      next.basras = Array(sides).fill(0);
      next.lastPlay = Array(seats).fill(null);
      break;
    case "cards_dealt": {
      next.deal = e.deal;
      // Every hand of a deal is dealt full (R4, R16): a hidden one has the size of the others.
      const known = e.hands.find((hand) => hand !== null);
      const size = known ? known.length : state.handSize;
      next.hands = e.hands.map((hand) => (hand === null ? null : hand.slice()));
      next.counts = e.hands.map((hand) => (hand === null ? size : hand.length));
      break;
    }
    case "floor_dealt":
      next.floor = e.cards.slice();
      next.trail = null;
      break;
    case "card_played": {
      const side = sideOf(seats, e.seat);
      next.hands = state.hands.slice();
      if (next.hands[e.seat]) next.hands[e.seat] = next.hands[e.seat].filter((card) => card !== e.card);
      next.counts = state.counts.slice();
      next.counts[e.seat] = Math.max(0, next.counts[e.seat] - 1);
      next.lastPlay = state.lastPlay.slice();
      next.lastPlay[e.seat] = e;
      if (e.captured.length) {
        next.floor = remove(state.floor, e.captured);
        next.trail = null;
        next.piles = state.piles.slice();
        next.piles[side] += e.captured.length + 1;
        next.seatPiles = state.seatPiles.slice();
        next.seatPiles[e.seat] += e.captured.length + 1;
        next.taken = state.taken.slice();
        next.taken[side] = [...state.taken[side], ...e.captured, e.card];
      } else {
        next.floor = [...state.floor, e.card];
        next.trail = e.card;
      }
      if (e.basra) {
        next.basras = state.basras.slice();
        next.basras[side] += e.basra;
      }
      break;
    }
    case "round_scored":
      next.floor = [];
      next.trail = null;
      next.totals = e.totals.slice();
      next.carry = e.carry;
      next.lastScore = e;
      if (e.last_pickup && e.last_pickup.cards.length) {
        next.taken = state.taken.slice();
        next.taken[e.last_pickup.side] = [...state.taken[e.last_pickup.side], ...e.last_pickup.cards];
      }
      break;
    case "match_ended":
      next.status = "ended";
      next.ended = true;
      next.winner = e.winner;
      next.reason = e.reason;
      next.endSeat = typeof e.seat === "number" ? e.seat : null;
      next.totals = e.totals.slice();
      next.turn = null;
      next.deadline = null;
      break;
    case "rematch_created":
      next.rematch = e.match_id;
      break;
    default:
      break;
  }
  const after = e.after;
  if (after && after.seq === next.seq) {
    next.status = after.status;
    next.turn = after.turn;
    next.deadline = after.deadline;
    next.now = after.now;
    next.stock = after.stock;
    next.carry = after.carry;
    next.chain = after.chain ?? null;
    if (Array.isArray(after.connected)) next.connected = after.connected.slice();
  }
  return next;
}

/** Every frame of a parsed replay file: [header, ...event lines] → frames (one per event). */
export function framesOf(lines) {
  const header = lines[0];
  let state = startState(header.seats, header.players);
  const frames = [];
  for (const e of lines.slice(1)) {
    state = applyEvent(state, e);
    frames.push(state);
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
