// @ts-check
// The lobby of watchable tables (/tables) and a club's page (/c/<club>), issue 15. Both poll the
// server's listing (server/listing.py: public tables, or the club's, live now) and show every
// table with its players, scores, spectators and watch link; the club page adds today's finished
// games with their result, score sheet and replay link, and the results export for the host.
// Names are set as text (h() makes text nodes).
import { h, renderInto } from "./dom.js";
import { detectLanguage, setLanguage, t } from "../i18n/index.js";
import { teamName, teamPlayers } from "./seats.js";

/**
 * A table, a result or the whole answer of /tables.json and /c/<club>.json, read field by field as
 * the server writes them (PROTOCOL.md, the club page).
 * @typedef {Record<string, any>} Listed
 */

const POLL_MS = 1000;
const root = /** @type {HTMLElement} */ (document.querySelector("#main"));
const page = root.dataset.page;
const club = page === "club" ? decodeURIComponent(location.pathname.replace(/^\/c\//, "").replace(/\/$/, "")) : null;

/** @param {Listed} table */
function occupants(table) {
  return table.seats.map((/** @type {Listed} */ seat) => ({ empty: seat.occupant === "empty", name: seat.name || "",
    bot: seat.occupant === "bot" ? seat.bot_level : null }));
}

/** @param {Listed} table */
function tableCard(table) {
  const people = occupants(table);
  const seats = people.length;
  // "Ana y Norte", worded as the table page words a team (team.pair), not "Ana & Norte".
  return h("li.lobby-table", { dataset: { table: table.table } },
    h("div.lobby-teams",
      h("p.lobby-team.lobby-team-0", h("span.lobby-names", teamPlayers(0, seats, people)),
        h("strong.lobby-score", table.scores[0])),
      h("p.lobby-team.lobby-team-1", h("span.lobby-names", teamPlayers(1, seats, people)),
        h("strong.lobby-score", table.scores[1]))),
    // Each fact whole on its line ("1 mirando" never split on a phone): the row breaks between them.
    h("p.lobby-meta", h("span", t(`profile.${table.profile}`)), " · ", h("span", t(`club.stage.${table.stage}`)),
      " · ", h("span", t("club.spectators", { count: table.spectators }))),
    h("a.btn.btn-primary.lobby-watch", { href: `/t/${encodeURIComponent(table.watch)}?screen` }, t("club.watch")));
}

/** @param {Listed} result */
function resultRow(result) {
  const seats = result.seats;
  /** @type {{empty: boolean, name: string, bot: number | null}[]} */
  const people = Array.from({ length: seats }, () => ({ empty: true, name: "", bot: null }));
  for (const p of result.players) people[p.seat] = { empty: false, name: p.name, bot: p.bot_level };
  const who = (/** @type {number} */ team) => teamPlayers(team, seats, people);
  const winner = result.winner === "draw" ? t("end.draw")
    : result.winner == null ? "" : t("end.winner", { team: teamName(result.winner, seats) });
  const replay = `/replay?record=${encodeURIComponent(`/record/club/${club}/${result.table}/${result.game}`)}`;
  return h("li.club-result", { dataset: { table: result.table, game: String(result.game) } },
    h("p.club-result-head", h("time", result.ended.slice(11, 16)), " ", h("strong", winner)),
    h("p.club-result-score", `${who(0)} ${result.scores[0]} – ${result.scores[1]} ${who(1)}`),
    h("details.club-sheet", h("summary", t("tv.sheet")), h("table",
      h("thead", h("tr", h("th", t("tv.sheetHand")), h("th", teamName(0, seats)), h("th", teamName(1, seats)))),
      h("tbody", result.hands.map((/** @type {Listed} */ hand, /** @type {number} */ index) => h("tr", h("th", index + 1), h("td", hand.piles[0]),
        h("td", hand.piles[1])))))),
    h("a.btn.btn-small", { href: replay }, t("replay.open")));
}

async function refresh() {
  try {
    const data = await (await fetch(club ? `/c/${encodeURIComponent(club)}.json` : "/tables.json")).json();
    draw(data);
  } catch {
    /* the next poll tries again */
  }
}

/** @param {Listed} data */
function draw(data) {
  const tables = data.tables || [];
  const parts = [
    h("h1", club ? t("club.title", { club }) : t("club.lobbyTitle")),
    h("p.lede", club ? t("club.lede") : t("club.lobbyLede")),
    h("h2", club ? t("club.tables") : t("club.live")),
    tables.length ? h("ul.lobby-tables", tables.map(tableCard)) : h("p.hint", t("club.none")),
  ];
  if (club) {
    const results = data.results || [];
    parts.push(h("h2", t("club.finished")),
      results.length ? h("ul.club-results", results.slice().reverse().map(resultRow)) : h("p.hint", t("club.noneFinished")),
      h("form.club-export", { method: "get", action: `/c/${encodeURIComponent(club)}/results.csv` },
        h("h2", t("club.export")),
        h("label", { for: "club-key" }, t("club.hostKey")),
        h("input#club-key", { name: "key", type: "password", autocomplete: "off", required: true }),
        h("button.btn", { type: "submit" }, "CSV"),
        h("button.btn", { type: "submit", formaction: `/c/${encodeURIComponent(club)}/results.json` }, "JSON")));
  }
  const active = /** @type {HTMLInputElement | null} */ (document.activeElement);
  const typing = active?.id === "club-key" ? active.value : null;
  renderInto(root, h("div.lobby", parts));
  if (typing !== null) {
    const input = /** @type {HTMLInputElement | null} */ (root.querySelector("#club-key"));
    if (input) {
      input.value = typing;
      input.focus();
    }
  }
}

setLanguage(detectLanguage());
document.title = club ? t("club.title", { club }) : t("club.lobbyTitle");
refresh();
setInterval(refresh, POLL_MS);
