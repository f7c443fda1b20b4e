// @ts-check
// The free game's own keys and rules on screen (R14 libre-2p): N starts a new game — after a
// confirmation while one is under way — and a hand counted at 38 says why its cards scored
// nothing ("38 que no juega": at 38 only a caída scores). Pure helpers plus one key listener.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";

export const FREE_PROFILE = "libre-2p";

/** R11: what each team's cards score (the engine's count_points, for the summary's note). */
/** @param {number[]} piles @param {number} dealerTeam */
export function countPoints(piles, dealerTeam) {
  const nonDealers = 1 - dealerTeam;
  const points = [0, 0];
  const big = [0, 1].filter((team) => piles[team] >= 20);
  if (big.length === 2) points[nonDealers] = 6;
  else if (big.length === 1) points[big[0]] = 6 + Math.floor((piles[big[0]] - 20 + 1) / 2) * 2;
  else if (piles[0] !== piles[1]) points[piles[0] > piles[1] ? 0 : 1] = 2;
  else points[nonDealers] = 2;
  return points;
}

/**
 * The teams whose count the 38 rule voided in `summary` (a hand_counted event), with what their
 * cards would have scored: libre-2p, the team at 38 (a +0 count leaves it there), +0 counted.
 */
/** @param {string} profile @param {{piles: number[], points: number[], dealer: number} | null} summary @param {number[] | null | undefined} scores */
export function voidedAt38(profile, summary, scores) {
  if (profile !== FREE_PROFILE || !summary || !scores) return [];
  const would = countPoints(summary.piles, summary.dealer % 2);
  return [0, 1]
    .filter((team) => scores[team] === 38 && summary.points[team] === 0 && would[team] > 0)
    .map((team) => ({ team, would: would[team] }));
}

/** The summary's lines for the free game: why a +0 at 38, and the rule itself. */
/** @param {import("./model-types.js").Model} model @param {import("./seats.js").Names} names */
export function countNotes(model, names) {
  if (model.table?.profile !== FREE_PROFILE) return [];
  const voided = voidedAt38(model.table.profile, model.summary, model.game?.scores);
  return [
    ...voided.map(({ team, would }) => h("p.count-note", { dataset: { team: String(team) } },
      t("free.at38", { team: names.teamOf(team), points: would }))),
    h("p.hint", t("free.rule38")),
  ];
}

/** N: a new game. Finished: ask for the rematch; under way: confirm, then the host restarts. */
/** @param {import("./model-types.js").Model} model @param {(message: import("./wire.js").Message) => unknown} send @param {(text: string) => boolean} [confirm] */
export function newFreeGame(model, send, confirm = (text) => globalThis.confirm(text)) {
  if (model.table?.profile !== FREE_PROFILE || model.you === null) return false;
  if (model.table.stage === "playing") {
    if (!confirm(t("free.new.confirm"))) return false;
    send({ type: "start" });
  } else if (model.table.stage === "finished") {
    send({ type: "rematch" });
  } else if (model.isHost) {
    send({ type: "start" });
  }
  return true;
}

/** Listen for N at a free-game table (not while typing); returns the listener's remover. */
/** @param {import("./model-types.js").Model} model @param {(message: import("./wire.js").Message) => unknown} send */
export function freeGameKeys(model, send) {
  /** @param {KeyboardEvent} event */
  function onKey(event) {
    if (event.key !== "n" && event.key !== "N") return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    if (/** @type {HTMLElement | null} */ (event.target)?.closest?.("input, textarea, select, [contenteditable]")) return;
    if (newFreeGame(model, send)) event.preventDefault();
  }
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

/** The toolbar's button for the same choice, naming its key. */
/** @param {import("./model-types.js").Model} model @param {(message: import("./wire.js").Message) => unknown} send */
export function freeGameButton(model, send) {
  if (model.table?.profile !== FREE_PROFILE || model.you === null) return null;
  return h("button.btn.btn-small.btn-quiet", {
    type: "button", id: "free-new", title: t("free.new.tooltip"), "aria-keyshortcuts": "N",
    onclick: () => newFreeGame(model, send),
  }, t("free.new"));
}
