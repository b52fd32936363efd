// The HTTP API from the browser: one fetch wrapper, the tokens kept in this browser, and the
// live feed (SSE with a ticket, never a token in the address).

/** A refusal of the API, with its `code` and HTTP status. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the API; JSON in and out; throws ApiError on any 4xx/5xx. */
export async function api(method, path, { token, body, headers } = {}) {
  const sent = { ...(headers || {}) };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || "http_" + response.status, error.message || response.statusText);
  }
  return data;
}

/** The text of a replay file (JSON Lines), parsed. */
export async function replayLines(matchId, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await fetch(`/matches/${encodeURIComponent(matchId)}/replay`, { headers, cache: "no-store" });
  const text = await response.text();
  if (!response.ok) {
    let error = {};
    try { error = JSON.parse(text).error || {}; } catch { /* not the error shape */ }
    throw new ApiError(response.status, error.code || "http_" + response.status, error.message || response.statusText);
  }
  return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
}

const PLAYER_KEY = "basra.player";
const SEAT_KEY = "basra.seat.";

/** The registered player of this browser: {player_id, name, token}, or null. */
export function player() {
  try {
    return JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
  } catch {
    return null;
  }
}

/** Remember (or forget, with null) this browser's player. */
export function setPlayer(value) {
  if (value) localStorage.setItem(PLAYER_KEY, JSON.stringify(value));
  else localStorage.removeItem(PLAYER_KEY);
}

/** This browser's seat at a match: {seat, token}, or null. */
export function seatOf(matchId) {
  try {
    return JSON.parse(localStorage.getItem(SEAT_KEY + matchId) || "null");
  } catch {
    return null;
  }
}

/** Remember (or forget) this browser's seat token for a match. */
export function setSeat(matchId, value) {
  if (value) localStorage.setItem(SEAT_KEY + matchId, JSON.stringify(value));
  else localStorage.removeItem(SEAT_KEY + matchId);
}

/** Take a seat: with the player's token when there is one, else by name; the seat is kept. */
export async function takeSeat(matchId, seat, name) {
  const me = player();
  const options = me ? { token: me.token } : { body: { name: name || "Guest" } };
  const taken = await api("POST", `/matches/${encodeURIComponent(matchId)}/seats/${seat}`, options);
  setSeat(matchId, { seat: taken.seat, token: taken.token });
  return taken;
}

/**
 * Follow a match's feed. Each connection opens with a fresh ticket asked for with the token in a
 * header (anonymous: the public feed needs none); after a drop it opens again by itself from the
 * last event id it received, so nothing is missed or received twice. That id is sent as `after=`:
 * it is the server's `Last-Event-ID`, but a new EventSource cannot set that header, and the
 * browser's own reconnection would reuse a spent ticket.
 * After `match_ended` the server keeps the stream open for the rematch (`rematch_created`), then
 * ends it: that end is not a drop, so nothing is reopened.
 * Returns {close()}. `onEvent(line)` gets each event line (with its `after`); `onPresence(body)`
 * gets each `presence` message ({connected, now}: which seats have a feed open now).
 */
export function follow(matchId, token, fromSeq, onEvent, onState, onPresence) {
  let last = fromSeq;
  let source = null;
  let closed = false;
  let ended = false; // match_ended received: the stream now only waits for a rematch
  let retry = 500;
  const base = `/matches/${encodeURIComponent(matchId)}/events`;

  async function open() {
    if (closed) return;
    let url = `${base}?after=${last}`;
    try {
      if (token) {
        const { ticket } = await api("POST", `/matches/${encodeURIComponent(matchId)}/tickets`, { token });
        url += `&ticket=${encodeURIComponent(ticket)}`;
      }
    } catch (error) {
      onState && onState("offline");
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 8000);
      return;
    }
    if (closed) return;
    source = new EventSource(url);
    source.onopen = () => {
      retry = 500;
      onState && onState("live");
    };
    source.onmessage = (message) => {
      const line = JSON.parse(message.data);
      // Each event once: a message at or before the last one received is not passed on.
      if (typeof line.seq === "number") {
        if (line.seq <= last) return;
        last = line.seq;
      }
      if (line.type === "match_ended") ended = true;
      onEvent(line);
      if (line.type === "rematch_created") stop();
    };
    source.addEventListener("presence", (message) => {
      if (onPresence) onPresence(JSON.parse(message.data));
    });
    source.onerror = () => {
      // A ticket opens one connection: the browser's own retry would reuse a spent ticket.
      source.close();
      source = null;
      if (ended) stop();
      if (closed) return;
      onState && onState("offline");
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }

  function stop() {
    closed = true;
    if (source) source.close();
    source = null;
  }

  open();
  return { close: stop, lastSeq: () => last };
}

/** The match id in the page's address (/play/ID or /replay/ID). */
export function matchIdFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[1] || "");
}
