// What happened, in words: a play, a Basra, a sweep, the clock's play, a leave, a round's score
// and the match's result, from the event lines and the folded positions (fold.js). Names are
// text; card text is isolated so it reads the same in a right-to-left sentence.

import { cardText } from "./cards.js";
import { language, t } from "./i18n.js";
import { sideOf } from "./fold.js";

/** A card as running text, kept whole inside Arabic text (10♦ never becomes ♦10). */
export function cardWord(card) {
  const text = cardText(card);
  return language() === "ar" ? `\u2066${text}\u2069` : text;
}

/** Cards as running text, in the reader's order. */
export function cardsWords(cards) {
  return cards.map(cardWord).join(" ");
}

/** The rule set's name in the page's language. */
export function rulesetName(ruleset) {
  return t(`ruleset_${ruleset}`);
}

/** A seat's name as the table shows it: the player's name, or the bot's kind. */
export function seatName(state, seat, mine) {
  const name = state.names[seat];
  let shown = name ? (state.bots.includes(seat) ? botName(name) : name) : `${t("seat")} ${seat + 1}`;
  // Two bots at one table are told apart by their seat.
  if (state.bots.includes(seat) && state.bots.length > 1) shown = `${shown} ${seat + 1}`;
  return seat === mine ? t("you_name", shown) : shown;
}

function botName(name) {
  const kind = /^(easy|random|strong) bot$/.exec(name);
  return kind ? t(`bot_${kind[1]}`) : name;
}

/** The seats of a side, by name, joined ("Amal and Hana"; "you and Hana" for the viewer's). */
export function sideNames(state, side, mine) {
  const seats = [];
  for (let seat = 0; seat < state.seats; seat++) if (sideOf(state.seats, seat) === side) seats.push(seat);
  if (mine !== null && seats.includes(mine)) {
    const others = seats.filter((s) => s !== mine).map((s) => seatName(state, s, null));
    return others.length ? t("you_and", others.join(" ")) : t("you");
  }
  const names = seats.map((s) => seatName(state, s, null));
  return names.length === 2 ? t("and", names[0], names[1]) : names[0];
}

/** What a sweep of the whole floor is called, or null (R10, R11). */
function sweepWord(e, name) {
  if (!e.sweep || e.basra) return null;
  if (e.card[0] === "J") return t("jack_sweep", name);
  if (e.card === "7D") return t("komi_sweep", name);
  return null;
}

/** One play in words, with its card: "Amal played 7♦ and took 3♣ 4♥". */
export function playWords(state, e, mine) {
  const name = seatName(state, e.seat, mine);
  const said = e.captured.length
    ? t("played_took", name, cardWord(e.card), cardsWords(e.captured))
    : t("played_trail", name, cardWord(e.card));
  const extra = [];
  if (e.auto) extra.push(t("clock_mark"));
  if (e.basra) extra.push(t("basra_mark", e.basra));
  return extra.length ? `${said} (${extra.join(", ")})` : said;
}

/** A seat's last play beside it: "7♦ took 3♣ 4♥", or "5♣ trailed". */
export function lastPlayWords(e) {
  if (!e) return "";
  const said = e.captured.length ? t("last_took", cardWord(e.card), cardsWords(e.captured)) : t("last_trail", cardWord(e.card));
  return e.basra ? `${said} · ${t("basra_mark", e.basra)}` : said;
}

/**
 * What is announced to the whole table for an event, or null: a Basra with its points, a Jack
 * or Komi sweep, the clock's play for a seat, a seat leaving, a seat's time running out.
 * Returns {kind, text}.
 */
export function announcement(before, e, mine) {
  if (e.type === "card_played") {
    const name = seatName(before, e.seat, mine);
    if (e.auto) return { kind: "clock", text: t("clock_played", name, cardWord(e.card)) };
    if (e.basra) {
      const jack = e.card[0] === "J";
      return { kind: "basra", text: t(jack ? "jack_basra" : "basra_by", name, e.basra) };
    }
    const sweep = sweepWord(e, name);
    if (sweep) return { kind: "sweep", text: sweep };
    return null;
  }
  if (e.type === "match_ended" && typeof e.seat === "number") {
    const name = seatName(before, e.seat, mine);
    if (e.reason === "forfeit") return { kind: "leave", text: e.seat === mine ? t("you_left_table") : t("left_table", name) };
    if (e.reason === "timeout") return { kind: "clock", text: t("time_ran_out_for", name) };
  }
  return null;
}

/** The round's score in one sentence, per side: "Round 1 scored: you 38, Badr 25". */
export function roundWords(state, e, mine) {
  const parts = e.sides.map((side, i) => t("score_said", sideNames(state, i, mine), side.total));
  return t("round_said", e.round, parts.join(", "));
}

/** The match's result in words with names, never a bare reason code. */
export function resultWords(state, mine) {
  const totals = state.totals;
  const mySide = mine === null ? null : sideOf(state.seats, mine);
  const winner = state.winner;
  const other = (side) => (side === 0 ? 1 : 0);
  if (state.reason === "abandoned") return t("abandoned_said");
  const who = state.endSeat;
  if (state.reason === "forfeit" && who !== null) {
    const winners = winner === null ? "" : sideNames(state, winner, mine);
    if (who === mine) return t("you_left", winners);
    if (mySide !== null && winner === mySide) return t("you_win_forfeit", seatName(state, who, mine));
    return t("they_win_forfeit", seatName(state, who, mine), winners);
  }
  if (state.reason === "timeout" && who !== null) {
    const winners = winner === null ? "" : sideNames(state, winner, mine);
    if (who === mine) return t("you_ran_out", winners);
    if (mySide !== null && winner === mySide) return t("you_win_timeout", seatName(state, who, mine));
    return t("they_win_timeout", seatName(state, who, mine), winners);
  }
  if (winner === null || winner === undefined) return t("draw_score", totals[0], totals[1]);
  if (mySide !== null) {
    const mineScore = totals[mySide];
    const theirs = totals[other(mySide)];
    return winner === mySide ? t("won_score", mineScore, theirs) : t("lost_score", mineScore, theirs);
  }
  return t("side_won_score", sideNames(state, winner, null), totals[winner], totals[other(winner)]);
}

/** R18a: the point cards among `cards` (none in Egyptian, R15). */
export function pointCards(ruleset, cards) {
  if (ruleset === "egyptian") return [];
  return cards.filter((card) => card[0] === "J" || card[0] === "A" || card === "2C" || card === "10D");
}
