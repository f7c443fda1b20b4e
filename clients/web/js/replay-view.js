// @ts-check
// The replay drawn as the table is: the four (or two) chairs around the felt with their names and
// team colours, every hand face up (the game is over), the table's cards in the middle, the step
// told in the log's words with the cards it moved, and the score sheet filling in as it steps.
import { h } from "./dom.js";
import { formatNumber, t } from "../i18n/index.js";
import { reviewPanel } from "./replay-review.js";
import { cardElement } from "./cards.js";
import { screenPositions, teamOf } from "./seats.js";
import { sheetTable } from "./sheet.js";
import { handStarts, headline, lastStep, namesOf, pilesAt, sheetSoFar, toldAt } from "./replay-model.js";

/** @typedef {import("./replay-model.js").ReplayState} ReplayState */
/** @typedef {{go: (to: number) => void, play: () => void, speed: (ms: number) => void, load: (file: File) => void}} ReplayActions */

/** The card a step played and the cards it took (shown beside its words). @param {ReplayState} state */
function stepPlay(state) {
  const step = state.replay?.steps[state.at];
  const played = step?.events.find((e) => e.type === "played");
  return played ? { seat: /** @type {number} */ (played.seat), card: /** @type {string} */ (played.card),
    take: /** @type {string[]} */ (played.take) } : null;
}

/** @param {ReplayState} state @param {ReplayActions} act */
export function replayEmpty(state, act) {
  return h("section.replay-empty.panel",
    h("h1", t("replay.title")), h("p.lede", t("replay.drop")),
    h("input#replay-file", { type: "file", accept: ".json,application/json",
      onchange: (/** @type {{target: HTMLInputElement}} */ event) => {
        const file = event.target.files?.[0];
        if (file) act.load(file);
      } }),
    state.problem ? h("p.replay-problem", { role: "alert" }, state.problem) : null);
}

/** The game's title line: each team by its players' names, with the score at this step. @param {ReplayState} state */
function head(state) {
  const replay = /** @type {import("./replay-model.js").Replay} */ (state.replay);
  const step = replay.steps[state.at];
  const who = namesOf(state);
  const team = (/** @type {number} */ n) => h("span.replay-team", { dataset: { team: String(n) } },
    h(`span.sheet-dot.dot-${n}`), who.teamOf(n));
  return h("header.replay-head",
    h("h1", t("replay.title"), replay.profile ? h("span.replay-profile", ` · ${t(`profile.${replay.profile}`)}`) : null),
    h("p.replay-score", team(0), " ", h("span#replay-score",
      h("span.replay-points", { dataset: { score: "0" } }, step.scores[0]), " – ",
      h("span.replay-points", { dataset: { score: "1" } }, step.scores[1])), " ", team(1)),
    h("p.replay-where", t("replay.where", { step: state.at, steps: lastStep(state), hand: step.hand + 1 })));
}

/** @param {ReplayState} state @param {ReplayActions} act */
function controls(state, act) {
  const steps = /** @type {import("./replay-model.js").Replay} */ (state.replay).steps;
  const step = steps[state.at];
  return h("nav.replay-controls", { "aria-label": t("replay.controls") },
    h("button#replay-start.btn", { type: "button", onclick: () => act.go(0), "aria-label": t("replay.first"),
      title: t("replay.first"), disabled: state.at === 0 }, "|◀"),
    h("button#replay-back.btn", { type: "button", onclick: () => act.go(state.at - 1), disabled: state.at === 0,
      "aria-keyshortcuts": "ArrowLeft" }, t("replay.back")),
    h("button#replay-play.btn.btn-primary", { type: "button", onclick: act.play },
      state.timer ? t("replay.pause") : t("replay.play")),
    h("button#replay-forward.btn", { type: "button", onclick: () => act.go(state.at + 1),
      disabled: state.at === steps.length - 1, "aria-keyshortcuts": "ArrowRight" }, t("replay.forward")),
    h("button#replay-end.btn", { type: "button", onclick: () => act.go(steps.length - 1), "aria-label": t("replay.last"),
      title: t("replay.last"), disabled: state.at === steps.length - 1 }, "▶|"),
    h("label", t("replay.hand"), h("select#replay-hand", {
      onchange: (/** @type {{target: HTMLSelectElement}} */ e) => act.go(Number(e.target.value)) },
    handStarts(state).map((index) => h("option", { value: index, selected: steps[index].hand === step.hand },
      t("replay.handN", { hand: steps[index].hand + 1 }))))),
    h("label", t("replay.speed"), h("select#replay-speed", {
      onchange: (/** @type {{target: HTMLSelectElement}} */ e) => act.speed(Number(e.target.value)) },
    [2000, 1000, 400, 150].map((ms) => h("option", { value: ms, selected: ms === state.speed }, `${formatNumber(Math.round(10000 / ms) / 10)}×`)))),
    h("p.replay-keys.hint", t("replay.keys")));
}

