// @ts-check
// The score sheet: per hand, each team's caídas, limpias, rondas, +10 awards and
// card-count points, with the running total; built from the game's public events (the whole log
// is fetched once from /watch-log, then each live event lands by its number).
import { foldingSummary, h } from "./dom.js";
import { formatNumber, t } from "../i18n/index.js";
import { teamOf } from "./seats.js";

/** @typedef {{caidas: number, limpias: number, play: number, rondas: number, awards: number, count: number, total: number}} SheetCell */
/** One hand of the sheet: a cell per team, and whether the hand was counted. @typedef {{hand: number, teams: SheetCell[], counted: boolean}} SheetRow */

/** @param {number} hand @returns {SheetRow} */
function emptyRow(hand) {
  return { hand, teams: [0, 1].map(() => ({ caidas: 0, limpias: 0, play: 0, rondas: 0, awards: 0,
    count: 0, total: 0 })), counted: false };
}

/**
 * Rows of the current game's hands, from its events in order ([n, event] pairs).
 * @param {[number, import("./wire.js").Message][]} events
 * @param {number} seats
 * @returns {SheetRow[]}
 */
export function sheetRows(events, seats) {
  /** @type {SheetRow[]} */
  const rows = [];
  /** @type {SheetRow | null} */
  let row = null;
  const running = [0, 0];
  for (const [, e] of events) {
    if (e.type === "game_started") { rows.length = 0; row = null; running[0] = 0; running[1] = 0; }
    if (e.type === "hand_started") { row = emptyRow(e.hand); rows.push(row); }
    if (!row) continue;
    const teams = row.teams;
    const team = (/** @type {number} */ seat) => teams[teamOf(seat, seats)];
    if (e.type === "played") {
      const side = team(e.seat);
      if (e.caida) side.caidas += 1;
      if (e.limpia) side.limpias += 1;
      side.play += e.points;
      running[teamOf(e.seat, seats)] += e.points;
    } else if (e.type === "announced" && e.points) {
      team(e.seat).rondas += e.points;
      running[teamOf(e.seat, seats)] += e.points;
    } else if (e.type === "claimed" && e.valid && e.points) {
      team(e.seat).awards += e.points;
      running[teamOf(e.seat, seats)] += e.points;
    } else if (e.type === "awarded" && e.points) {
      row.teams[e.team].awards += e.points;
      running[e.team] += e.points;
    } else if (e.type === "misdeal_ruled" && e.points) { // R5: the other team scores the penalty
      const other = 1 - teamOf(e.dealer, seats);
      row.teams[other].awards += e.points;
      running[other] += e.points;
    } else if (e.type === "hand_counted") {
      [0, 1].forEach((i) => { teams[i].count = e.points[i]; running[i] += e.points[i]; });
      row.counted = true;
    }
    row.teams[0].total = running[0];
    row.teams[1].total = running[1];
  }
  return rows;
}

/**
 * The sheet as a table: two lines per hand, one per team, the running total at the right.
 * Each head and team cell holds a long and a short form; style.css shows the short one (column
 * abbreviations, the team as its colour dot, named in a legend above) when the sheet's box is
 * too narrow for the long one: the side column at 1366x768, a phone.
 */
/** @param {SheetRow[]} rows @param {import("./seats.js").Names} names */
export function sheetTable(rows, names) {
  if (!rows.length) return h("p.hint", t("sheet.empty"));
  const head = ["sheet.hand", "sheet.team", "sheet.caidas", "sheet.limpias", "sheet.rondas",
    "sheet.awards", "sheet.count", "sheet.total"];
  const legend = h("p.sheet-legend", [0, 1].map((team) => h("span.sheet-legend-team",
    h(`span.sheet-dot.dot-${team}`), names.teamOf(team))));
  // a region a keyboard can reach and scroll wherever the sheet overflows (the TV, a phone)
  return h("div.sheet-scroll", { role: "region", tabindex: "0", "aria-label": t("sheet.title") },
    legend, h("table.sheet-table",
    h("thead", h("tr", head.map((key) => h("th", { scope: "col", title: t(`${key}.tooltip`) },
      h("span.sheet-long", t(key)), h("span.sheet-short", { "aria-hidden": "true" }, t(`${key}.short`)))))),
    h("tbody", rows.flatMap((row) => [0, 1].map((team) => {
      const s = row.teams[team];
      return h("tr", { class: team === 0 ? "sheet-first" : null, dataset: { hand: String(row.hand),
        team: String(team), counted: String(row.counted) } },
      team === 0 ? h("th", { scope: "rowgroup", rowspan: "2" }, formatNumber(row.hand + 1)) : null,
      h("td.sheet-team", { title: names.teamOf(team) }, h(`span.sheet-dot.dot-${team}`),
        h("span.sheet-team-name", names.teamOf(team))),
      h("td", s.caidas ? `${formatNumber(s.caidas)}` : "–"),
      h("td", s.limpias ? `${formatNumber(s.limpias)}` : "–"),
      h("td", s.rondas ? `+${formatNumber(s.rondas)}` : "–"),
      h("td", s.awards ? `+${formatNumber(s.awards)}` : "–"),
      h("td", row.counted ? `+${formatNumber(s.count)}` : "…"),
      h("td.sheet-total", { dataset: { total: String(s.total) } }, formatNumber(s.total)));
    })))));
}

/** The score sheet, folded or not; `onToggle(open)` hears the player fold or unfold it. */
/** @param {SheetRow[]} rows @param {import("./seats.js").Names} names @param {boolean} open @param {(open: boolean) => void} [onToggle] */
export function sheetPanel(rows, names, open, onToggle = () => {}) {
  return h("details.panel.sheet-panel", { open: open || null },
    foldingSummary(onToggle, h("h2.sheet-title", t("sheet.title"))), sheetTable(rows, names));
}
