// The lobby at /: the player of this browser, practice in one click, a new table, the open
// tables with filters, the ladder and each player's profile with a rating chart.

import { showWarning } from "./warning.js";
import { api, player, setPlayer, takeSeat } from "./api.js";
import { fill, h } from "./cards.js";
import { lineChart } from "./chart.js";
import { languageToggle, t } from "./i18n.js";
import { loadGames } from "./games.js";
import { confirmForget, linkHere, renderIdentity, showTokenOnce } from "./identity.js";
import { wirePool } from "./pool.js";
import "./words_lobby.js";

const MAX_NAME = 32; // the server's limit, in characters once trimmed (docs/api.md, Players)

const $ = (id) => document.getElementById(id);
let nextTables = null;
let nextLadder = null;
const ladderShown = [];

/** " · 3f9a" (the last 4 characters of the id) when another shown player has the same name. */
function tailIfShared(entry, shown) {
  const same = shown.filter((other) => other.name === entry.name && other.player_id !== entry.player_id);
  const tail = h("span", "id-tail", same.length ? ` · ${entry.player_id.slice(-4)}` : "");
  tail.dataset.tail = entry.player_id;
  return tail;
}

/** Mark again every shown name that is now shared (a later page may bring a namesake). */
function retail(table, shown) {
  for (const entry of shown) {
    const same = shown.some((other) => other.name === entry.name && other.player_id !== entry.player_id);
    for (const tail of table.querySelectorAll(`[data-tail="${entry.player_id}"]`)) tail.textContent = same ? ` · ${entry.player_id.slice(-4)}` : "";
  }
}

function showError(error) {
  $("error").textContent = error ? `${t("error")}: ${error.code || ""} ${error.message || error}` : "";
}

function renderMe() {
  const me = player();
  $("register").hidden = Boolean(me);
  $("resume").hidden = Boolean(me);
  $("link-form").hidden = Boolean(me);
  renderIdentity(showError);
  loadGames(showError);
  if (!me) {
    fill($("me"));
    return;
  }
  const link = h("a", null, me.name);
  link.href = `#player=${encodeURIComponent(me.player_id)}`;
  const out = h("button", null, t("sign_out"));
  out.type = "button";
  out.addEventListener("click", () => {
    if (!confirmForget()) return;
    setPlayer(null);
    fill($("token-once"));
    $("token-once").hidden = true;
    renderMe();
  });
  const line = h("p", null, `${t("signed_in")} `);
  line.append(link, " ", h("span", "muted", me.player_id));
  fill($("me"), line, out);
}

async function register(event) {
  event.preventDefault();
  const name = new FormData(event.target).get("name").trim();
  try {
    // Characters as the server counts them (code points), not UTF-16 units.
    if (!name || [...name].length > MAX_NAME) throw new Error(t("name") + `: 1–${MAX_NAME}`);
    const made = await api("POST", "/players", { body: { name } });
    setPlayer({ player_id: made.player_id, name: made.name, token: made.token });
    showError(null);
    renderMe();
    showTokenOnce(made.token, made.player_id);
  } catch (error) {
    showError(error);
  }
}

async function resume(event) {
  event.preventDefault();
  const token = new FormData(event.target).get("token").trim();
  try {
    const me = await api("GET", "/players/me", { token });
    setPlayer({ player_id: me.player_id, name: me.name, token });
    showError(null);
    renderMe();
  } catch (error) {
    showError(error);
  }
}

async function link(event) {
  event.preventDefault();
  const code = new FormData(event.target).get("code").trim();
  try {
    await linkHere(code);
    event.target.reset();
    showError(null);
    renderMe();
  } catch (error) {
    showError(error);
  }
}

async function createAndSit(body, seat) {
  const created = await api("POST", "/matches", { body });
  await takeSeat(created.match_id, seat);
  location.assign(`/play/${encodeURIComponent(created.match_id)}`);
}

async function practice(kind) {
  const button = kind === "strong" ? $("practice-strong") : $("practice");
  button.disabled = true;
  try {
    await createAndSit({ ruleset: "classic", seats: 2, bots: [1], bot_kind: kind }, 0);
  } catch (error) {
    button.disabled = false;
    showError(error);
  }
}

/** Offer bots and your seat only on the seats the table has; link the chosen rule set's page. */
function fitForm() {
  const form = $("create");
  const seats = Number(form.elements.seats.value);
  for (const box of form.querySelectorAll("input[name=bot]")) {
    const fits = Number(box.value) < seats;
    box.closest("label").hidden = !fits;
    if (!fits) box.checked = false;
  }
  for (const option of form.elements.seat.options) option.hidden = Number(option.value) >= seats;
  if (Number(form.elements.seat.value) >= seats) form.elements.seat.value = "0";
  $("rules-link").href = `/rules/${encodeURIComponent(form.elements.ruleset.value)}`;
}

