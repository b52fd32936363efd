// The lobby at /: the player of this browser, practice in one click, a new table, the open
// tables with filters, the ladder and each player's profile with a rating chart.

import { api, player, setPlayer, takeSeat } from "./api.js";
import { fill, h } from "./cards.js";
import { lineChart } from "./chart.js";
import { languageToggle, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let nextTables = null;
let nextLadder = null;

function showError(error) {
  $("error").textContent = error ? `${t("error")}: ${error.code || ""} ${error.message || error}` : "";
}

function renderMe() {
  const me = player();
  $("register").hidden = Boolean(me);
  $("resume").hidden = Boolean(me);
  if (!me) {
    fill($("me"));
    return;
  }
  const link = h("a", null, me.name);
  link.href = `#player=${encodeURIComponent(me.player_id)}`;
  const out = h("button", null, t("sign_out"));
  out.type = "button";
  out.addEventListener("click", () => {
    setPlayer(null);
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
    const made = await api("POST", "/players", { body: { name } });
    setPlayer({ player_id: made.player_id, name: made.name, token: made.token });
    showError(null);
    renderMe();
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

async function createAndSit(body, seat) {
  const created = await api("POST", "/matches", { body });
  await takeSeat(created.match_id, seat);
  location.assign(`/play/${encodeURIComponent(created.match_id)}`);
}

async function practice() {
  $("practice").disabled = true;
  try {
    await createAndSit({ ruleset: "classic", seats: 2, bots: [1] }, 0);
  } catch (error) {
    $("practice").disabled = false;
    showError(error);
  }
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
  try {
    const page = await api("GET", `/ladder?${query}`);
    const rows = rowsOf(page).map((entry, i) => {
      const row = h("tr");
      const link = h("a", null, entry.name);
      link.href = `#player=${encodeURIComponent(entry.player_id)}`;
      const name = h("td");
      name.append(link);
      const rating = `${Math.round(entry.rating)}${entry.provisional ? "?" : ""}`;
      row.append(h("td", null, String(entry.rank ?? i + 1)), name, h("td", null, rating), h("td", null, String(entry.points ?? "")));
      return row;
    });
    if (more) $("ladder").append(...rows);
    else fill($("ladder"), ...(rows.length ? rows : [h("tr", "muted", t("none"))]));
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
      for (const m of rowsOf(history.matches ? history.matches : history)) {
        const row = h("tr");
        const link = h("a", null, m.match_id);
        link.href = `/replay/${encodeURIComponent(m.match_id)}`;
        const cell = h("td");
        cell.append(link);
        row.append(cell, h("td", null, `${m.ruleset || ""} ${m.result || ""}`), h("td", null, String(m.points ?? "")));
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
  $("practice").addEventListener("click", practice);
  $("create").addEventListener("submit", create);
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
