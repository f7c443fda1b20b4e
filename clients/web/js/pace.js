// @ts-check
// How a table is played, in words shown before anyone sits (the sit panel, the lobby's cards,
// the table page): live, or turn-based with its time per move and what a passed deadline does
// (docs/rules.md, "Turn-based tables"); at a forfeit table, a team one missed deadline from
// losing is told so.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { teamOf } from "./seats.js";

/** @typedef {import("./model-types.js").Model} Model */

/** "Turn-based: 1 day per move", or null for a live table. @param {number} moveDeadline */
export function paceName(moveDeadline) {
  return moveDeadline ? t(`home.pace.${moveDeadline}`) : null;
}

/**
 * The table's pace and deadline rule in a line (null: a live table), said before the game (the
 * sit panel, the table waiting for its players); once it is being played, only a seated player
 * whose team missed its last deadline at a forfeit table is told, that one more loses the game.
 * @param {Model} model
 */
export function paceNote(model) {
  const table = model.table;
  if (!table || !table.moveDeadline || table.stage === "finished") return null;
  const team = model.you === null ? null : teamOf(model.you, table.seats);
  const close = table.onDeadline === "forfeit" && table.stage === "playing" && team !== null && (table.missed?.[team] ?? 0) > 0;
  if (table.stage === "playing" && !close) return null; // the felt's own countdown says the rest
  return h("div.pace-note", { id: "pace-note", dataset: { rule: table.onDeadline } },
    h("p", h("strong", paceName(table.moveDeadline)), ". ", t(`table.onDeadline.${table.onDeadline}`)),
    close ? h("p.pace-warning", { role: "status" }, t("table.missedOne")) : null);
}
