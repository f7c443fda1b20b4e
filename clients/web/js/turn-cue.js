// @ts-check
// Your turn, unmistakably: the prompt (the action bar), the tab's title, an optional sound (off
// by default, remembered in localStorage) and, when the tab is hidden, a desktop notification if
// the person allowed them, and a notice in the strip while the hand is scrolled out of sight (a
// phone player reading the chat), which brings the hand back at a tap. Nothing here decides
// anything: it only follows "legal moves appeared".
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { remember } from "./storage.js";
import { keepClear, pin, unpin } from "./toasts.js";

/** @type {AudioContext | null} */
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

/** The player's hand and prompt, if less than half of them is in the window. */
function handOutOfSight() {
  const mine = document.querySelector(".mine");
  const box = mine?.getBoundingClientRect();
  if (!box?.height) return null;
  const seen = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
  return seen < box.height / 2 ? mine : null;
}

export function turnCue() {
  let yours = false;

  /** Your turn and your hand out of sight: say so in the strip, whose tap shows the hand. */
  function follow() {
    const mine = yours ? handOutOfSight() : null;
    if (!mine) { unpin("turn"); return; }
    const arrow = mine.getBoundingClientRect().top < 0 ? "↑" : "↓";
    const still = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    pin("turn", `${t("cue.toHand")} ${arrow}`, () => document.querySelector(".mine")
      ?.scrollIntoView({ block: "end", behavior: still ? "auto" : "smooth" }));
    keepClear();
  }
  window.addEventListener("scroll", follow, { passive: true });

  function title() {
    document.title = yours ? `● ${t("cue.title")} · ${t("app.title")}` : t("app.title");
  }

  /** Legal moves appeared (`on`) or went (`!on`) for this person. */
  /** @param {boolean} on */
  function set(on) {
    if (on === yours) return;
    yours = on;
    title();
    follow();
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
  /** @param {() => void} redraw */
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

  function close() {
    window.removeEventListener("scroll", follow);
    unpin("turn");
  }

  return { set, controls, title, follow, close };
}
