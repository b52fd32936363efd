// The "Report" button of a match (data-testid="report"): a small form that sends
// POST /matches/{id}/reports {"category", "text"} with the seat's or the player's token.
// Used by the replay viewer; the live table adds it the same way:
//   import { reportButton } from "./report.js";  parent.append(reportButton(matchId, tokenFn));

import { api } from "./api.js";
import { h } from "./cards.js";
import { t } from "./i18n.js";
import "./words_support.js";

const CATEGORIES = ["clock", "bot", "cheating", "abuse", "bug", "other"];

/** The button and its form; `tokenOf()` gives the token to report with (or null). */
export function reportButton(matchId, tokenOf) {
  const box = h("span", "report");
  const button = h("button", "report-button", t("report"));
  button.type = "button";
  button.dataset.testid = "report";
  const form = h("form", "report-form");
  form.hidden = true;
  form.dataset.testid = "report-form";
  const select = h("select");
  select.dataset.testid = "report-category";
  for (const category of CATEGORIES) {
    const option = h("option", null, t(`cat_${category}`));
    option.value = category;
    select.append(option);
  }
  const text = h("textarea");
  text.maxLength = 1000;
  text.dataset.testid = "report-text";
  text.placeholder = t("report_text");
  const send = h("button", null, t("report_send"));
  send.type = "submit";
  send.dataset.testid = "report-send";
  const cancel = h("button", null, t("report_cancel"));
  cancel.type = "button";
  const said = h("p", "muted");
  said.dataset.testid = "report-result";
  said.setAttribute("aria-live", "polite");
  form.append(h("strong", null, t("report_title")), select, text, send, cancel);
  button.addEventListener("click", () => {
    form.hidden = !form.hidden;
  });
  cancel.addEventListener("click", () => {
    form.hidden = true;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = tokenOf();
    if (!token) {
      said.textContent = t("report_need_token");
      return;
    }
    try {
      const body = { category: select.value, text: text.value };
      const made = await api("POST", `/matches/${encodeURIComponent(matchId)}/reports`, { token, body });
      said.textContent = t("report_sent", made.case_id);
      form.hidden = true;
      text.value = "";
    } catch (error) {
      said.textContent = error.message;
    }
  });
  box.append(button, form, said);
  return box;
}
