// @ts-check
// What a chosen hand card can do, read from the legal actions of the snapshot: the client never
// re-implements R7/R8; it only offers the server's list in a form a person can pick from.

/** A play: a hand card and the table cards it takes (none: a trail). @typedef {{type: string, card: string, take: string[]}} Play */

/** @type {(a: string[], b: string[]) => boolean} */
const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));

/** The legal plays of one hand card (R7): captures first (largest first), then the trail. */
/** @param {import("./wire.js").LegalAction[]} legal @param {string} card @returns {Play[]} */
export function playsOf(legal, card) {
  return /** @type {Play[]} */ (legal.filter((a) => a.type === "play" && a.card === card))
    .sort((a, b) => b.take.length - a.take.length);
}

/** The captures among them (a non-empty take). */
/** @param {Play[]} plays */
export function capturesOf(plays) {
  return plays.filter((a) => a.take.length > 0);
}

/** The trail, when legal (R7: always, unless capture_mandatory forbids it for this card). */
/** @param {Play[]} plays */
export function trailOf(plays) {
  return plays.find((a) => a.take.length === 0) || null;
}

/** Table cards that belong to at least one legal capture: the ones worth offering to click. */
/** @param {Play[]} plays */
export function takeableCards(plays) {
  return [...new Set(plays.flatMap((a) => a.take))];
}

/** The legal capture taking exactly the selected table cards, or null (manual sequence, R8). */
/** @param {Play[]} plays @param {string[]} selected */
export function captureMatching(plays, selected) {
  if (!selected.length) return null;
  return plays.find((a) => sameSet(a.take, selected)) || null;
}

/** Hand cards that have at least one legal play now (all of them on one's turn, R7). */
/** @param {import("./wire.js").LegalAction[]} legal @returns {Set<string>} */
export function playableCards(legal) {
  return new Set(legal.filter((a) => a.type === "play").map((a) => /** @type {string} */ (a.card)));
}

/** The first legal action of a type (take_missed, announce…, claim…). */
/** @param {import("./wire.js").LegalAction[]} legal @param {string} type */
export function legalOfType(legal, type) {
  return legal.filter((a) => a.type === type);
}
