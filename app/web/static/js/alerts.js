// "Your turn" is hard to miss: the tab's title and icon change, an optional sound and an optional
// browser notification while the tab is hidden. Sound and notifications are off until the
// player switches them on (remembered in this browser); the permission is asked only then.
// The settings panel also holds the pace of other seats' plays.

import { h } from "./cards.js";
import { t } from "./i18n.js";

const PACE_KEY = "basra.pace";
const SOUND_KEY = "basra.sound";
const NOTIFY_KEY = "basra.notify";
const PACES = [0, 300, 600, 1000];
const DEFAULT_PACE = 600;

/** The pace of a play on screen, in ms: the setting, or 0 when the system asks for less motion. */
export function paceMs() {
  const kept = localStorage.getItem(PACE_KEY);
  const chosen = kept === null ? DEFAULT_PACE : Number(kept);
  if (kept === null && matchMedia("(prefers-reduced-motion: reduce)").matches) return 0;
  return Number.isFinite(chosen) && chosen >= 0 ? chosen : DEFAULT_PACE;
}

/** Whether cards may move across the screen (not when the system asks for less motion). */
export function motionAllowed() {
  return !matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function icon(color) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="${color}"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const QUIET_ICON = icon("#0f5132");
const TURN_ICON = icon("#f6c343");

let wasMyTurn = false;

/** Call after each render: on the change to the viewer's turn, alert once; title and icon follow. */
export function turnAlert(myTurn, baseTitle) {
  document.title = myTurn ? t("your_turn_title") : baseTitle;
  const link = document.querySelector("link[rel=icon]");
  if (link) link.href = myTurn ? TURN_ICON : QUIET_ICON;
  document.body.dataset.myTurn = String(myTurn);
  if (myTurn && !wasMyTurn) {
    if (localStorage.getItem(SOUND_KEY) === "on") beep();
    if (localStorage.getItem(NOTIFY_KEY) === "on" && document.hidden && "Notification" in window) {
      if (Notification.permission === "granted") new Notification(t("your_turn_title"));
    }
  }
  wasMyTurn = myTurn;
}

function beep() {
  try {
    const context = new AudioContext();
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.frequency.value = 660;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(context.destination);
    tone.start();
    tone.stop(context.currentTime + 0.18);
  } catch {
    /* no sound on this device */
  }
}

/** The settings panel: pace, sound, notifications; `onChange` redraws. */
export function settingsPanel(onChange) {
  const details = h("details", "settings");
  details.append(h("summary", null, t("settings")));
  const pace = h("select");
  pace.id = "pace";
  for (const ms of PACES) {
    const option = h("option", null, t(`pace_${ms}`));
    option.value = String(ms);
    option.selected = ms === paceMs();
    pace.append(option);
  }
  pace.addEventListener("change", () => {
    localStorage.setItem(PACE_KEY, pace.value);
    onChange();
  });
  const paceLabel = h("label", null, t("pace_label"));
  paceLabel.append(pace);
  const sound = checkbox("sound", SOUND_KEY, t("sound_label"), () => beep());
  const note = h("p", "muted notify-note");
  const notify = checkbox("notify", NOTIFY_KEY, t("notify_label"), async (box) => {
    if (!("Notification" in window)) return;
    const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    if (answer !== "granted") {
      box.checked = false;
      localStorage.setItem(NOTIFY_KEY, "off");
      note.textContent = t("notify_denied");
    }
  });
  details.append(paceLabel, sound, notify, note);
  return details;
}

function checkbox(id, key, text, onOn) {
  const label = h("label", "check");
  const box = h("input");
  box.type = "checkbox";
  box.id = id;
  box.checked = localStorage.getItem(key) === "on";
  box.addEventListener("change", () => {
    localStorage.setItem(key, box.checked ? "on" : "off");
    if (box.checked) onOn(box);
  });
  label.append(box, h("span", null, text));
  return label;
}
