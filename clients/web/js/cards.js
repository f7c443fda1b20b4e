// @ts-check
// Cards drawn as SVG (R2 codes: rank + suit, e.g. "7H", "JD"); our own drawing, no images.
import { h, s } from "./dom.js";
import { t } from "../i18n/index.js";

export const RANKS = "A234567JQK";
export const SUITS = "CDHS";
const RED = new Set(["D", "H"]);

/** Suit pips drawn in a 100×100 box, so one path serves corners, pips and badges. */
/** @type {Record<string, string>} */
const SUIT_PATHS = {
  H: "M50 90C22 66 5 50 5 31 5 16 16 6 30 6c9 0 16 5 20 13 4-8 11-13 20-13 14 0 25 10 25 25 0 19-17 35-45 59z",
  D: "M50 4 86 50 50 96 14 50z",
  S: "M50 4c28 28 45 42 45 59 0 13-10 21-22 21-8 0-15-3-19-9 1 10 5 16 12 21H34c7-5 11-11 12-21-4 6-11 9-19 9C15 84 5 76 5 63 5 46 22 32 50 4z",
  C: "M50 8a19 19 0 0 1 15 31 19 19 0 1 1 -9 33c1 9 5 16 12 20H32c7-4 11-11 12-20a19 19 0 1 1 -9-33A19 19 0 0 1 50 8z",
};

/** Pip centres for the numeric ranks on a 60×90 face (R2: A–7 carry a value; figures do not). */
/** @type {Record<string, number[][]>} */
const PIPS = {
  A: [[30, 45]],
  2: [[30, 24], [30, 66]],
  3: [[30, 22], [30, 45], [30, 68]],
  4: [[21, 24], [39, 24], [21, 66], [39, 66]],
  5: [[21, 24], [39, 24], [30, 45], [21, 66], [39, 66]],
  6: [[21, 22], [39, 22], [21, 45], [39, 45], [21, 68], [39, 68]],
  7: [[21, 22], [39, 22], [30, 33], [21, 45], [39, 45], [21, 68], [39, 68]],
};

/** @param {string} code */
export function rankOf(code) {
  return code[0];
}

/** @param {string} code */
export function suitOf(code) {
  return code[1];
}

/** Sort a hand the way players hold it: by sequence order (R2), then suit. */
/** @param {string} a @param {string} b */
export function byRank(a, b) {
  return RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]) || SUITS.indexOf(a[1]) - SUITS.indexOf(b[1]);
}

/** @type {Record<string, string>} */
const SUIT_SIGNS = { C: "♣", D: "♦", H: "♥", S: "♠" };

/** A card in a line of text, as players write it: "7♥", "J♣". */
/** @param {string} code */
export function cardShort(code) {
  return `${code[0]}${SUIT_SIGNS[code[1]]}`;
}

/** "7 de corazones" / "Seven of hearts": what a screen reader says for a card. */
/** @param {string} code */
export function cardName(code) {
  return t("card.name", { rank: t(`rank.${code[0]}`), suit: t(`suit.${code[1]}`) });
}

/** @param {string} suit @param {number} x @param {number} y @param {number} size @param {boolean} flip */
function pip(suit, x, y, size, flip) {
  const scale = size / 100;
  const transform = `translate(${x - size / 2} ${y - size / 2}) scale(${scale})` +
    (flip ? " rotate(180 50 50)" : "");
  return s("path", { d: SUIT_PATHS[suit], transform });
}

/** @param {string} rank @param {string} suit @param {boolean} flip */
function corner(rank, suit, flip) {
  const g = s("g", { transform: flip ? "rotate(180 30 45)" : null });
  g.append(
    s("text", { x: 7, y: 15, "text-anchor": "middle", class: "card-rank" }, rank),
    pip(suit, 7, 22, 8, false),
  );
  return g;
}

/** @param {string} rank @param {string} suit */
function figure(rank, suit) {
  return s("g", { class: "card-figure" },
    s("rect", { x: 13, y: 13, width: 34, height: 64, rx: 3, class: "card-frame" }),
    s("text", { x: 30, y: 52, "text-anchor": "middle", class: "card-figure-letter" }, rank),
    pip(suit, 30, 24, 11, false),
    pip(suit, 30, 66, 11, true),
  );
}

/** The face of a card as an SVG element (decorative: the enclosing control carries the name). */
/** @param {string} code */
export function cardFace(code) {
  const rank = rankOf(code);
  const suit = suitOf(code);
  const svg = s("svg", {
    viewBox: "0 0 60 90",
    class: `card-face ${RED.has(suit) ? "is-red" : "is-black"}`,
    "aria-hidden": "true",
    focusable: "false",
  });
  svg.append(s("rect", { x: 0.5, y: 0.5, width: 59, height: 89, rx: 5, class: "card-paper" }));
  svg.append(corner(rank, suit, false), corner(rank, suit, true));
  if (PIPS[rank]) {
    const big = rank === "A" ? 30 : 13;
    for (const [x, y] of PIPS[rank]) svg.append(pip(suit, x, y, big, y > 50));
  } else {
    svg.append(figure(rank, suit));
  }
  return svg;
}

/** A face-down card: the same size, a calm woven back. */
export function cardBack() {
  return h("span.card.is-back", { "aria-hidden": "true" });
}

/**
 * A card as a control (a real <button>, so Enter and Space work and focus is visible) or as a
 * plain figure when `onPick` is absent.
 * @param {string} code
 * @param {{onPick?: ((code: string) => void) | null, pressed?: boolean | null, marks?: string[],
 *   label?: string | null, focusKey?: string | null}} [how]
 */
export function cardElement(code, { onPick = null, pressed = null, marks = [], label = null,
  focusKey = null } = {}) {
  const name = label || cardName(code);
  const classes = ["card", ...marks.map((m) => `is-${m}`)].join(".");
  if (!onPick) {
    return h(`span.${classes}`, { role: "img", "aria-label": name, dataset: { card: code } },
      cardFace(code));
  }
  // The name is text inside the button, not an aria-label: the face's corner ranks are visible
  // text that "Three of clubs" does not contain (WCAG 2.5.3, axe label-content-name-mismatch).
  return h(`button.${classes}`, {
    type: "button",
    "aria-pressed": pressed === null ? null : String(pressed),
    dataset: { card: code, focus: focusKey || `card-${code}` },
    onclick: () => onPick(code),
  }, h("span.visually-hidden", name), cardFace(code));
}
