// @ts-check
// A club night drawn from /c/<club>/night.json (server/clubnight/service.py): the round's tables
// with their live seats and scores, the standings, the pairings. Shared by the club page and its
// TV (club-tv.js). Names are set as text (h() makes text nodes).
import { h } from "./dom.js";
import { t } from "../i18n/index.js";

/** A night, a pair, a table… read field by field as the server writes them. @typedef {Record<string, any>} Doc */

/** The pair's name: its members, and its bot ("Ana and a bot (level 2)"); the house pair's. */
/** @param {Doc} night @param {string} id */
export function pairName(night, id) {
  if (id === "house") return t("clubnight.house");
  const pair = (night.pairs || []).find((/** @type {Doc} */ p) => p.id === id);
  if (!pair) return id;
  const names = [...pair.members];
  if (names.length < 2) names.push(t("clubnight.bot", { level: pair.bot_level }));
  return names.join(` ${t("clubnight.and")} `);
}

/** The round in progress (the last paired), or null. @param {Doc} night @returns {Doc | null} */
export function currentRound(night) {
  const rounds = night.tournament?.rounds || [];
  return rounds.length ? rounds[rounds.length - 1] : null;
}

/** @param {Doc} match */
export function matchDone(match) {
  return match.forfeit != null || match.score_a != null;
}

/** The move deadlines a round may have, in seconds (0: live), as protocol.base.MoveDeadline. */
export const DEADLINES = [0, 3600, 43200, 86400, 259200];

/**
 * How round `number` is played ("live", "turn-based, 24 hours a move"); with 0, the night's pace.
 * A night stored before paces existed has none: live.
 * @param {Doc} night @param {number} number
 */
export function paceText(night, number) {
  const pace = number ? night.paces?.[number - 1] : night.pace;
  return t(`clubnight.pace.${pace?.move_deadline ?? 0}`);
}

/** "Round 2 of 3 · live", "Groups · round 1 · turn-based, 24 hours a move", or not started. @param {Doc} night */
export function roundTitle(night) {
  const round = currentRound(night);
  if (!night.tournament) return t("clubnight.notStarted");
  if (night.finished) return t("clubnight.finished");
  if (!round) return `${t("clubnight.ready")} · ${paceText(night, 0)}`;
  const title = night.tournament.format === "swiss"
    ? t("clubnight.roundOf", { round: round.number, rounds: night.tournament.planned })
    : t(`clubnight.stage.${round.stage}`, { round: round.number });
  return `${title} · ${paceText(night, round.number)}`;
}

/**
 * One table of the round: the two pairs, the live score (or the result), watch and join links.
 * @param {Doc} night @param {Doc} live @param {Doc} match @param {boolean} big
 */
export function tableCard(night, live, match, big = false) {
  const round = currentRound(night);
  const entry = night.tables?.[`${round?.number}-${match.table}`];
  const now = entry ? live?.[entry.id] : null;
  const scores = matchDone(match) ? [match.score_a ?? "–", match.score_b ?? "–"] : now ? now.scores : [0, 0];
  const seats = now ? now.seats : [];
  // a started table not run here (another process's, or a turn-based one waiting in the store) is playing
  const playing = now ? now.stage === "playing" : Boolean(entry?.started);
  const state = matchDone(match) ? t("clubnight.done") : playing ? t("club.stage.playing") : t("clubnight.seating");
  const seatLine = (/** @type {number[]} */ places) => places.map((i) => {
    const seat = seats[i];
    if (!seat || seat.occupant === "empty") return entry?.places?.[i]?.name ?? t("clubnight.free");
    return seat.name || t("clubnight.bot", { level: seat.bot_level });
  }).join(" · ");
  const free = seats.some((/** @type {Doc} */ seat) => seat.occupant === "empty") && !matchDone(match);
  return h(`li.club-night-table${big ? ".is-big" : ""}`, { dataset: { table: String(match.table) } },
    h("p.club-night-table-head", h("strong", t("clubnight.table", { table: match.table })), " ", h("span", state)),
    h("p.club-night-side.club-night-side-0", h("span.club-night-names", pairName(night, match.a)),
      h("strong.club-night-score", String(scores[0]))),
    !big && seats.length ? h("p.club-night-seats", seatLine([0, 2])) : null,
    h("p.club-night-side.club-night-side-1", h("span.club-night-names", pairName(night, match.b)),
      h("strong.club-night-score", String(scores[1]))),
    !big && seats.length ? h("p.club-night-seats", seatLine([1, 3])) : null,
    !big && entry ? h("p.club-night-links",
      h("a.btn.btn-small", { href: `/t/${encodeURIComponent(entry.watch)}?screen` }, t("club.watch")),
      free ? h("a.btn.btn-small", { href: `/t/${encodeURIComponent(entry.join)}` }, t("clubnight.join")) : null)
      : null);
}

/** The standings: place, pair, played, won, drawn, lost, points, difference. @param {Doc} night */
export function standingsTable(night, limit = 0) {
  const rows = limit ? night.standings.slice(0, limit) : night.standings;
  return h("table.club-standings",
    h("thead", h("tr", h("th", "#"), h("th", t("clubnight.pair")), h("th", t("clubnight.played")),
      h("th", t("clubnight.won")), h("th", t("clubnight.drawn")), h("th", t("clubnight.lost")),
      h("th", t("clubnight.points")), h("th", t("clubnight.difference")))),
    h("tbody", rows.map((/** @type {Doc} */ row, /** @type {number} */ index) => h("tr", { dataset: { pair: row.pair } },
      h("td", index + 1), h("td", pairName(night, row.pair)), h("td", row.played), h("td", row.won),
      h("td", row.drawn), h("td", row.lost), h("td", h("strong", row.points)), h("td", row.difference)))));
}

/** The pairings of the round in progress (or the last one played). @param {Doc} night */
export function pairings(night) {
  const round = currentRound(night);
  if (!round) return h("p.hint", t("clubnight.noPairings"));
  return h("ol.club-pairings", round.matches.map((/** @type {Doc} */ match) => h("li",
    h("span.club-pairing-table", t("clubnight.table", { table: match.table })), " ",
    h("span", pairName(night, match.a)), h("span.club-vs", ` ${t("clubnight.vs")} `), h("span", pairName(night, match.b)),
    matchDone(match) ? h("strong.club-pairing-score", ` ${match.score_a ?? "–"}–${match.score_b ?? "–"}`) : null)),
  (round.through || []).map((/** @type {string} */ id) => h("li.club-through", t("clubnight.through", { pair: pairName(night, id) }))));
}

/** The registered pairs before the start. @param {Doc} night */
export function pairList(night) {
  return h("ul.club-pairs", (night.pairs || []).map((/** @type {Doc} */ pair) =>
    h("li", { dataset: { pair: pair.id } }, h("strong", pair.id), " ", pairName(night, pair.id),
      pair.withdrawn != null ? ` (${t("clubnight.withdrawn")})` : "")));
}