async function create(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const seats = Number(form.get("seats"));
  const seat = Number(form.get("seat"));
  const body = {
    ruleset: form.get("ruleset"),
    seats,
    bots: form.getAll("bot").map(Number).filter((s) => s < seats && s !== seat),
  };
  if (form.get("target")) body.target = Number(form.get("target"));
  if (form.get("turn_seconds")) body.turn_seconds = Number(form.get("turn_seconds"));
  if (form.get("private")) body.private = true;
  if (form.get("closed")) body.spectators = false;
  if (form.get("strong")) body.bot_kind = "strong";
  if (form.get("bot_budget") && form.get("strong")) body.bot_budget = Number(form.get("bot_budget"));
  try {
    if (seat >= seats) throw new Error(`seat ${seat} of ${seats}`);
    await createAndSit(body, seat);
  } catch (error) {
    showError(error);
  }
}

function tableRow(table) {
  const row = h("tr");
  row.dataset.match = table.match_id;
  const players = table.players.map((p) => (p.name === null ? (p.reserved ? "…" : "—") : p.name)).join(", ");
  row.append(
    h("td", null, `${table.ruleset} · ${table.seats}`),
    h("td", null, players),
    h("td", null, t(table.status) + (table.status === "waiting" ? "" : ` ${table.scores.join("–")}`)),
  );
  const actions = h("td");
  for (const seat of table.open_seats) {
    const join = h("button", "join", `${t("join")} ${seat}`);
    join.type = "button";
    join.dataset.seat = String(seat);
    join.addEventListener("click", async () => {
      try {
        await takeSeat(table.match_id, seat);
        location.assign(`/play/${encodeURIComponent(table.match_id)}`);
      } catch (error) {
        showError(error);
      }
    });
    actions.append(join, " ");
  }
  const watch = h("a", null, table.status === "ended" ? t("replay") : t("watch"));
  watch.href = table.status === "ended" ? `/replay/${encodeURIComponent(table.match_id)}` : `/play/${encodeURIComponent(table.match_id)}`;
  actions.append(watch);
  row.append(actions);
  return row;
}

async function loadTables(more = false) {
  const form = new FormData($("filters"));
  const query = new URLSearchParams();
  for (const key of ["status", "ruleset", "seats"]) if (form.get(key)) query.set(key, form.get(key));
  query.set("limit", "20");
  if (more && nextTables) query.set("cursor", nextTables);
  try {
    const page = await api("GET", `/matches?${query}`);
    const rows = page.matches.map(tableRow);
    if (more) $("tables").append(...rows);
    else fill($("tables"), ...(rows.length ? rows : [h("tr", "muted", t("none"))]));
    nextTables = page.next;
    $("more").hidden = !nextTables;
  } catch (error) {
    showError(error);
  }
}

function rowsOf(page) {
  if (Array.isArray(page)) return page;
  return page.players || page.ladder || page.entries || page.items || [];
}

async function loadLadder(more = false) {
  const query = new URLSearchParams({ limit: "20" });
  if (more && nextLadder) query.set("cursor", nextLadder);
  if (!more) ladderShown.length = 0;
  try {
    const page = await api("GET", `/ladder?${query}`);
    const entries = rowsOf(page);
    ladderShown.push(...entries);
    const rows = entries.map((entry, i) => {
      const row = h("tr");
      row.dataset.player = entry.player_id;
      const link = h("a", null, entry.name);
      link.href = `#player=${encodeURIComponent(entry.player_id)}`;
      const name = h("td");
      name.append(link, tailIfShared(entry, ladderShown));
      const rating = h("td", null, `${Math.round(entry.rating)} ${t("deviation", Math.round(entry.rd))}`);
      if (entry.provisional) {
        const mark = h("span", "provisional", ` (${t("provisional")})`);
        mark.title = t("provisional_words");
        rating.append(mark);
      }
      row.append(h("td", null, String(entry.rank ?? i + 1)), name, rating, h("td", null, String(entry.rated_matches ?? "")), h("td", null, (entry.last_played || "").slice(0, 10)));
      return row;
    });
    const head = h("tr");
    for (const key of ["rank", "name", "rating", "games", "last_played"]) head.append(h("th", null, t(key)));
    if (more) $("ladder").append(...rows);
    else {
      const note = h("caption", "muted", t("provisional_words"));
      fill($("ladder"), note, head, ...(rows.length ? rows : [h("tr", "muted", t("none"))]));
    }
    retail($("ladder"), ladderShown);
    nextLadder = page.next || null;
    $("ladder-more").hidden = !nextLadder;
  } catch (error) {
    fill($("ladder"), h("tr", "muted", error.status === 404 || error.status === 405 ? t("unavailable") : error.message));
  }
}

