// @ts-check
// Seat arithmetic for the screen (R1): partners opposite, the viewer at the bottom, and play
// going clockwise unless the `direction` option lays the seats out counterclockwise.
import { t } from "../i18n/index.js";

/** @typedef {import("./model-types.js").Occupant} Occupant */

/**
 * How the views call seats and teams at this moment (the players' names as they sit now).
 * @typedef {{nameOf: (seat: number) => string, teamOf: (team: number) => string, seats: number, you?: number}} Names
 * (`you`: the seat the log tells in the second person, where the reader is named "You")
 */

/** Team of a seat (R1: team 0 = seats 0 and 2; R14: team = seat with two players). */
/** @param {number} seat @param {number} seats */
export function teamOf(seat, seats) {
  return seats === 2 ? seat : seat % 2;
}

/** Compass names fixed to seats, so a log line means the same to every viewer. */
const COMPASS_4 = ["south", "west", "north", "east"];
const COMPASS_2 = ["south", "north"];

/** @param {number} seat @param {number} seats */
export function compassOf(seat, seats) {
  return (seats === 2 ? COMPASS_2 : COMPASS_4)[seat];
}

/**
 * Where each seat sits on screen: "bottom" is the viewer (seat 0 for spectators); the next
 * player (seat + 1, R1) is on the left when play is clockwise, on the right otherwise.
 * @param {number | null} viewer
 * @param {number} seats
 * @returns {Record<number, string>}
 */
export function screenPositions(viewer, seats, direction = "clockwise") {
  const bottom = viewer ?? 0;
  if (seats === 2) return { [bottom]: "bottom", [(bottom + 1) % 2]: "top" };
  const order = direction === "counterclockwise"
    ? ["bottom", "right", "top", "left"]
    : ["bottom", "left", "top", "right"];
  /** @type {Record<number, string>} */
  const out = {};
  for (let i = 0; i < 4; i += 1) out[(bottom + i) % 4] = order[i];
  return out;
}

/**
 * What a seat is called in the log and on screen: a person's name, else the compass point
 * ("Norte hace caída: +2"); bots go by their seat, since several may share one generic name.
 * @param {Partial<Pick<Occupant, "empty" | "bot" | "name">> | null | undefined} occupant
 * @param {number} seat
 * @param {number} seats
 */
export function seatName(occupant, seat, seats) {
  const compass = t(`seat.${compassOf(seat, seats)}`);
  if (!occupant || occupant.empty || occupant.bot) return compass;
  return occupant.name || compass;
}

/**
 * "Ana y Luis": a team named by its players (bots by their seat), as people call a team.
 * @param {number} team
 * @param {number} seats
 * @param {Pick<Occupant, "empty" | "bot" | "name">[] | null | undefined} occupants
 */
export function teamPlayers(team, seats, occupants) {
  if (!occupants?.length) return teamName(team, seats);
  if (seats === 2) return seatName(occupants[team], team, 2);
  return t("team.pair", { a: seatName(occupants[team], team, 4), b: seatName(occupants[team + 2], team + 2, 4) });
}

/** "Norte–Sur" / "North–South": a team named by its seats. */
/** @param {number} team @param {number} seats */
export function teamName(team, seats) {
  if (seats === 2) return t(`seat.${compassOf(team, 2)}`);
  return t(team === 0 ? "team.ns" : "team.ew");
}

/**
 * The names at the table of `model`, read when asked (a seat's occupant may change).
 * @param {import("./model-types.js").Model} model
 * @returns {Names}
 */
export function namesAt(model) {
  return {
    nameOf: (seat) => seatName(model.table?.occupants[seat], seat, model.table?.seats ?? 4),
    teamOf: (team) => teamPlayers(team, model.table?.seats ?? 4, model.table?.occupants),
    get seats() { return model.table?.seats ?? 4; },
  };
}
