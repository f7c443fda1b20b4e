// @ts-check
// Every play seen: the played card travels from its seat (or your hand) to the table; a capture
// lands on the cards it takes, rests there a moment, and then all of them slide to the capturing
// player's chair, where the team's pile in the score box counts them with a pulse. As on
// BoardGameArena, a card moves between the places of the table (chair, felt, chair) and never
// over the score panel: a path that would touch it (the chair across sits right below it) keeps
// below it. A caída, a limpia or a ronda gets a moment of its own. Pure decoration over the page
// (a fixed, click-through layer): the model and the server's messages never wait for it, and
// with prefers-reduced-motion nothing moves at all.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { cardElement } from "./cards.js";
import { teamOf } from "./seats.js";

const FLIGHT_MS = 440; // chair to felt
const REST_MS = 180; // a capture lies on the cards it takes
const GATHER_MS = 400; // felt to the capturer's chair
const BURST_MS = 1400;
const FROM_CHAIR = 0.5; // a card leaves a chair (its fan of backs) at half size
const TO_CHAIR = 0.42;

/** @typedef {{x: number, y: number, scale: number}} Spot */
/** @typedef {{left: number, top: number, width: number, height: number, bottom: number}} Box */

function reduced() {
  return globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? true;
}

/**
 * The layer over the whole page (not the window): a flight keeps its place on the table when a
 * phone player scrolls during it. As tall as the page while something flies, else nothing.
 */
function layer() {
  let el = /** @type {HTMLElement | null} */ (document.querySelector("#fx"));
  if (!el) {
    el = h("div#fx.fx-layer", { "aria-hidden": "true" });
    document.body.append(el);
  }
  if (!el.childElementCount) el.style.height = `${document.documentElement.scrollHeight}px`;
  return el;
}

/** Take `el` off the layer; an empty layer gives its height back. */
/** @param {HTMLElement} el */
function land(el) {
  const fx = el.parentElement;
  el.remove();
  if (fx && !fx.childElementCount) fx.style.height = "0px";
}

/** @param {string} selector */
function rectOf(selector) {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width && r.height ? r : null;
}

function cardSize() {
  const r = rectOf(".felt .card") || rectOf(".hand .card");
  return r ? { w: r.width, h: r.height } : { w: 56, h: 84 };
}

/**
 * Where a card of `size` drawn at `scale` lies centred on `box`: its centre, moved down if the
 * card would lie over the score panel (the edge the chair across shares with it).
 */
/** @param {{left: number, top: number, width: number, height: number}} box @param {number} scale @param {{w: number, h: number}} size @returns {Spot} */
function spot(box, scale, size) {
  const score = rectOf(".scoreboard");
  let y = box.top + box.height / 2;
  if (score) y = Math.max(y, score.bottom + 4 + (size.h * scale) / 2);
  return { x: box.left + box.width / 2, y, scale };
}

/**
 * A card face that moves through `stops` (spots, each with `at`: its time in ms), then goes.
 * Straight lines between spots clear of the score panel stay clear of it.
 */
/** @param {string} code @param {(Spot & {at: number})[]} stops @param {{kind?: string, fade?: boolean}} [how] */
function fly(code, stops, { kind, fade = false } = {}) {
  const size = cardSize();
  const [first] = stops;
  const total = stops[stops.length - 1].at;
  const el = cardElement(code, { marks: ["fly"] });
  el.classList.add("fly-card", `fly-${kind}`);
  Object.assign(el.style, { left: `${first.x - size.w / 2 + window.scrollX}px`,
    top: `${first.y - size.h / 2 + window.scrollY}px`, width: `${size.w}px` });
  const frames = stops.map((stop, i) => ({
    offset: total ? stop.at / total : i,
    transform: `translate(${stop.x - first.x}px, ${stop.y - first.y}px) scale(${stop.scale})`,
    opacity: fade && i === stops.length - 1 ? 0.3 : 1,
  }));
  layer().append(el);
  const run = el.animate(frames, { duration: total, easing: "ease-in-out", fill: "forwards" });
  return run.finished.then(() => land(el), () => land(el));
}

/** A short word over the felt for the moments that score: «¡Caída! +2». */
/** @param {string} text @param {string} kind */
function burst(text, kind) {
  const felt = rectOf(".felt");
  if (!felt) return;
  const el = h(`div.fx-burst.fx-${kind}`, text);
  Object.assign(el.style, { left: `${felt.left + felt.width / 2 + window.scrollX}px`,
    top: `${felt.top + felt.height / 2 + window.scrollY}px` });
  layer().append(el);
  setTimeout(() => land(el), BURST_MS);
}

/** The team's pile in the score box counts the cards that just reached its chair. */
/** @param {number} team @param {number} at */
function pulsePile(team, at) {
  setTimeout(() => {
    const pile = document.querySelector(`.scoreboard .team[data-team="${team}"] .team-pile`);
    if (!pile) return;
    pile.classList.remove("is-growing");
    pile.getBoundingClientRect(); // restart the animation
    pile.classList.add("is-growing");
  }, at);
}

