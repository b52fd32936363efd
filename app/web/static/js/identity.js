// The player of this browser: the token shown once (Copy, Download) after registering,
// forgetting with a confirmation, linking another device with a one-use code, and the list of
// devices with revoking. A token, a code or a device list is only ever this player's own.

import { api, player, setPlayer } from "./api.js";
import { fill, h } from "./cards.js";
import { t } from "./i18n.js";
import "./words_lobby.js";

const $ = (id) => document.getElementById(id);

/** Show a new token once, with Copy and Download and what it means; gone once dismissed. */
export function showTokenOnce(token, playerId) {
  const box = $("token-once");
  const code = h("code", null, token);
  code.dataset.testid = "token";
  const copy = h("button", null, t("copy"));
  copy.type = "button";
  copy.dataset.testid = "copy-token";
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(token);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      document.execCommand("copy");
    }
    copy.textContent = t("copied");
  });
  const download = h("a", null, t("download"));
  download.href = URL.createObjectURL(new Blob([`${token}\n`], { type: "text/plain" }));
  download.download = `basra-player-${playerId}.txt`;
  download.dataset.testid = "download-token";
  const done = h("button", null, t("done_saved"));
  done.type = "button";
  done.addEventListener("click", () => {
    fill(box);
    box.hidden = true;
  });
  fill(box, h("p", null, t("token_once")), code, h("p", "warning", t("token_warning")), copy, " ", download, " ", done);
  box.hidden = false;
}

/** Ask before forgetting the player on this browser: say what is lost. */
export function confirmForget() {
  return window.confirm(t("forget_confirm"));
}

async function askCode(out) {
  const me = player();
  const made = await api("POST", "/players/me/links", { token: me.token });
  const code = h("p", "link-code", made.code);
  code.dataset.testid = "link-code";
  fill(out, h("p", null, t("link_code_is")), code);
}

async function renderDevices(list, onError) {
  const me = player();
  if (!me) return;
  try {
    const answer = await api("GET", "/players/me/devices", { token: me.token });
    const head = h("tr");
    head.append(h("th", null, t("device")), h("th", null, t("made")), h("th", null, t("last_used")), h("th"));
    const rows = answer.devices.map((device) => {
      const row = h("tr");
      row.dataset.device = device.device_id;
      const action = h("td");
      if (device.this_device) action.append(h("span", "muted", t("this_device")));
      else {
        const revoke = h("button", null, t("revoke"));
        revoke.type = "button";
        revoke.dataset.testid = "revoke";
        revoke.addEventListener("click", async () => {
          if (!window.confirm(t("revoke_confirm"))) return;
          try {
            await api("DELETE", `/players/me/devices/${encodeURIComponent(device.device_id)}`, { token: me.token });
            renderDevices(list, onError);
          } catch (error) {
            onError(error);
          }
        });
        action.append(revoke);
      }
      row.append(h("td", null, device.device_id), h("td", null, (device.made || "").slice(0, 16).replace("T", " ")), h("td", null, (device.last_used || "").replace("T", " ") + (device.last_used ? ":00" : "")), action);
      return row;
    });
    fill(list, head, ...rows);
  } catch (error) {
    onError(error);
  }
}

/** The signed-in player's devices panel: link another device, the list, revoking. */
export function renderIdentity(onError) {
  const box = $("identity");
  const me = player();
  box.hidden = !me;
  if (!me) {
    fill(box);
    return;
  }
  const out = h("div");
  const link = h("button", null, t("link_device"));
  link.type = "button";
  link.dataset.testid = "link-device";
  link.addEventListener("click", () => askCode(out).catch(onError));
  const list = h("table", "list devices");
  list.dataset.testid = "devices";
  fill(box, h("h3", null, t("devices")), list, link, out);
  renderDevices(list, onError);
}

/** Spend a code typed on this browser: it gets a token of its own for the same player. */
export async function linkHere(code) {
  const linked = await api("POST", "/players/links", { body: { code } });
  const me = await api("GET", "/players/me", { token: linked.token });
  setPlayer({ player_id: linked.player_id, name: me.name, token: linked.token });
}
