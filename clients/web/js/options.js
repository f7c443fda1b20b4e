// @ts-check
// The house rules of R13 and the two-player profiles of R14, as the forms offer them.
// Defaults are the pagat-4p values (first in each list); the server validates every choice.

export const PROFILES = ["pagat-4p", "libre-2p", "heads-up"];

/** R13 options, each with its values (default first) and the rule it changes. */
export const HOUSE_OPTIONS = [
  { name: "direction", values: ["clockwise", "counterclockwise"], rule: "R1" },
  { name: "announcements", values: ["auto", "manual"], rule: "R6" },
  { name: "ronda_points", values: [4, 2], rule: "R6" },
  { name: "sequence", values: ["auto", "manual"], rule: "R8" },
  { name: "special_claims", values: ["claim", "auto", "off"], rule: "R10" },
  { name: "misdeal_penalty", values: ["game", "ten", "two"], rule: "R5" },
  { name: "capture_mandatory", values: [false, true], rule: "R7" },
];

/** R14: the two-player profiles fix every rule but these. */
const TWO_PLAYER_OPTIONS = new Set(["direction", "misdeal_penalty"]);

/** @param {string} profile */
export function optionsFor(profile) {
  return profile === "pagat-4p"
    ? HOUSE_OPTIONS
    : HOUSE_OPTIONS.filter((o) => TWO_PLAYER_OPTIONS.has(o.name));
}

/** @param {string} profile */
export function seatCount(profile) {
  return profile === "pagat-4p" ? 4 : 2;
}

export const TURN_TIMERS = [0, 15, 30, 60];
/** A turn-based table's seconds per move (0: live), as the server offers them (protocol). */
export const MOVE_DEADLINES = [0, 3600, 43200, 86400, 259200];
/** What a turn-based table does when a deadline passes (protocol `OnDeadline`; docs/rules.md). */
export const ON_DEADLINES = ["stand_in", "forfeit"];
export const BOT_LEVELS = [1, 2, 3, 4, 5, 6];

/** Only the options that differ from the defaults go on the wire: short and explicit. */
/** @param {string} profile @param {Record<string, string | number | boolean>} chosen */
export function changedOptions(profile, chosen) {
  /** @type {Record<string, string | number | boolean>} */
  const out = {};
  for (const option of optionsFor(profile)) {
    const value = chosen[option.name];
    if (value !== undefined && value !== option.values[0]) out[option.name] = value;
  }
  return out;
}

/** A form value back to its typed value (selects give strings). */
/** @param {{name: string, values: (string | number | boolean)[]}} option @param {string} raw */
export function parseOptionValue(option, raw) {
  return option.values.find((v) => String(v) === raw) ?? option.values[0];
}
