// @ts-check
// /me: the person's finished games, newest first, a page at a time: when, what, with and against
// whom, the score from their side, the result (and "by forfeit" when a turn-based side's missed
// deadlines ended it) and the rating change, the coach's mark for their
// play (the review's accuracy, once it is done), and the replay of that game.
import { h } from "./dom.js";
import { formatNumber, language, t } from "../i18n/index.js";
import { remember } from "./storage.js";

/** @typedef {{name: string, id?: string | null, bot_level?: number | null}} PastSeat */
/**
 * @typedef {{finished_at: number, profile: string, table: string, game: number,
 *   partners: PastSeat[], opponents: PastSeat[], score: number[], result: "won" | "lost" | "draw",
 *   rating_change: number | null, casual: boolean, accuracy?: number | null, record_key?: string | null,
 *   by?: "forfeit" | null}} PastGame
 */

/** A seat of a past game as people say it: a bot by its level. @param {PastSeat} seat */
export function pastName(seat) {
  return seat.bot_level ? t("seat.bot", { level: seat.bot_level }) : seat.name;
}

/** "+14", "−3", "—" for a casual game. @param {number | null} change */
export function signed(change) {
  if (change === null || change === undefined) return "";
  return change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0";
}

/**
 * The replay of that game: the record opens with the key the server gave for it, else with the
 * seat token this browser kept for the table; without either, say why there is none.
 * @param {PastGame} game
 */
function replayOf(game) {
  const key = game.record_key || remember.tableSeat(game.table)?.token;
  if (!key) return h("span.hint.me-no-replay", t("me.noReplay"));
  const record = `/record/${encodeURIComponent(game.table)}/${game.game}?key=${encodeURIComponent(key)}`;
  return h("a.btn.btn-small.me-replay", { href: `/replay?record=${encodeURIComponent(record)}` }, t("replay.open"));
}

/** "Won", "Lost by forfeit": the result as the person reads it. @param {PastGame} game */
export function resultText(game) {
  return game.by === "forfeit" && game.result !== "draw"
    ? t(`me.result.${game.result}Forfeit`) : t(`me.result.${game.result}`);
}

/** @param {PastGame} game @param {number} index */
function gameRow(game, index) {
  const when = new Date(game.finished_at * 1000);
  const date = when.toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });
  const partners = game.partners.map(pastName).join(", ");
  const opponents = game.opponents.map(pastName).join(", ");
  return h("li.me-game", { dataset: { result: game.result, table: game.table, game: String(game.game), index: String(index) } },
    h("p.me-game-head",
      h("strong.me-result", { dataset: { result: game.result, by: game.by || "rules" } }, resultText(game)),
      h("span.me-score", `${game.score[0]}–${game.score[1]}`),
      game.rating_change === null
        ? h("span.badge.me-casual", t("me.casual"))
        : h("span.me-change", { dataset: { sign: String(Math.sign(game.rating_change)) } }, signed(game.rating_change))),
    h("p.me-game-who",
      partners ? h("span", t("me.with", { names: partners })) : null,
      partners ? " · " : null,
      h("span", t("me.against", { names: opponents }))),
    h("p.me-game-meta", h("time", { datetime: when.toISOString() }, date), " · ", t(`profile.${game.profile}`)),
    typeof game.accuracy === "number"
      ? h("p.me-accuracy", t("me.accuracy", { accuracy: formatNumber(Math.round(game.accuracy)) })) : null,
    replayOf(game));
}

/**
 * @param {PastGame[]} games the pages fetched so far
 * @param {boolean} more older games follow
 * @param {() => void} older fetch the next page
 */
export function historySection(games, more, older) {
  return h("section.panel.me-section.me-history", { "aria-labelledby": "me-history-title" },
    h("h2#me-history-title", t("me.history")),
    games.length ? h("ol.me-games", games.map(gameRow)) : h("p.hint", t("me.noGames")),
    more ? h("button#me-older.btn.btn-quiet", { type: "button", onclick: older }, t("me.older")) : null);
}
