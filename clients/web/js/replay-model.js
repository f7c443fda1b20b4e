// @ts-check
// The replay viewer's state: a finished game's positions (the server replays the R15 record
// through the engine, server/replay_positions.py: no rule is re-implemented here), the players'
// names the link carries, and the step on view. Changed only by the functions below.
import { t } from "../i18n/index.js";
import { describeEvent, quietEvents } from "./event-text.js";
import { seatName, teamPlayers } from "./seats.js";
import { sheetRows } from "./sheet.js";

/**
 * One position of the replayed game and what led to it (/replayed answers with them).
 * @typedef {{hand: number, scores: number[], hands: string[][], turn: number | null, table: string[],
 *   action: string | null, events: import("./wire.js").Message[]}} ReplayStep
 */
/**
 * @typedef {{steps: ReplayStep[], seats: number, profile?: string, options?: Record<string, unknown>,
 *   result?: {scores: number[], winner: number | "draw" | null}}} Replay
 */
/**
 * @typedef {{replay: Replay | null, people: string[], quiet: Set<string>, at: number,
 *   timer: ReturnType<typeof setInterval> | undefined, speed: number, problem: string}} ReplayState
 */

/** @returns {ReplayState} */
export function emptyState() {
  return { replay: null, people: [], quiet: new Set(), at: 0, timer: undefined, speed: 1000, problem: "" };
}

/**
 * The players' names as the link gives them (`?seat=Ana&seat=&…`, in seat order): an empty one
 * is a bot or a free chair, called by its compass point as the table calls it.
 * @param {string} search
 */
export function peopleOf(search) {
  return new URLSearchParams(search).getAll("seat").map((name) => name.slice(0, 40));
}

/** @param {ReplayState} state @param {Replay} replay @param {number} at */
export function loaded(state, replay, at = 0) {
  state.replay = replay;
  state.quiet = quietLines(replay);
  state.problem = "";
  state.at = clamp(state, at);
}

/** @param {ReplayState} state @param {string} problem */
export function failed(state, problem) {
  state.problem = problem;
}

/** @param {ReplayState} state @param {number} to */
function clamp(state, to) {
  const last = (state.replay?.steps.length ?? 1) - 1;
  return Math.max(0, Math.min(last, Number.isFinite(to) ? Math.trunc(to) : 0));
}

/** Move to step `to` (clamped); true when it moved. @param {ReplayState} state @param {number} to */
export function stepTo(state, to) {
  const next = clamp(state, to);
  const moved = next !== state.at;
  state.at = next;
  return moved;
}

/** @param {ReplayState} state */
export function lastStep(state) {
  return (state.replay?.steps.length ?? 1) - 1;
}

/**
 * The events the replay leaves out, as "step:index" keys: the live log's rule (quietEvents) as a
 * spectator reads it, so the replay tells the game as the table told it.
 * @param {Replay} replay
 */
function quietLines(replay) {
  /** @type {[string, import("./wire.js").Message][]} */
  const numbered = [];
  replay.steps.forEach((step, at) => step.events.forEach((event, i) => numbered.push([`${at}:${i}`, event])));
  return quietEvents(numbered, { you: null, seats: replay.seats, options: replay.options ?? {} });
}

/** How the replay calls seats and teams: the link's names, else the compass. @param {ReplayState} state @returns {import("./seats.js").Names} */
export function namesOf(state) {
  const seats = state.replay?.seats ?? 4;
  const people = !state.people.length ? [] : Array.from({ length: seats }, (_, seat) => {
    const name = state.people[seat] || "";
    return { empty: false, name, bot: name ? null : 1 };
  });
  return { nameOf: (seat) => seatName(people[seat], seat, seats),
    teamOf: (team) => teamPlayers(team, seats, people), seats };
}

/**
 * The lines the step adds to the log, in the log's words ("Ana trails the Six of clubs").
 * @param {ReplayState} state @param {number} [at]
 * @returns {import("./event-text.js").Told[]}
 */
export function toldAt(state, at = state.at) {
  const step = state.replay?.steps[at];
  if (!step) return [];
  const who = namesOf(state);
  return step.events.filter((_, i) => !state.quiet.has(`${at}:${i}`))
    .map((event) => describeEvent(event, who)).filter((line) => line !== null);
}

/** The step's headline: its first line, or what an untold step did. @param {ReplayState} state */
export function headline(state) {
  const step = state.replay?.steps[state.at];
  if (!step) return "";
  if (!step.action) return t("replay.dealt");
  const told = toldAt(state);
  const play = told.find((line) => line.kind === "end")
    ?? told.find((line) => line.kind === "play" || line.kind === "score" || line.kind === "claim");
  if (play) return play.text;
  if (step.action === "close-claims") return t("replay.claimsShut");
  return told[0]?.text ?? t("replay.nothingNew");
}

/** The score sheet's rows up to the step on view (sheet.js, as at the table). @param {ReplayState} state */
export function sheetSoFar(state) {
  const replay = state.replay;
  if (!replay) return [];
  /** @type {[number, import("./wire.js").Message][]} */
  const events = [];
  replay.steps.slice(0, state.at + 1).forEach((step) => step.events.forEach((event) => events.push([events.length, event])));
  return sheetRows(events, replay.seats);
}

/** The cards each team has won in this hand so far (captures, missed cards taken). @param {ReplayState} state */
export function pilesAt(state) {
  const replay = state.replay;
  const piles = [0, 0];
  if (!replay) return piles;
  const hand = replay.steps[state.at].hand;
  replay.steps.slice(0, state.at + 1).forEach((step) => {
    if (step.hand !== hand) return;
    for (const e of step.events) {
      const team = typeof e.seat === "number" ? (replay.seats === 2 ? e.seat : e.seat % 2) : -1;
      if (e.type === "played" && e.take.length) piles[team] += e.take.length + 1;
      if (e.type === "missed_taken") piles[team] += e.cards.length;
    }
  });
  return piles;
}

/** The first step of each hand, for the hand picker. @param {ReplayState} state @returns {number[]} */
export function handStarts(state) {
  /** @type {number[]} */
  const starts = [];
  const steps = state.replay?.steps ?? [];
  steps.forEach((step, index) => {
    if (!starts.length || step.hand !== steps[starts[starts.length - 1]].hand) starts.push(index);
  });
  return starts;
}

/** The step a link asks for (`#step=37`), or null. @param {string} hash */
export function stepOfHash(hash) {
  const match = /(?:^#|&)step=(\d+)/.exec(hash);
  return match ? Number(match[1]) : null;
}
