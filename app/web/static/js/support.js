// The support console at /support: a named agent signs in with its token (typed here, never in
// an address) for a session cookie (HttpOnly, SameSite=Strict, Path=/support); then the case
// queue, player search and pages, and a match's investigation page with every action. Every
// text from players goes in with textContent, never as markup.

import { h } from "./cards.js";
import { languageToggle, t } from "./i18n.js";
import "./words_support.js";

const $ = (id) => document.getElementById(id);

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (data && data.error) || { code: "http_" + response.status, message: response.statusText };
    throw new Error(`${error.code}: ${error.message}`);
  }
  return data;
}

function shown(action) {
  return (...args) =>
    action(...args).catch((error) => {
      $("error").textContent = error.message;
    });
}

function table(headers, rows, classOf) {
  const el = h("table");
  const head = h("tr");
  for (const name of headers) head.append(h("th", null, name));
  el.append(head);
  rows.forEach((row, i) => {
    const tr = h("tr", classOf ? classOf(i) : null);
    for (const cell of row) {
      const td = h("td");
      if (cell instanceof Node) td.append(cell);
      else td.textContent = cell === null || cell === undefined ? "" : String(cell);
      tr.append(td);
    }
    el.append(tr);
  });
  return el;
}

function link(text, go, testid) {
  const a = h("button", "link", text);
  a.type = "button";
  if (testid) a.dataset.testid = testid;
  a.addEventListener("click", shown(go));
  return a;
}

function actionForm(label, path, extra, after, fixed = {}, text = label) {
  // One action: its reason (never empty) and any extra fields, sent as one JSON body.
  const form = h("form", "actions");
  form.dataset.testid = `action-${label}`;
  const fields = {};
  for (const name of extra) {
    const input = h("input");
    input.placeholder = name;
    input.dataset.testid = `action-${label}-${name}`;
    fields[name] = input;
    form.append(input);
  }
  const reason = h("input");
  reason.placeholder = t("console_reason");
  reason.dataset.testid = `action-${label}-reason`;
  const go = h("button", null, text);
  go.type = "submit";
  go.dataset.testid = `action-${label}-go`;
  form.append(reason, go);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { ...fixed, reason: reason.value };
    for (const [name, input] of Object.entries(fields)) {
      if (input.value) body[name] = name === "seat" ? Number(input.value) : input.value;
    }
    shown(async () => {
      await call("POST", path, body);
      $("error").textContent = "";
      await after();
    })();
  });
  return form;
}

function view(...children) {
  $("view").replaceChildren(...children);
}

async function showCases() {
  const { cases } = await call("GET", "/support/cases?status=open");
  view(
    h("h2", null, t("console_cases")),
    table(
      ["case", "opened", "match", "categories", "reports"],
      cases.map((c) => [
        link(c.case_id, () => showCase(c.case_id), "case-link"),
        c.opened,
        link(c.match_id, () => showMatch(c.match_id)),
        c.categories.join(", "),
        c.reports.length,
      ]),
    ),
  );
}

async function showCase(caseId) {
  const c = await call("GET", `/support/cases/${encodeURIComponent(caseId)}`);
  const again = () => showCase(caseId);
  view(
    h("h2", null, `${c.case_id} (${c.status})`),
    link(`match ${c.match_id}`, () => showMatch(c.match_id), "case-match"),
    table(
      ["at", "player", "category", "text"],
      c.reports.map((r) => [r.at, link(r.player_id, () => showPlayer(r.player_id)), r.category, r.text]),
    ),
    table(["at", "agent", "note"], c.notes.map((n) => [n.at, n.agent, n.text])),
    table(["at", "agent", "action", "target", "reason"], c.actions.map((a) => [a.at, a.agent, a.action, a.target, a.reason])),
    h("p", null, c.answer ? `answer: ${c.answer}` : ""),
    actionForm("note", `/support/cases/${caseId}/notes`, [], again),
    actionForm("answer", `/support/cases/${caseId}/answer`, [], again),
    actionForm("close", `/support/cases/${caseId}/close`, ["outcome"], again),
  );
}

async function search() {
  const q = $("q").value.trim();
  const { players } = await call("GET", `/support/players?q=${encodeURIComponent(q)}`);
  view(
    table(
      ["player", "name", "first seen", "matches", "rating"],
      players.map((p) => [
        link(p.player_id, () => showPlayer(p.player_id), "player-link"),
        p.name,
        p.first_seen,
        p.matches,
        `${Math.round(p.rating)} (${p.rated_matches})`,
      ]),
    ),
  );
}

