// @ts-check
// Every explanation a tap away: on a phone a hover tooltip never shows, so a tap (or Enter) on
// a non-button element that carries one (the tantos and perros tally, a column of the score
// sheet, a badge, a log line with a word of the game) opens it in a small popover by the
// element; a tap elsewhere, or Escape, closes it. Buttons and links keep their own action.
import { h } from "./dom.js";

const EXPLAINED = ".tally[title], .has-tip[title], .sheet-table th[title], .badge[title], .sheet-team[title], .presence[title]";

/** @type {HTMLElement | null} */
let open = null;

function close() {
  open?.remove();
  open = null;
}

/** @param {HTMLElement} el */
function show(el) {
  close();
  const r = el.getBoundingClientRect();
  open = h("div.tap-tip", { role: "tooltip" }, el.title);
  document.body.append(open);
  const w = open.offsetWidth;
  const left = Math.max(8, Math.min(innerWidth - w - 8, r.left + r.width / 2 - w / 2));
  const below = r.bottom + 8 + open.offsetHeight < innerHeight;
  Object.assign(open.style, { left: `${left + scrollX}px`,
    top: `${(below ? r.bottom + 8 : r.top - 8 - open.offsetHeight) + scrollY}px` });
}

/** @param {Event} event */
function onTap(event) {
  const target = /** @type {HTMLElement | null} */ (event.target);
  const el = /** @type {HTMLElement | null} */ (target?.closest?.(EXPLAINED) ?? null);
  if (!el || !el.title || el.closest("button, a, summary")) { close(); return; }
  show(el);
}

document.addEventListener("click", onTap);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") close();
  const el = /** @type {HTMLElement | null} */ (event.target);
  if (event.key === "Enter" && el?.matches?.(EXPLAINED)) show(el);
});
addEventListener("scroll", close, { passive: true });