/** One chair: the player's name in the team's colour, the hand face up. @param {ReplayState} state @param {number} seat @param {string} pos */
function chair(state, seat, pos) {
  const replay = /** @type {import("./replay-model.js").Replay} */ (state.replay);
  const step = replay.steps[state.at];
  const played = stepPlay(state);
  const team = teamOf(seat, replay.seats);
  return h("div.replay-hand", { dataset: { seat: String(seat), team: String(team), pos,
    turn: String(step.turn === seat), acted: String(played?.seat === seat) } },
  h("h2.replay-name", h(`span.sheet-dot.dot-${team}`), namesOf(state).nameOf(seat),
    step.turn === seat ? h("span.badge.replay-turn", t("replay.toPlay")) : null),
  h("div.replay-cards", { "aria-label": t("replay.handOf", { name: namesOf(state).nameOf(seat) }) },
    step.hands[seat].map((code) => cardElement(code))));
}

/** The felt: chairs around it as at the table (seat 0 at the bottom), the table's cards in the middle. @param {ReplayState} state */
function felt(state) {
  const replay = /** @type {import("./replay-model.js").Replay} */ (state.replay);
  const step = replay.steps[state.at];
  const places = screenPositions(0, replay.seats, String(replay.options?.direction ?? "clockwise"));
  const played = stepPlay(state);
  const piles = pilesAt(state);
  const who = namesOf(state);
  return h("section.replay-felt", { dataset: { seats: String(replay.seats) }, "aria-label": t("tv.table") },
    Object.entries(places).map(([seat, pos]) => chair(state, Number(seat), pos)),
    h("div.replay-table",
      h("div.replay-cards", { "aria-label": t("tv.table") }, step.table.length
        ? step.table.map((code) => cardElement(code, { marks: code === played?.card ? ["just-played"] : [] }))
        : h("p.hint", t("tv.emptyTable"))),
      h("p.replay-piles", [0, 1].map((team) => h("span.replay-pile", { dataset: { team: String(team) } },
        h(`span.sheet-dot.dot-${team}`), t("replay.pile", { team: who.teamOf(team), count: formatNumber(piles[team]) }))))));
}

/**
 * What this step did, in the log's words, with the cards it moved: every line the log has for
 * it, the main one (the play, the count, the end) first and large.
 * @param {ReplayState} state
 */
function explain(state) {
  const played = stepPlay(state);
  const told = toldAt(state);
  const title = headline(state);
  const main = told.find((line) => line.text === title);
  const rest = told.filter((line) => line !== main);
  const moved = played ? h("div.replay-moved", cardElement(played.card),
    played.take.length ? h("span.replay-arrow", { "aria-hidden": "true" }, "→") : null,
    played.take.map((code) => cardElement(code))) : null;
  return h("section.replay-explain", { id: "replay-explain", "aria-live": "polite" },
    main ? null : h("h2.replay-headline", title),
    h("ul.replay-lines",
      main ? h(`li.replay-headline.log-${main.kind}`, main.text, moved) : null,
      rest.map((line) => h(`li.log-${line.kind}`, line.text))));
}

/** @param {ReplayState} state @param {ReplayActions} act */
export function replayView(state, act) {
  return h("div.replay.replay-view",
    head(state),
    controls(state, act),
    h("div.replay-stage", felt(state)),
    h("div.replay-side", explain(state), reviewPanel(state),
      h("aside.replay-sheet.panel", h("h2", t("sheet.title")), sheetTable(sheetSoFar(state), namesOf(state)))));
}
