// @ts-check
// The table takes the window: its height below what sits above it, cards as large as that
// allows, the felt's cards as large as its own room allows. Sizes only: nothing here changes
// what the table shows.

/**
 * The table takes the window's height below what sits above it: nothing to scroll to.
 * @param {HTMLElement} root
 */
export function fit(root) {
  const main = root.querySelector(".table-main");
  if (!main) return;
  const page = /** @type {HTMLElement | null} */ (root.querySelector(".table-page"));
  const felt = /** @type {HTMLElement | null} */ (root.querySelector(".felt"));
  const cards = /** @type {HTMLElement | null | undefined} */ (felt?.querySelector(".table-cards"));
  // A redraw builds the page anew: it starts at the sizes of the last fit, so the measuring
  // below lays it out once, and again only when a size changes.
  for (const [name, value] of lastFit.page) page?.style.setProperty(name, value);
  for (const [name, value] of lastFit.cards) cards?.style.setProperty(name, value);
  // The room beyond a 1366x768 laptop's (a big monitor, a family TV): the cards grow in
  // proportion with it and the table's text by part of it (style.css --room, --text); a
  // laptop's or a phone's window keeps the sizes it was fitted at.
  // On the root: the top bar and the notice strip above the table grow with it.
  const room = Math.max(1, Math.min(window.innerWidth / 1366, window.innerHeight / 768));
  const text = 1 + (room - 1) * 0.6;
  setVar(document.documentElement, null, "--room", room.toFixed(3));
  setVar(document.documentElement, null, "--text", text.toFixed(3));
  const top = main.getBoundingClientRect().top + window.scrollY;
  const height = Math.max(0, Math.floor(window.innerHeight - top - 8));
  if (page) setVar(page, lastFit.page, "--fit-h", `${height}px`);
  // Cards as large as the height allows: a short table (the solo page's bar above it) gets
  // smaller cards rather than a hand below the fold.
  const card = Math.max(34, Math.min(76 * room, window.innerWidth * 0.12, (height - 260 * text) / 3.9));
  if (page) setVar(page, lastFit.page, "--card-w", `${Math.floor(card)}px`);
  if (felt && cards) fitFelt(felt, cards, Math.floor(card));
}

/**
 * Set a size only when it changed (kept in `sizes` for the next redraw): a set, even to the
 * same value, makes the browser work out the page's style and layout again.
 * @param {HTMLElement} el @param {Map<string, string> | null} sizes @param {string} name @param {string} value
 */
function setVar(el, sizes, name, value) {
  sizes?.set(name, value);
  if (el.style.getPropertyValue(name) !== value) el.style.setProperty(name, value);
}

/** The table page's and the felt cards' sizes at the last fit (one table page at a time). */
const lastFit = { page: new Map(), cards: new Map() };

/** The page's sizes go with it (a TV screen or the next page sizes itself). */
export function unfit() {
  for (const name of ["--room", "--text"]) document.documentElement.style.removeProperty(name);
}

/**
 * The felt's cards as large as its room allows, `card` at most: its lines (the last play, the
 * caída warning, the claim window) keep their height and the cards share what is left, in the
 * number of rows that makes them largest. A crowded felt or a short window (a chosen card's
 * choices below) gets smaller cards, never cards or a line cut by the felt's rim.
 * @param {HTMLElement} felt
 * @param {HTMLElement} cards the felt's cards
 * @param {number} card
 */
function fitFelt(felt, cards, card) {
  const box = getComputedStyle(felt);
  const gaps = getComputedStyle(cards);
  const gap = parseFloat(gaps.columnGap) || 0;
  const rowGap = parseFloat(gaps.rowGap) || 0;
  const width = felt.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight);
  let height = felt.clientHeight - parseFloat(box.paddingTop) - parseFloat(box.paddingBottom);
  for (const line of /** @type {HTMLCollectionOf<HTMLElement>} */ (felt.children)) {
    if (line !== cards) height -= line.offsetHeight + (parseFloat(box.rowGap) || 0);
  }
  const count = cards.children.length;
  let best = 0;
  for (let rows = 1; rows <= Math.min(count, 4); rows += 1) {
    const perRow = Math.ceil(count / rows);
    best = Math.max(best, Math.min(card, (width - (perRow - 1) * gap) / perRow,
      (height - (rows - 1) * rowGap) / rows / 1.5));
  }
  setVar(cards, lastFit.cards, "--felt-card-w", `${Math.max(16, Math.floor(best))}px`);
}

/**
 * The game starts: a player who pressed "Empezar" below the table (a phone's host) or read the
 * chat there sees the first cards dealt, since the table fills the window from the page's top
 * (fit). Only then: a reader who scrolls down later keeps her place.
 */
export function bringTableIntoView() {
  if (window.scrollY === 0) return;
  const still = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  window.scrollTo({ top: 0, behavior: still ? "auto" : "smooth" });
}
