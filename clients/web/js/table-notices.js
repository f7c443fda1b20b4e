// @ts-check
// What deserves a glance when a live event arrives: a banner for the lines the log marks so
// (event-text.js), and a warning when a stand-in played or took this player's seat.
import { t } from "../i18n/index.js";
import { cardName } from "./cards.js";
import { describeEvent, quietEvents } from "./event-text.js";
import { viewerOf } from "./panels.js";
import { gameEvents } from "./state.js";
import { toast } from "./toasts.js";
import { announcePlay } from "./play-announcer.js";

/** @typedef {import("./model-types.js").Model} Model */
/** @typedef {import("./model-types.js").AnyEvent} AnyEvent */
/** @typedef {import("./seats.js").Names} Names */

/**
 * Tell event `n`, already applied to the model; `standInPlayed` when it was this seat's play
 * that this page did not send.
 * @param {Model} model
 * @param {number} n
 * @param {AnyEvent} event
 * @param {Names} names
 * @param {boolean} standInPlayed
 */
export function tellEvent(model, n, event, names, standInPlayed) {
  const mine = model.you !== null && event.seat === model.you;
  if (standInPlayed) toast(t("notice.botPlayed", { card: cardName(event.card) }), "warn");
  if (event.type === "stand_in" && mine && event.active) toast(t("notice.standIn"), "warn");
  const told = describeEvent(event, names);
  // A line the log leaves out (a claim window nobody here could use) is noise in a banner too.
  if (!told || quietEvents(gameEvents(model), viewerOf(model)).has(n)) return;
  announcePlay(told.text);
  if (told.banner && document.visibilityState !== "hidden") toast(told.text, told.kind);
}
