// @ts-check
// The side panels and overlays: the event log, the hand summary (R11 count, R6 rondas, R10
// awards) and the end of the game with its rematch.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { describeEvent, quietEvents } from "./event-text.js";
import { gameEvents } from "./state.js";
import { countNotes } from "./free-game.js";
import { pointRulesAt } from "./rules-link.js";
import { friendButtons, ratingLine, yourHeadline, yourTeam } from "./game-over-you.js";

/** A short explanation of the game's own words where they appear (caída, limpia, ronda). */
/** @param {import("./wire.js").Message} event */
export function explain(event) {
  const words = [];
  if (event.type === "played" && event.caida) words.push(t("explain.caida"));
  if (event.type === "played" && event.limpia) words.push(t("explain.limpia"));
  if (event.type === "announced" && event.call === "ronda") words.push(t("explain.ronda"));
  return words.length ? words.join(" ") : null;
}

/**
 * The current game's log, worded now (this language, these names), newest first, without the
 * lines that tell this viewer nothing (event-text.js quietEvents: a stand-in that never played,
 * a claim window nobody could use).
 */
/** @param {import("./model-types.js").TableModel} model @param {import("./seats.js").Names} names */
export function logPanel(model, names) {
  pointRulesAt(model.table.profile); // the top bar's Rules link: this table's game
  const events = gameEvents(model);
  const quiet = quietEvents(events, viewerOf(model));
  const entries = events.filter(([n]) => !quiet.has(n)).map(([n, event]) => ({ n, tip: explain(event),
    ...(describeEvent(event, names) || {}) }))
    .filter((e) => e.text).slice(-60).reverse();
  return h("section.panel.log-panel", { "aria-labelledby": "log-title" },
    h("h2#log-title", t("log.title")),
    entries.length
      ? h("ol.log", { reversed: true, tabindex: "0", "aria-labelledby": "log-title" }, entries.map((e) => h(`li.log-${e.kind}`, {
        dataset: { n: String(e.n) }, title: e.tip, class: e.tip ? "has-tip" : null }, e.text)))
      : h("p.hint", t("log.empty")));
}

/** Who reads the log, for quietEvents: the viewer's seat (null: a spectator) and the options. */
/** @param {import("./model-types.js").Model} model */
export function viewerOf(model) {
  return { you: model.you, seats: model.table?.seats ?? 4,
    options: model.table?.options || {} };
}

/** @param {import("./model-types.js").TableModel} model @param {import("./seats.js").Names} names @param {(() => void) | null} onClose */
export function summaryPanel(model, names, onClose) {
  const s = model.summary;
  if (!s) return null;
  const awards = (s.claims || []).filter((c) => c.type !== "claimed" || c.valid !== false); // R10: wrong claims win nothing
  const row = (/** @type {number} */ team) => h("tr",
    h("th", { scope: "row" }, names.teamOf(team)),
    h("td", s.piles[team]),
    h("td", `+${s.points[team]}`));
  return h("section.panel.summary", { "aria-labelledby": "summary-title", dataset: { hand: String(s.hand) } },
    h("div.panel-head", h("h2#summary-title", t("summary.title", { hand: s.hand + 1 })),
      onClose ? h("button.btn.btn-small.btn-quiet", { type: "button", onclick: onClose,
        "aria-label": t("summary.close") }, "×") : null),
    h("table.summary-table",
      h("thead", h("tr", h("th", { scope: "col" }, t("summary.team")), h("th", { scope: "col" },
        t("summary.cards")), h("th", { scope: "col" }, t("summary.count")))),
      h("tbody", row(0), row(1))),
    s.rondas?.length ? h("p", t("summary.rondas"), " ", s.rondas.map(([, seat, rank]) =>
      t("summary.ronda", { name: names.nameOf(seat), rank: t(`rank.${rank}`) })).join(" · ")) : null,
    awards.length ? h("p", t("summary.awards"), " ", awards.map((c) =>
      t("summary.award", { rank: t(`rank.${c.rank}`), points: c.points })).join(" · ")) : null,
    h("p.hint", t("summary.rule")),
    ...countNotes(model, names)); // R14 libre-2p: why a count at 38 scored nothing
}

/**
 * Shown over the felt when the game has ended; seated players may ask for a rematch and anyone
 * holding a seat token or the host key may download the R15 record (`record` is its URL).
 */
