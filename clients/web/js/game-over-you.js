// @ts-check
// The end of a game as it concerns the viewer: "¡Ganaste 40–28 con Lucía!" to a player (their
// score first, their partner named), the rating change when the game was rated, and "+ amigo"
// on the other people at the table. A spectator keeps the neutral words (panels.js).
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { seatName, teamOf } from "./seats.js";
import { signed } from "./me-history.js";

/**
 * The headline for the seated viewer, or null for a spectator (and a draw, told neutrally).
 * @param {import("./model-types.js").TableModel} model
 * @returns {string | null}
 */
export function yourHeadline(model) {
  const g = model.game;
  if (model.you === null || !g || typeof g.winner !== "number") return null;
  const seats = model.table.seats;
  const team = teamOf(model.you, seats);
  const won = g.winner === team;
  const score = { a: g.scores[team], b: g.scores[1 - team] };
  if (typeof model.table.forfeited === "number") return t(won ? "end.youWonForfeit" : "end.youLostForfeit", score);
  if (seats === 2) return t(won ? "end.youWon" : "end.youLost", score);
  const partnerSeat = (model.you + 2) % 4;
  const partner = seatName(model.table.occupants[partnerSeat], partnerSeat, 4);
  return t(won ? "end.youWonWith" : "end.youLostWith", { ...score, name: partner });
}

/** Your team, marked on the final score: its side's data-yours. @param {import("./model-types.js").TableModel} model */
export function yourTeam(model) {
  return model.you === null ? null : teamOf(model.you, model.table.seats);
}

/**
 * "+14 → 1014" once the server rated the game; "not rated" at a casual table.
 * @param {import("./model-types.js").TableModel} model
 */
export function ratingLine(model) {
  const r = model.rated;
  if (model.you === null || !r || r.table !== model.table.id) return null;
  if (r.casual || r.change === null || r.rating === null) return h("p#rating-change.hint", t("end.casual"));
  return h("p#rating-change.rating-change", { dataset: { sign: String(Math.sign(r.change)) } },
    t("end.rating"), " ", h("strong", `${signed(r.change)} → ${r.rating}`));
}

/**
 * "+ amigo" for each other person at the table who is not a friend yet.
 * @param {import("./model-types.js").TableModel} model
 * @param {((id: string) => void) | null} befriend
 */
export function friendButtons(model, befriend) {
  if (!befriend || model.you === null) return null;
  const mine = model.table.occupants[model.you]?.player;
  const known = new Set(model.friends.map((f) => f.id));
  const others = model.table.occupants.filter((o) => o.player && !o.bot && o.player !== mine && !known.has(o.player));
  if (!others.length) return null;
  return h("p.end-friends", others.map((o) => h("button.btn.btn-small.btn-quiet", {
    type: "button", dataset: { befriend: String(o.player) }, "aria-label": t("friends.addName", { name: o.name }),
    onclick: (/** @type {{currentTarget: HTMLButtonElement}} */ e) => {
      befriend(String(o.player));
      e.currentTarget.disabled = true;
      e.currentTarget.textContent = t("friends.sent");
    } }, t("friends.plus"), " ", o.name)));
}
