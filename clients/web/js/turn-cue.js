// Your turn, unmistakably: the prompt (the action bar), the tab's title, an optional sound (off
// by default, remembered in localStorage) and, when the tab is hidden, a desktop notification if
// the person allowed them. Nothing here decides anything: it only follows "legal moves appeared".
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { remember } from "./storage.js";

let audio = null;

function beep() {
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  } catch {
    /* no audio on this device: the title and the prompt still tell */
  }
}

export function turnCue() {
  let yours = false;

  function title() {
    document.title = yours ? `● ${t("cue.title")} · ${t("app.title")}` : t("app.title");
  }

  /** Legal moves appeared (`on`) or went (`!on`) for this person. */
  function set(on) {
    if (on === yours) return;
    yours = on;
    title();
    if (!on) return;
    if (remember.sound()) beep();
    if (document.visibilityState === "hidden" && globalThis.Notification?.permission === "granted") {
      try {
        new Notification(t("cue.title"), { body: t("cue.body"), tag: "cuarenta-turn" });
      } catch {
        /* some browsers allow notifications from a service worker only */
      }
    }
  }

  /** The toolbar's switches: the sound, and asking once for notifications. */
  function controls(redraw) {
    const sound = remember.sound();
    const canAsk = globalThis.Notification?.permission === "default";
    return [
      h("button.btn.btn-small.btn-quiet", {
        type: "button", id: "turn-sound", "aria-pressed": String(sound), dataset: { focus: "sound" },
        title: t("cue.sound.tooltip"),
        onclick: () => { remember.setSound(!sound); if (!sound) beep(); redraw(); },
      }, sound ? t("cue.sound.on") : t("cue.sound.off")),
      canAsk ? h("button.btn.btn-small.btn-quiet", {
        type: "button", id: "turn-notify", dataset: { focus: "notify" },
        onclick: () => Notification.requestPermission().then(redraw, redraw),
      }, t("cue.notify")) : null,
    ];
  }

  return { set, controls, title };
}
