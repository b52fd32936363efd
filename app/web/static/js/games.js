// "Your games": the player's matches in play first (whose turn, time left, the opponent), then
// recent results, each opened from here; a match where it is your turn marks the page title.

import { api, player } from "./api.js";
import { fill, h } from "./cards.js";
import { t } from "./i18n.js";
import "./words_lobby.js";

const TITLE = "Basra";

function opponents(match) {
  return match.names.filter((_, seat) => seat !== match.seat).map((name) => name ?? "—").join(", ");
}

/** Time left on the turn from the recorded deadline (R25): "m:ss left", or "" without a clock. */
export function timeLeft(deadline, nowMs = Date.now()) {
  if (!deadline) return "";
  const seconds = Math.max(0, Math.floor((Date.parse(deadline) - nowMs) / 1000));
  const shown = seconds < 60 ? t("time_left_s", seconds) : t("time_left", `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`);
  return shown;
}

function row(match) {
  const out = h("tr");
  out.dataset.match = match.match_id;
  out.dataset.status = match.status;
  if (match.your_turn) out.classList.add("your-turn");
  const live = match.status !== "ended";
  let state = t(match.status);
  if (match.status === "playing") state = match.your_turn ? t("your_turn_mark") : t("their_turn", match.names[match.turn] ?? "—");
  if (match.status === "ended") state = `${t("ended")} ${match.totals.join("–")}`;
  const clock = h("td", "time-left", match.status === "playing" ? timeLeft(match.deadline) : "");
  if (match.status === "playing" && match.deadline) clock.dataset.deadline = match.deadline;
  const open = h("a", null, t("open"));
  open.href = live ? `/play/${encodeURIComponent(match.match_id)}` : `/replay/${encodeURIComponent(match.match_id)}`;
  const action = h("td");
  action.append(open);
  out.append(h("td", null, `${match.ruleset} · ${match.seats}`), h("td", "opponents", opponents(match)), h("td", "state", state), clock, action);
  return out;
}

/** Load the player's games into #games; returns how many are your turn. */
export async function loadGames(onError) {
  const me = player();
  const panel = document.getElementById("games-panel");
  panel.hidden = !me;
  if (!me) {
    document.title = TITLE;
    return 0;
  }
  try {
    const answer = await api("GET", "/players/me/matches?limit=50", { token: me.token });
    const live = answer.matches.filter((m) => m.status !== "ended");
    const ended = answer.matches.filter((m) => m.status === "ended");
    live.sort((a, b) => Number(b.your_turn) - Number(a.your_turn));
    const rows = [];
    if (live.length) rows.push(h("tr", "group", t("in_play")), ...live.map(row));
    if (ended.length) rows.push(h("tr", "group", t("recent")), ...ended.map(row));
    fill(document.getElementById("games"), ...(rows.length ? rows : [h("tr", "muted", t("none"))]));
    const turns = live.filter((m) => m.your_turn).length;
    document.title = turns ? `(${turns}) ${t("your_turn_mark")} · ${TITLE}` : TITLE;
    tick();
    return turns;
  } catch (error) {
    onError(error);
    return 0;
  }
}

/** Count every listed turn clock down once a second, from its recorded deadline. */
function tick() {
  for (const cell of document.querySelectorAll("#games td.time-left[data-deadline]")) {
    cell.textContent = timeLeft(cell.dataset.deadline);
  }
}

setInterval(tick, 1000);
