// "Play rated now": ask the rated pool (POST /pool), ask where we stand every 2 s (GET /pool/me,
// the heartbeat), and once paired take the kept seat with this browser's own client seed.

import { api, player, setSeat } from "./api.js";
import { t } from "./i18n.js";
import "./words_lobby.js";

const $ = (id) => document.getElementById(id);
const EVERY_MS = 2000;
let timer = null;

function clientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sit(matchId, seat) {
  const me = player();
  const taken = await api("POST", `/matches/${encodeURIComponent(matchId)}/seats/${seat}`, {
    token: me.token,
    body: { client_seed: clientSeed() },
  });
  setSeat(matchId, { seat: taken.seat, token: taken.token });
  location.assign(`/play/${encodeURIComponent(matchId)}`);
}

function stop() {
  if (timer) clearTimeout(timer);
  timer = null;
  $("pool-cancel").hidden = true;
  $("play-rated").disabled = false;
}

async function poll(onError) {
  const me = player();
  if (!me) return stop();
  try {
    const where = await api("GET", "/pool/me", { token: me.token });
    if (where.status === "paired") {
      $("pool-status").textContent = t("pool_found");
      stop();
      await sit(where.match_id, where.seat);
      return;
    }
    if (where.status !== "waiting") {
      $("pool-status").textContent = "";
      return stop();
    }
    $("pool-status").textContent = t("pool_waiting", Math.round(where.waited_seconds), where.window);
    timer = setTimeout(() => poll(onError), EVERY_MS);
  } catch (error) {
    stop();
    onError(error);
  }
}

/** Wire the pool's buttons; `onError` shows a refusal. */
export function wirePool(onError) {
  $("play-rated").addEventListener("click", async () => {
    const me = player();
    if (!me) return onError(new Error(t("register")));
    $("play-rated").disabled = true;
    try {
      const asked = await api("POST", "/pool", { token: me.token, body: { ruleset: $("pool-ruleset").value } });
      if (asked.match_id) {
        $("pool-status").textContent = t("pool_found");
        await sit(asked.match_id, asked.seat);
        return;
      }
      $("pool-cancel").hidden = false;
      poll(onError);
    } catch (error) {
      stop();
      onError(error);
    }
  });
  $("pool-cancel").addEventListener("click", async () => {
    const me = player();
    stop();
    $("pool-status").textContent = "";
    if (me) await api("DELETE", "/pool/me", { token: me.token }).catch(onError);
  });
}
