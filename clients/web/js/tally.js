// @ts-check
// Traditional Ecuadorian score keeping: points come in twos, kept with chips (often the 8s, 9s and
// 10s left out of the pack): a face-up chip (tanto) is 2 points, a face-down one (perro) is 10.

/** Split a score into perros (10 each) and tantos (2 each): 26 → {perros: 2, tantos: 3}. */
/** @param {number} score */
export function tantosAndPerros(score) {
  const points = Math.max(0, Math.floor(score));
  return { perros: Math.floor(points / 10), tantos: Math.floor((points % 10) / 2) };
}