/** Trailed cards still travelling: the felt shows each once it lands, not twice meanwhile. */
const travelling = new Set();

function hideTravelling() {
  for (const code of travelling) {
    const placed = /** @type {HTMLElement | null} */ (document.querySelector(`.felt [data-card="${code}"]`));
    if (placed) placed.style.visibility = "hidden";
  }
}

/** A trail: from the chair (or the hand) to its place on the felt. */
/** @param {import("./wire.js").Message} event @param {Box | null} from @param {boolean} fromHand */
function trail(event, from, fromHand) {
  const size = cardSize();
  const to = rectOf(`.felt [data-card="${event.card}"]`) || rectOf(".felt");
  if (!from || !to) return;
  travelling.add(event.card);
  const landed = () => {
    if (!travelling.delete(event.card)) return;
    const placed = /** @type {HTMLElement | null} */ (document.querySelector(`.felt [data-card="${event.card}"]`));
    if (placed) placed.style.visibility = "";
  };
  fly(event.card, [{ ...spot(from, fromHand ? 1 : FROM_CHAIR, size), at: 0 },
    { ...spot(to, 1, size), at: FLIGHT_MS }], { kind: "trail" }).then(landed);
  setTimeout(landed, FLIGHT_MS + 600); // a paused animation (a hidden tab) never hides it for long
}

/** A capture: onto the cards it takes, a rest, then all of them to the capturer's chair. */
/** @param {import("./wire.js").Message} event @param {Box | null} from @param {boolean} fromHand @param {[string, Box | null][]} taken @param {number} seats */
function capture(event, from, fromHand, taken, seats) {
  const size = cardSize();
  const chair = rectOf(`.seat[data-seat="${event.seat}"]`);
  const felt = rectOf(".felt");
  if (!chair || !felt) return;
  const home = spot(chair, TO_CHAIR, size);
  const gathered = FLIGHT_MS + REST_MS + GATHER_MS;
  const onto = taken[0]?.[1] || felt;
  const landing = spot({ left: onto.left + size.w * 0.22, top: onto.top + size.h * 0.12,
    width: onto.width, height: onto.height }, 1, size);
  if (from) {
    fly(event.card, [{ ...spot(from, fromHand ? 1 : FROM_CHAIR, size), at: 0 },
      { ...landing, at: FLIGHT_MS }, { ...landing, at: FLIGHT_MS + REST_MS }, { ...home, at: gathered }],
    { kind: "capture", fade: true });
  }
  // The taken cards gather under the capturing card as it lands (the felt around them is laid
  // out afresh at once), and leave with it.
  taken.forEach(([code, rect], i) => {
    if (!rect) return;
    const still = spot(rect, 1, size);
    const under = { ...landing, x: landing.x - (i + 1) * size.w * 0.08, y: landing.y - (i + 1) * size.h * 0.04 };
    fly(code, [{ ...still, at: 0 }, { ...still, at: FLIGHT_MS * 0.4 }, { ...under, at: FLIGHT_MS },
      { ...under, at: FLIGHT_MS + REST_MS }, { ...home, at: gathered }], { kind: "taken", fade: true });
  });
  pulsePile(teamOf(event.seat, seats), gathered);
}

/**
 * One table's motion: `before(event)` is called when an event arrives (the page still shows the
 * table before it: where the card and the taken cards are), `after()` once the page is redrawn.
 */
/** @param {import("./model-types.js").Model} model */
export function motionFor(model) {
  /** @type {{event: import("./wire.js").Message, from?: Box | null, fromHand?: boolean, taken?: [string, Box | null][]}[]} */
  let pending = [];

  /** @param {import("./wire.js").Message} event */
  function before(event) {
    if (document.body.classList.contains("screen-mode")) return; // the TV screen draws its own
    if (event.type === "played") {
      const hand = rectOf(`.hand [data-card="${event.card}"]`);
      const from = hand || rectOf(`.seat[data-seat="${event.seat}"]`);
      /** @type {[string, Box | null][]} */
      const taken = event.take.map((/** @type {string} */ code) => [code, rectOf(`.felt [data-card="${code}"]`)]);
      pending.push({ event, from, fromHand: Boolean(hand), taken });
    } else if (event.type === "announced" && event.call === "ronda") {
      pending.push({ event });
    }
  }

  function after() {
    const jobs = pending;
    pending = [];
    if (reduced()) return;
    for (const { event, from, fromHand, taken } of jobs) {
      if (event.type === "announced") {
        burst(`${t("fx.ronda")}${event.points ? ` +${event.points}` : ""}`, "ronda");
        continue;
      }
      if (event.take.length) capture(event, from ?? null, Boolean(fromHand), taken ?? [], model.table?.seats ?? 4);
      else trail(event, from ?? null, Boolean(fromHand));
      if (event.caida || event.limpia) {
        const words = [event.caida ? t("fx.caida") : null, event.limpia ? t("fx.limpia") : null]
          .filter(Boolean).join(" ");
        burst(`${words}${event.points ? ` +${event.points}` : ""}`, "score");
      }
    }
    hideTravelling(); // also when this redraw drew again a card still in flight
  }

  return { before, after };
}
