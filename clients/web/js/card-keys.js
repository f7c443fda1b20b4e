// @ts-check
// The cards by keyboard: in the hand and on the felt, the arrow keys (and Home, End) move the focus
// from one card that can be chosen to the next; Enter or Space chooses it (they are buttons). Tab
// leaves the row for the action bar's choices.

const ROWS = ".hand, .table-cards";
/** @type {Record<string, number>} */
const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/** @param {KeyboardEvent} event */
function onKey(event) {
  const card = /** @type {HTMLElement | null} */ (event.target instanceof HTMLElement
    ? event.target.closest("button.card") : null);
  const row = card?.closest(ROWS);
  if (!card || !row || event.altKey || event.ctrlKey || event.metaKey) return;
  const cards = /** @type {HTMLElement[]} */ ([...row.querySelectorAll("button.card")]);
  const at = cards.indexOf(card);
  let next = -1;
  if (event.key in STEPS) next = (at + STEPS[event.key] + cards.length) % cards.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = cards.length - 1;
  if (next < 0) return;
  event.preventDefault();
  cards[next].focus();
}

/** Listen under `root`; returns the function that stops listening. @param {HTMLElement} root */
export function cardKeys(root) {
  root.addEventListener("keydown", onKey);
  return () => root.removeEventListener("keydown", onKey);
}
