// What a chosen hand card can do, read from the legal actions of the snapshot: the client never
// re-implements R7/R8; it only offers the server's list in a form a person can pick from.

const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));

/** The legal plays of one hand card (R7): captures first (largest first), then the trail. */
export function playsOf(legal, card) {
  return legal
    .filter((a) => a.type === "play" && a.card === card)
    .sort((a, b) => b.take.length - a.take.length);
}

/** The captures among them (a non-empty take). */
export function capturesOf(plays) {
  return plays.filter((a) => a.take.length > 0);
}

/** The trail, when legal (R7: always, unless capture_mandatory forbids it for this card). */
export function trailOf(plays) {
  return plays.find((a) => a.take.length === 0) || null;
}

/** Table cards that belong to at least one legal capture: the ones worth offering to click. */
export function takeableCards(plays) {
  return [...new Set(plays.flatMap((a) => a.take))];
}

/** The legal capture taking exactly the selected table cards, or null (manual sequence, R8). */
export function captureMatching(plays, selected) {
  if (!selected.length) return null;
  return plays.find((a) => sameSet(a.take, selected)) || null;
}

/** Hand cards that have at least one legal play now (all of them on one's turn, R7). */
export function playableCards(legal) {
  return new Set(legal.filter((a) => a.type === "play").map((a) => a.card));
}

/** The first legal action of a type (take_missed, announce…, claim…). */
export function legalOfType(legal, type) {
  return legal.filter((a) => a.type === type);
}
