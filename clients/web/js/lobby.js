// @ts-check
// The lobby of watchable tables (/tables) and a club's page (/c/<club>). Both poll the
// server's listing (server/listing.py: public tables, or the club's, live now) and show every
// table with its players, scores, spectators and watch link; the club page adds today's finished
// games with their result, score sheet and replay link, and the results export for the host.
// Names are set as text (h() makes text nodes).
import { h, renderInto } from "./dom.js";
import { t, tn } from "../i18n/index.js";
import { teamName, teamPlayers } from "./seats.js";
import { pageChrome } from "./page-chrome.js";
import { paceName } from "./pace.js";

const PROFILES = ["pagat-4p", "heads-up", "libre-2p"];

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
      " · ", h("span", t("club.spectators", { count: table.spectators })),
      table.move_deadline ? [" · ", h("span.lobby-pace", paceName(table.move_deadline),
        table.on_deadline === "forfeit" ? ` (${t("lobby.forfeit")})` : "")] : null,
      freeSeats(table) ? [" · ", h("span.lobby-free-count", tn("lobby.free", freeSeats(table)))] : null),
    h("div.lobby-actions",
      table.join ? h("a.btn.btn-primary.lobby-sit", { href: `/t/${encodeURIComponent(table.join)}` }, t("lobby.sit")) : null,
      h(`a.btn${table.join ? "" : ".btn-primary"}.lobby-watch`, { href: `/t/${encodeURIComponent(table.watch)}?screen` },
        t("club.watch"))));
}

/** @param {Listed} table */
function freeSeats(table) {
  return table.seats.filter((/** @type {Listed} */ seat) => seat.occupant === "empty").length;
}

/** The lobby's choice of tables (kept in the address: a shared link shows the same). */
const filter = (() => {
  const asked = new URLSearchParams(location.search);
  const profile = asked.get("profile") || "";
  return { profile: PROFILES.includes(profile) ? profile : "", free: asked.get("free") === "1" };
})();

/** @param {Listed} table */
function shown(table) {
  return (!filter.profile || table.profile === filter.profile) && (!filter.free || Boolean(table.join));
}

function keepFilterInAddress() {
  const query = new URLSearchParams(location.search);
  if (filter.profile) query.set("profile", filter.profile); else query.delete("profile");
  if (filter.free) query.set("free", "1"); else query.delete("free");
  const search = query.toString();
  history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}`);
}

/** The filters: drawn once, outside the list the poll redraws (an open menu stays open). */
function filters() {
  return h("form.lobby-filters", { role: "search", onsubmit: (/** @type {Event} */ e) => e.preventDefault() },
    h("label", { for: "lobby-profile" }, t("lobby.filter")),
    h("select#lobby-profile", { onchange: (/** @type {{target: HTMLSelectElement}} */ e) => {
      filter.profile = e.target.value; keepFilterInAddress(); refresh(); } },
    h("option", { value: "", selected: !filter.profile }, t("lobby.anyGame")),
    PROFILES.map((p) => h("option", { value: p, selected: filter.profile === p }, t(`profile.${p}`)))),
    h("label.lobby-free", h("input#lobby-free", { type: "checkbox", checked: filter.free || null,
      onchange: (/** @type {{target: HTMLInputElement}} */ e) => { filter.free = e.target.checked; keepFilterInAddress(); refresh(); } }),
    t("lobby.freeOnly")));
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
  const query = new URLSearchParams({ record: `/record/club/${club}/${result.table}/${result.game}` });
  for (const seat of people) query.append("seat", seat.bot ? "" : seat.name);
  const replay = `/replay?${query}`;
  return h("li.club-result", { dataset: { table: result.table, game: String(result.game) } },
    h("p.club-result-head", h("time", result.ended.slice(11, 16)), " ", h("strong", winner)),
    h("p.club-result-score", `${who(0)} ${result.scores[0]} – ${result.scores[1]} ${who(1)}`),
    h("details.club-sheet", h("summary", t("tv.sheet")), h("table",
      h("thead", h("tr", h("th", t("tv.sheetHand")), h("th", teamName(0, seats)), h("th", teamName(1, seats)))),
      h("tbody", result.hands.map((/** @type {Listed} */ hand, /** @type {number} */ index) => h("tr", h("th", index + 1), h("td", hand.piles[0]),
        h("td", hand.piles[1])))))),
    h("a.btn.btn-small", { href: replay }, t("replay.open")));
}

/** @type {Listed | null} the last answer, redrawn on a filter or language change */
let last = null;
/** @type {HTMLElement | null} */
let list = null;

async function refresh() {
  try {
    last = await (await fetch(club ? `/c/${encodeURIComponent(club)}.json` : "/tables.json")).json();
  } catch {
    /* the next poll tries again */
  }
  if (last) drawList(last);
}

/** The page around the list: title, filters (the lobby), the way back to open a table. */
function drawPage() {
  document.title = club ? t("club.title", { club }) : t("lobby.title");
  list = h("div.lobby-list");
  renderInto(root, h("div.lobby",
    h("h1", club ? t("club.title", { club }) : t("lobby.title")),
    h("p.lede", club ? t("club.lede") : t("lobby.lede"), " ",
      club ? null : h("a#lobby-open", { href: "/" }, t("lobby.open"))),
    club ? null : filters(),
    list));
  if (last) drawList(last);
}

/** @param {Listed} data */
function drawList(data) {
  if (!list) return;
  const all = data.tables || [];
  const tables = club ? all : all.filter(shown);
  const parts = [
    h("h2", club ? t("club.tables") : t("club.live")),
    tables.length ? h("ul.lobby-tables", tables.map(tableCard))
      : h("p.hint", all.length ? t("lobby.noneMatch") : t("club.none")),
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
  renderInto(list, parts);
  if (typing !== null) {
    const input = /** @type {HTMLInputElement | null} */ (list.querySelector("#club-key"));
    if (input) {
      input.value = typing;
      input.focus();
    }
  }
}

pageChrome(drawPage);
drawPage();
refresh();
setInterval(refresh, POLL_MS);