/** "1 of 2 ask for a rematch": people only, since bots always agree. */
/** @param {import("./model-types.js").TableModel} model @param {number[]} asked */
function rematchLine(model, asked) {
  const people = model.table.occupants.map((o, seat) => (!o.empty && !o.bot ? seat : null))
    .filter((seat) => seat !== null).map(Number);
  const askedPeople = asked.filter((seat) => people.includes(seat));
  if (!askedPeople.length || people.length < 2) return null;
  return h("p#rematch-count.hint", t("end.rematchCount", { count: askedPeople.length, seats: people.length }));
}

/**
 * The final score under the headline and in its order: "Pepe y Este ganan 44–8" over 44 – 8, the
 * winner's number first, each number over its team's colour dot and name (in seat order the
 * numbers read 8 – 44 under a headline saying 44–8). A draw has no winner to put first: team 0,
 * then team 1, as the scoreboard above the felt has them.
 */
/** @param {{winner: number | "draw" | null, scores: number[]}} g @param {import("./seats.js").Names} names */
export function finalScore(g, names) {
  const order = typeof g.winner === "number" ? [g.winner, 1 - g.winner] : [0, 1];
  const side = (/** @type {number} */ team) => h("span.final-team", { dataset: { team: String(team) } },
    h("span.final-points", { dataset: { final: String(team) } }, g.scores[team]),
    h("span.final-name", h(`span.sheet-dot.dot-${team}`), names.teamOf(team)));
  return h("p.final-score", { role: "group", "aria-label": t("end.final") },
    side(order[0]), h("span.final-dash", { "aria-hidden": "true" }, "–"), side(order[1]));
}

/** @param {import("./model-types.js").TableModel} model @param {import("./seats.js").Names} names @param {{rematch: () => void, record: string | null, sheet?: HTMLElement | null, befriend?: ((id: string) => void) | null}} how */
export function gameOverPanel(model, names, { rematch, record, sheet = null, befriend = null }) {
  const g = model.game;
  if (!g || g.phase !== "finished") return null;
  const asked = model.table.rematchAsked || [];
  const winner = g.winner;
  const forfeited = model.table.forfeited; // a turn-based team's two missed deadlines in a row
  const title = typeof forfeited === "number"
    ? t(model.table.seats === 2 ? "end.forfeitOne" : "end.forfeit", { team: names.teamOf(forfeited) })
    : typeof winner !== "number" ? t("end.draw") : t(model.table.seats === 2 ? "end.winnerOne" : "end.winners",
      { team: names.teamOf(winner), a: g.scores[winner], b: g.scores[1 - winner] });
  const you = yourHeadline(model); // a player is told first in their words: "¡Ganaste 40–28 con Lucía!"
  const final = finalScore(g, names); // players: your side marked, your rating change, "+ amigo"
  final.querySelector(`[data-team="${yourTeam(model)}"]`)?.setAttribute("data-yours", "true");
  return h("section.game-over", { role: "dialog", "aria-labelledby": you ? "end-you end-title" : "end-title", "aria-modal": "false" },
    you ? h("p#end-you.end-you", you) : null,
    h("h2#end-title", title),
    final, ratingLine(model), friendButtons(model, befriend),
    model.you !== null ? h("button.btn.btn-primary", {
      type: "button", id: "rematch", disabled: asked.includes(model.you), onclick: rematch,
    }, asked.includes(model.you) ? t("end.rematchAsked") : t("end.rematch")) : null,
    rematchLine(model, asked),
    record ? h("a#record-link.btn.btn-quiet", { href: ofGame(record, model.table.gameNumber), download: "" },
      t("end.record")) : null,
    record ? h("a#replay-link.btn.btn-quiet", { href: replayLink(ofGame(record, model.table.gameNumber), model) },
      t("replay.open")) : null,
    sheet,
    h("p.end-more", h("a#lobby-link", { href: "/tables" }, t("lobby.more"))));
}

/**
 * The record of this game, not the table's latest: `/record/<table>?key=…` becomes
 * `/record/<table>/<game>?key=…`, so a link kept past a rematch still opens the game it named.
 * @param {string} record @param {number} game
 */
export function ofGame(record, game) {
  const [path, query = ""] = record.split("?");
  const named = /\/record\/[^/]+\/\d+$/.test(path) ? path : `${path}/${game}`;
  return query ? `${named}?${query}` : named;
}

/**
 * The replay of `record` with the players' names as the table shows them (a bot or a free chair
 * as an empty name: the replay calls it by its compass point, as the log does).
 * @param {string} record @param {import("./model-types.js").TableModel} model
 */
export function replayLink(record, model) {
  const query = new URLSearchParams({ record });
  for (const o of model.table.occupants) query.append("seat", o.empty || o.bot ? "" : o.name || "");
  return `/replay?${query}`;
}