async function showPlayer(playerId) {
  const page = await call("GET", `/support/players/${encodeURIComponent(playerId)}`);
  const again = () => showPlayer(playerId);
  const p = page.player;
  view(
    h("h2", null, `${p.name} · ${p.player_id}`),
    h("p", null, `rating ${Math.round(p.rating)} · ${p.points} points · ${page.suspension ? "suspended until " + (page.suspension.until || "lifted") : "not suspended"}`),
    table(["match", "ended", "outcome", "points"], page.results.map((r) => [link(r.match_id, () => showMatch(r.match_id)), r.ended, r.outcome, r.points])),
    // R29: the matches the player is in now; each can be ended as a forfeit of their side.
    table(
      ["in play", "seat", "created", "forfeit"],
      page.matches
        .filter((m) => m.status === "playing")
        .map((m) => [
          link(m.match_id, () => showMatch(m.match_id), "playing-link"),
          m.seat,
          m.created,
          actionForm(`forfeit-${m.match_id}`, `/support/matches/${m.match_id}/forfeit`, [], again, { player: playerId }, "forfeit"),
        ]),
    ),
    table(["sanction", "agent", "reason", "at"], page.sanctions.map((s) => [s.type, s.agent || "", s.reason || "", s.at])),
    table(["note", "agent", "at"], page.notes.map((n) => [n.text, n.agent, n.at])),
    actionForm("suspend", `/support/players/${playerId}/suspend`, ["until"], again),
    actionForm("lift", `/support/players/${playerId}/lift`, [], again),
    actionForm("warn", `/support/players/${playerId}/warn`, [], again),
    actionForm("rename", `/support/players/${playerId}/rename`, ["name"], again),
  );
}

function late(micros) {
  // By how much a refused play missed its deadline (R25), in µs and in ms.
  if (micros === null || micros === undefined) return "";
  return `${micros} µs (${(micros / 1000).toFixed(3)} ms)`;
}

async function showMatch(matchId) {
  const page = await call("GET", `/support/matches/${encodeURIComponent(matchId)}`);
  const again = () => showMatch(matchId);
  const rows = page.timeline;
  const analysis = h("div");
  analysis.dataset.testid = "analysis";
  const verification = page.verification.ok ? "verified: ok" : `does not verify at seq ${page.verification.divergence.seq}`;
  const replay = h("a", null, "replay with every hand");
  replay.href = `/replay/${encodeURIComponent(matchId)}?viewer=support`;
  view(
    h("h2", null, `${matchId}${page.voided ? " (voided)" : ""}`),
    h("p", null, verification),
    replay,
    table(
      ["at", "kind", "what", "seq", "seat", "who", "request", "deadline", "late", "bot"],
      rows.map((e) => [e.at, e.kind, e.what, e.seq, e.seat, e.who, e.request_id, e.deadline, late(e.late_us), e.bot]),
      (i) => (rows[i].kind === "refused" ? "refused" : rows[i].clock ? "clock" : null),
    ),
    link("analysis", async () => {
      const found = await call("GET", `/matches/${encodeURIComponent(matchId)}/analysis`).catch((e) => ({ error: e.message }));
      analysis.textContent = JSON.stringify(found).slice(0, 4000);
    }, "load-analysis"),
    analysis,
    actionForm("void", `/support/matches/${matchId}/void`, ["case_id"], again),
    // R29: end the match in play as a forfeit of a (suspended) player's side (R26).
    actionForm("forfeit", `/support/matches/${matchId}/forfeit`, ["player", "seat", "case_id"], again),
    actionForm("restore", `/support/matches/${matchId}/restore`, ["case_id"], again),
  );
}

async function signedIn() {
  const me = await call("GET", "/support/whoami");
  $("agent").textContent = me.agent;
  $("sign-in").hidden = true;
  $("sign-out").hidden = false;
  $("desk").hidden = false;
  await showCases();
}

function start() {
  languageToggle();
  $("sign-in").addEventListener("submit", (event) => {
    event.preventDefault();
    shown(async () => {
      await call("POST", "/support/session", { token: $("token").value });
      $("token").value = "";
      $("error").textContent = "";
      await signedIn();
    })();
  });
  $("sign-out").addEventListener("click", shown(async () => {
    await call("POST", "/support/session/end");
    location.reload();
  }));
  $("show-cases").addEventListener("click", shown(showCases));
  $("search").addEventListener("click", shown(search));
  $("open-match").addEventListener("click", shown(() => showMatch($("match-id").value.trim())));
  signedIn().catch(() => {});
}

start();
