// @ts-check
// Brief notices for events worth a glance ("Ana hace caída: +2"), in their own strip under the
// top bar: in the page's flow, so a notice can never cover a seat, a score or the hand. The
// strip shows the newest notice of each lane (a warning for this person, a chat line, the
// table's news, your turn), so a chat line is not pushed out by the next caída; the log keeps
// them all. A phone player scrolled down to the chat or the log still sees them: the strip
// sticks to the top of the window (style.css), and moves to its bottom while the hand is up
// there, so it never lies over the cards or the buttons of the player's turn.
import { h } from "./dom.js";

const SHOW_MS = 4000;
const MAX_VISIBLE = 1;

function strip() {
  return /** @type {HTMLElement | null} */ (document.querySelector("#toasts"));
}

/** @param {Element} box @param {string} text @param {string} kind @param {string} lane @param {(() => void) | null} onclick */
function add(box, text, kind, lane, onclick) {
  const urgent = lane === "urgent";
  const item = h(onclick ? "button.toast" : "div.toast", {
    class: `toast-${kind}`, role: kind === "error" ? "alert" : null, title: text,
    type: onclick ? "button" : null, onclick, dataset: { urgent: String(urgent), lane } }, text);
  box.append(item);
  const same = [.../** @type {HTMLCollectionOf<HTMLElement>} */ (box.children)].filter((el) => el.dataset.lane === lane);
  while (same.length > MAX_VISIBLE) same.shift()?.remove();
  keepClear();
  return item;
}

/** @param {string} text */
export function toast(text, kind = "info") {
  const box = strip();
  if (!box) return;
  // A warning for this person ("a bot played for you") is not pushed out by the table's news.
  const urgent = kind === "warn" || kind === "error";
  const item = add(box, text, kind, urgent ? "urgent" : kind === "chat" ? "chat" : "news", null);
  setTimeout(() => item.remove(), urgent ? SHOW_MS * 2 : SHOW_MS);
}

/**
 * A notice that stays until `unpin(lane)` (your turn while your hand is out of sight); a tap
 * on it runs `onclick` (bring the hand into view).
 */
/** @param {string} lane @param {string} text @param {() => void} onclick */
export function pin(lane, text, onclick) {
  const box = strip();
  if (!box) return;
  const shown = box.querySelector(`[data-lane="${lane}"]`);
  if (shown?.textContent === text) return;
  add(box, text, lane, lane, onclick);
}

/** @param {string} lane */
export function unpin(lane) {
  strip()?.querySelector(`[data-lane="${lane}"]`)?.remove();
}

/** Clear the strip: a language switch or a new page must not leave an old sentence behind. */
export function clearToasts() {
  strip()?.replaceChildren();
}

/**
 * Where the stuck strip goes: at the top of the window, unless the player's hand (its cards
 * and its prompt) is there, then at the bottom. In its place in the page (not scrolled past)
 * it covers nothing and stays put.
 */
export function keepClear() {
  const box = strip();
  if (!box) return;
  const mine = document.querySelector(".mine")?.getBoundingClientRect();
  const bar = document.querySelector(".topbar")?.getBoundingClientRect();
  const stuck = window.scrollY > 0 && (!bar || bar.bottom < 0); // scrolled past its place
  const band = box.offsetHeight;
  const handAtTop = mine && mine.height && mine.top < band && mine.bottom > 0;
  const below = stuck && handAtTop && mine.bottom < window.innerHeight - band;
  box.classList.toggle("is-below", Boolean(below));
  box.style.setProperty("--strip-shift", below ? `${window.innerHeight - band}px` : "0px");
}

window.addEventListener("scroll", keepClear, { passive: true });
window.addEventListener("resize", keepClear);