async function showProfile(playerId) {
  $("profile").hidden = false;
  const body = $("profile-body");
  fill(body, h("p", "muted", "…"));
  const me = player();
  const token = me && me.player_id === playerId ? me.token : undefined;
  try {
    const profile = await api("GET", `/players/${encodeURIComponent(playerId)}`);
    const facts = h("p", null, `${profile.name} · ${t("rating")} ${Math.round(profile.rating)}${profile.provisional ? ` (${t("provisional")})` : ""} · ${t("points")} ${profile.points} · ${t("wins")} ${profile.wins} / ${t("draws")} ${profile.draws} / ${t("losses")} ${profile.losses}`);
    const parts = [facts];
    try {
      const ratings = await api("GET", `/players/${encodeURIComponent(playerId)}/ratings`);
      const values = rowsOf(ratings.ratings ? ratings.ratings : ratings).map((r) => Number(r.rating ?? r.after ?? r));
      parts.push(lineChart([[1500, ...values]], { testid: "rating-chart" }));
    } catch {
      parts.push(h("p", "muted", t("unavailable")));
    }
    try {
      const history = await api("GET", `/players/${encodeURIComponent(playerId)}/matches`, { token });
      const list = h("table", "list");
      list.dataset.testid = "history";
      const head = h("tr");
      for (const key of ["date", "ruleset", "opponents", "score", "result", "reason", "points", "rating_change"]) head.append(h("th", null, t(key)));
      list.append(head);
      for (const m of rowsOf(history.matches ? history.matches : history)) {
        const row = h("tr");
        row.dataset.match = m.match_id;
        const date = h("a", null, (m.ended || "").slice(0, 16).replace("T", " "));
        date.href = `/replay/${encodeURIComponent(m.match_id)}`;
        const when = h("td");
        when.append(date);
        const against = h("td");
        for (const o of m.opponents || []) {
          const who = h("a", null, o.name);
          who.href = `#player=${encodeURIComponent(o.player_id)}`;
          if (against.childNodes.length) against.append(", ");
          against.append(who);
        }
        const change = m.rated && m.rating_after !== null && m.rating_before !== null ? Math.round(m.rating_after - m.rating_before) : null;
        // R2: seat N plays for side N % 2; the score reads the player's side first.
        const mine = (m.totals || [])[m.seat % 2];
        const theirs = (m.totals || [])[1 - (m.seat % 2)];
        const score = mine === undefined || theirs === undefined ? "—" : `${mine}–${theirs}`;
        row.append(
          when,
          h("td", null, m.ruleset || ""),
          against,
          h("td", "score", score),
          h("td", null, t(`result_${m.result}`)),
          h("td", null, t(`reason_words_${m.reason}`)),
          h("td", null, String(m.points ?? "")),
          h("td", null, change === null ? "—" : change > 0 ? `+${change}` : String(change)),
        );
        list.append(row);
      }
      parts.push(h("h3", null, t("history")), list);
    } catch {
      /* no history on this server */
    }
    fill(body, ...parts);
  } catch (error) {
    fill(body, h("p", "muted", error.status === 404 || error.status === 405 ? t("unavailable") : error.message));
  }
}

function route() {
  const match = location.hash.match(/player=([^&]+)/);
  if (match) showProfile(decodeURIComponent(match[1]));
}

function start() {
  languageToggle(() => {
    renderMe();
    loadTables();
  });
  renderMe();
  $("register").addEventListener("submit", register);
  $("resume").addEventListener("submit", resume);
  $("practice").addEventListener("click", () => practice("easy"));
  $("practice-strong").addEventListener("click", () => practice("strong"));
  $("create").addEventListener("submit", create);
  $("create").addEventListener("change", fitForm);
  $("link-form").addEventListener("submit", link);
  wirePool(showError);
  fitForm();
  setInterval(() => loadGames(() => {}), 15000);
  $("filters").addEventListener("submit", (event) => {
    event.preventDefault();
    loadTables();
  });
  $("more").addEventListener("click", () => loadTables(true));
  $("ladder-more").addEventListener("click", () => loadLadder(true));
  window.addEventListener("hashchange", route);
  loadTables();
  loadLadder();
  route();
}

start();
showWarning(document.querySelector("main") || document.body);
