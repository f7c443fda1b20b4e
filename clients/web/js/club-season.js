// @ts-check
// The club's memory on its page: the season (games, wins and points per member across the
// nights), the past nights with their final standings, and one member's games in the club.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { pairName, standingsTable } from "./club-night.js";

/** @typedef {Record<string, any>} Doc */

/** @param {Doc[]} season */
export function seasonTable(season) {
  if (!season.length) return h("p.hint", t("clubnight.noSeason"));
  return h("table.club-season",
    h("thead", h("tr", h("th", "#"), h("th", t("clubnight.member")), h("th", t("clubnight.games")),
      h("th", t("clubnight.wins")), h("th", t("clubnight.gamePoints")))),
    h("tbody", season.map((row, index) => h("tr", { dataset: { member: row.name } },
      h("td", index + 1), h("td", row.name), h("td", row.games), h("td", row.wins), h("td", row.points)))));
}

/** @param {Doc[]} past */
export function pastNights(past) {
  if (!past.length) return h("p.hint", t("clubnight.noPast"));
  return h("div.club-past", past.slice().reverse().map((night) => h("details.club-past-night",
    h("summary", t("clubnight.nightN", { night: night.number }), night.standings.length
      ? ` · ${t("clubnight.winner", { pair: pairName(night, night.champion || night.standings[0].pair) })}` : ""),
    night.standings.length ? standingsTable(night) : h("p.hint", t("clubnight.notStarted")))));
}

/**
 * Every game `name` played in the club's nights (newest first): night, round, partner pair,
 * opponents, score and result.
 * @param {string} name @param {Doc[]} nights
 */
export function memberHistory(name, nights) {
  const wanted = name.toLocaleLowerCase();
  /** @type {HTMLElement[]} */
  const rows = [];
  for (const night of nights.slice().reverse()) {
    const mine = (night.pairs || []).find((/** @type {Doc} */ p) =>
      p.members.some((/** @type {string} */ m) => m.toLocaleLowerCase() === wanted));
    if (!mine) continue;
    for (const round of (night.tournament?.rounds || []).slice().reverse()) {
      for (const match of round.matches) {
        if (match.a !== mine.id && match.b !== mine.id) continue;
        const ours = match.a === mine.id;
        const other = ours ? match.b : match.a;
        const [us, them] = ours ? [match.score_a, match.score_b] : [match.score_b, match.score_a];
        const result = us == null ? (match.forfeit ? (match.forfeit === mine.id ? t("clubnight.lost") : t("clubnight.won")) : "…")
          : us > them ? t("clubnight.won") : us < them ? t("clubnight.lost") : t("clubnight.drawn");
        rows.push(h("tr", h("td", night.number), h("td", round.number), h("td", pairName(night, other)),
          h("td", us == null ? "–" : `${us}–${them}`), h("td", result)));
      }
    }
  }
  if (!rows.length) return h("p.hint", t("clubnight.noGames"));
  return h("table.club-history",
    h("thead", h("tr", h("th", t("clubnight.night")), h("th", t("clubnight.round")), h("th", t("clubnight.against")),
      h("th", t("clubnight.score")), h("th", t("clubnight.result")))),
    h("tbody", rows));
}
