// @ts-check
// The coach at the table: «¿Qué jugarías?» by the prompt, on your turn to play a card at a
// casual or solo table whose host allows hints (the server refuses it elsewhere: never in a
// rated game). The answer,
// level 5's play weighed from your own view, is said in words and its card is marked in the
// hand. One hint per decision: the button goes once asked.
import { h } from "./dom.js";
import { formatNumber, t } from "../i18n/index.js";
import { cardShort } from "./cards.js";
import { isOffline } from "./state.js";
import { playableCards } from "./captures.js";

/** @typedef {import("./model-types.js").TableModel} TableModel */
/** @typedef {import("./wire.js").Message} Message */
/**
 * @typedef {{card: string, take: string[], caida: boolean, limpia: boolean, points: number,
 *   expected: number}} HintPlay
 * @typedef {{at: number, play: HintPlay, margin: number | null, next_best: HintPlay | null}} Hint
 */

/** The decision last asked about and its answer, per table model. */
/** @type {WeakMap<object, {asked: number, hint: Hint | null}>} */
const asked = new WeakMap();

/** The hint for the decision now (null: none asked, or the table moved on). */
/** @param {TableModel} model @returns {Hint | null} */
export function hintNow(model) {
  const entry = asked.get(model);
  return entry?.hint && entry.hint.at === model.lastEvent ? entry.hint : null;
}

/** @param {TableModel} model */
function offered(model) {
  return model.table.hints && model.you !== null && !isOffline(model)
    && playableCards(model.legal).size > 0 && asked.get(model)?.asked !== model.lastEvent;
}

/** Ask the server; the answer goes to this model alone. */
/** @param {TableModel} model @param {(message: Message) => Promise<Message | null>} send @param {() => void} draw */
export async function askHint(model, send, draw) {
  const at = model.lastEvent;
  asked.set(model, { asked: at, hint: null });
  draw();
  const answer = await send({ type: "hint" });
  if (answer && answer.type === "hint") {
    asked.set(model, { asked: at, hint: /** @type {Hint} */ (/** @type {unknown} */ (answer)) });
  }
  draw();
}

/** @param {HintPlay} play */
export function playWords(play) {
  const card = cardShort(play.card);
  if (!play.take.length) return t("coach.trail", { card });
  return t("coach.capture", { card, take: play.take.map(cardShort).join(", ") });
}

/** «Juega el 7♣ y llévate el 7♥: caída, +2; es 1,3 puntos mejor que el 5♠». */
/** @param {Hint} hint */
export function hintWords(hint) {
  const play = hint.play;
  const marks = [play.caida ? t("coach.caida") : "", play.limpia ? t("coach.limpia") : "",
    play.points ? `+${play.points}` : ""].filter(Boolean);
  let words = playWords(play) + (marks.length ? `: ${marks.join(", ")}` : "");
  if (hint.next_best && hint.margin !== null && hint.margin > 0.05) {
    words += t("coach.better", { margin: formatNumber(Math.round(hint.margin * 10) / 10),
      other: cardShort(hint.next_best.card) });
  } else if (hint.next_best) {
    words += t("coach.close");
  } else {
    words += t("coach.only");
  }
  return words;
}

/** By the prompt: the button while a hint may be asked, the hint once it came. */
/** @param {TableModel} model @param {() => void} ask @returns {HTMLElement[]} */
export function hintParts(model, ask) {
  const hint = hintNow(model);
  if (hint) return [h("p#coach-hint.prompt.is-hint", { role: "status" }, hintWords(hint))];
  if (!offered(model)) return [];
  return [h("button#coach-ask.btn", { type: "button", dataset: { action: "hint" }, onclick: ask },
    t("coach.ask"))];
}
