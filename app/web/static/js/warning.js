// A warning from support, shown once: GET /players/me answers it in `warning` one time only
// (the server marks it seen as it answers). The lobby calls showWarning() once on load.

import { api, player } from "./api.js";
import { h } from "./cards.js";
import { t } from "./i18n.js";
import "./words_support.js";

/** Ask for this browser's player once; show a warning banner if support left one. */
export async function showWarning(parent = document.body) {
  const me = player();
  if (!me || !me.token) return null;
  let answer;
  try {
    answer = await api("GET", "/players/me", { token: me.token });
  } catch {
    return null;
  }
  if (!answer || !answer.warning) return null;
  const banner = h("section", "panel support-warning");
  banner.dataset.testid = "support-warning";
  banner.setAttribute("role", "alert");
  const ok = h("button", null, t("warning_ok"));
  ok.type = "button";
  ok.addEventListener("click", () => banner.remove());
  banner.append(h("strong", null, t("warning_title")), h("p", null, answer.warning), ok);
  parent.prepend(banner);
  return banner;
}
