// @ts-check
// The club's TV (/c/<club>/tv or /c/<club>?tv): every table of the round at once with its pairs
// and live score, the round, the standings and the pairings, in type legible from three metres on
// a 1920×1080 screen. It follows the night by itself: the page redraws it from each poll.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { currentRound, pairings, roundTitle, standingsTable, tableCard } from "./club-night.js";

/** @typedef {Record<string, any>} Doc */

/** @param {string} club @param {Doc} data the answer of /c/<club>/night.json */
export function tvView(club, data) {
  const night = data.night;
  const round = night ? currentRound(night) : null;
  return h("div.club-tv",
    h("header.club-tv-head", h("h1", t("club.title", { club })), h("p.club-tv-round", night ? roundTitle(night) : t("clubnight.notStarted"))),
    h("div.club-tv-body",
      h("section.club-tv-tables", { "aria-label": t("clubnight.tables") },
        round ? h("ul.club-night-tables", round.matches.map((/** @type {Doc} */ m) => tableCard(night, data.live, m, true)))
          : h("p.club-tv-wait", t("clubnight.tvWaiting"))),
      h("aside.club-tv-side",
        h("section.club-tv-standings", h("h2", t("clubnight.standings")),
          night?.standings?.length ? standingsTable(night, 12) : h("p.hint", t("clubnight.noStandings"))),
        h("section.club-tv-pairings", h("h2", t("clubnight.pairings")),
          night ? pairings(night) : h("p.hint", t("clubnight.noPairings"))))));
}
