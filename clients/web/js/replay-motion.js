// @ts-check
// Cards move in the replay as they do at the table: a step forward slides the played card from
// its chair's hand to the felt, and the cards a capture takes slide from the felt to the
// capturer's chair and fade. Each card is found by its code before and after the redraw (a card
// is in one place at a time), so the view never waits for a flight; with prefers-reduced-motion
// nothing moves.
const FLIGHT_MS = 420;

function reduced() {
  return globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? true;
}

/** Where each card of the replay is now, by its code. @param {HTMLElement} root */
export function cardPlaces(root) {
  /** @type {Map<string, {box: DOMRect, el: Element}>} */
  const places = new Map();
  for (const el of root.querySelectorAll(".replay-felt [data-card]")) {
    places.set(/** @type {HTMLElement} */ (el).dataset.card || "", { box: el.getBoundingClientRect(), el });
  }
  return places;
}

/**
 * After a redraw: each card that moved glides from where it was; each card gone from the felt
 * flies to the chair of `taker` (a seat) and fades there.
 * @param {HTMLElement} root
 * @param {Map<string, {box: DOMRect, el: Element}>} before
 * @param {number | null} taker
 */
export function animateMoves(root, before, taker) {
  if (reduced() || !before.size) return;
  const after = cardPlaces(root);
  for (const el of root.querySelectorAll(".replay-felt [data-card]")) {
    const card = /** @type {HTMLElement} */ (el);
    const was = before.get(card.dataset.card || "")?.box;
    const now = after.get(card.dataset.card || "")?.box;
    if (!was || !now || (Math.abs(was.left - now.left) < 1 && Math.abs(was.top - now.top) < 1)) continue;
    card.animate([{ transform: `translate(${was.left - now.left}px, ${was.top - now.top}px)` },
      { transform: "none" }], { duration: FLIGHT_MS, easing: "cubic-bezier(.2,.7,.3,1)" });
  }
  const chair = taker === null ? null : root.querySelector(`.replay-hand[data-seat="${taker}"]`);
  if (!chair) return;
  const target = chair.getBoundingClientRect();
  for (const [code, was] of before) {
    if (!after.has(code)) flyAway(/** @type {HTMLElement} */ (was.el.cloneNode(true)), was.box, target);
  }
}

/** A taken card's last flight, over the page, to the capturer's chair. @param {HTMLElement} ghost @param {DOMRect} from @param {DOMRect} to */
function flyAway(ghost, from, to) {
  Object.assign(ghost.style, { position: "fixed", left: `${from.left}px`, top: `${from.top}px`,
    width: `${from.width}px`, height: `${from.height}px`, margin: "0", zIndex: "50", pointerEvents: "none" });
  ghost.setAttribute("aria-hidden", "true");
  document.body.append(ghost);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const flight = ghost.animate([{ transform: "none", opacity: 1 },
    { transform: `translate(${dx}px, ${dy}px) scale(0.5)`, opacity: 0 }],
  { duration: FLIGHT_MS + 180, delay: 120, easing: "ease-in", fill: "forwards" });
  flight.onfinish = () => ghost.remove();
  flight.oncancel = () => ghost.remove();
}
