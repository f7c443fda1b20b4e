// @ts-check
// The replay viewer (/replay, issue 15): a finished game from its record link
// (?record=/record/<table>/<game>?key=…) or a dropped record file, stepped play by play. The
// positions come from the server, which replays the record through the engine
// (server/replay_positions.py): no rule is re-implemented here. All hands face up (the game is over).
import { h, renderInto } from "./dom.js";
import { detectLanguage, setLanguage, t } from "../i18n/index.js";
import { cardElement } from "./cards.js";
import { describeEvent, quietEvents } from "./event-text.js";
import { seatName, teamName, teamOf } from "./seats.js";
import { exposeForTests } from "./test-hooks.js";

/**
 * One position of the replayed game (/replayed answers with them) and what led to it.
 * @typedef {{hand: number, scores: number[], hands: string[][], turn: number | null, table: string[],
 *   action: string | null, events: import("./wire.js").Message[]}} ReplayStep
 */
/** @typedef {{steps: ReplayStep[], seats: number, options?: Record<string, unknown>}} Replay */

const root = /** @type {HTMLElement} */ (document.querySelector("#main"));
/** @type {{replay: Replay | null, quiet: Set<string>, at: number, timer: ReturnType<typeof setInterval> | undefined, speed: number, problem: string}} */
const state = { replay: null, quiet: new Set(), at: 0, timer: undefined, speed: 1000, problem: "" };

/** @param {string} text */
async function deflated(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {string} url */
async function load(url) {
  const answer = await fetch(url);
  if (!answer.ok) throw new Error(await answer.text());
  const replay = /** @type {Replay} */ (await answer.json());
  state.replay = replay;
  state.quiet = quietLines(replay);
  state.at = 0;
  state.problem = "";
  draw();
}

/** @param {string} text */
async function loadText(text) {
  try {
    await load(`/replayed?record=${await deflated(text)}`);
  } catch (error) {
    state.problem = /** @type {Error} */ (error).message;
    draw();
  }
}

/**
 * The events the replay leaves out, as "step:index" keys: the live log's rule (event-text.js
 * quietEvents) as a spectator reads it, so the replay tells the game as the table told it
 * (no claim window nobody claimed in, no stand-in that never played).
 */
/** @param {Replay} replay */
function quietLines(replay) {
  /** @type {[string, import("./wire.js").Message][]} */
  const numbered = [];
  replay.steps.forEach((step, at) => step.events.forEach((event, i) => numbered.push([`${at}:${i}`, event])));
  return quietEvents(numbered, { you: null, seats: replay.seats, options: replay.options ?? {} });
}

/** @param {number} seats @returns {import("./seats.js").Names} */
function names(seats) {
  return { nameOf: (seat) => seatName({ empty: false, name: "" }, seat, seats),
    teamOf: (team) => teamName(team, seats), seats };
}

/** @param {number} to */
function go(to) {
  if (!state.replay) return;
  const last = state.replay.steps.length - 1;
  state.at = Math.max(0, Math.min(last, to));
  if (state.at === last) stop();
  draw();
}

function stop() {
  clearInterval(state.timer);
  state.timer = undefined;
}

function play() {
  if (state.timer) { stop(); draw(); return; }
  state.timer = setInterval(() => go(state.at + 1), state.speed);
  draw();
}

/** @returns {number[]} */
function handStarts() {
  /** @type {number[]} */
  const starts = [];
  const steps = state.replay?.steps ?? [];
  steps.forEach((step, index) => {
    if (!starts.length || step.hand !== steps[starts[starts.length - 1]].hand) starts.push(index);
  });
  return starts;
}

function draw() {
  if (!state.replay) {
    renderInto(root, h("section.replay-empty.panel",
      h("h1", t("replay.title")), h("p.lede", t("replay.drop")),
      h("input#replay-file", { type: "file", accept: ".json,application/json",
        onchange: async (/** @type {{target: HTMLInputElement}} */ event) => {
          const file = event.target.files?.[0];
          if (file) loadText(await file.text());
        } }),
      state.problem ? h("p.replay-problem", { role: "alert" }, state.problem) : null));
    return;
  }
  const { steps, seats } = state.replay;
  const step = steps[state.at];
  const who = names(seats);
  const told = step.events.filter((_, i) => !state.quiet.has(`${state.at}:${i}`))
    .map((event) => describeEvent(event, who)).filter((line) => line !== null);
  renderInto(root, h("div.replay",
    h("header.replay-head",
      h("h1", t("replay.title")),
      h("p.replay-score", { id: "replay-score" },
        h("span", { dataset: { score: "0" } }, step.scores[0]), " – ", h("span", { dataset: { score: "1" } }, step.scores[1])),
      h("p.replay-where", t("replay.where", { step: state.at, steps: steps.length - 1, hand: step.hand + 1 }))),
    h("nav.replay-controls", { "aria-label": t("replay.controls") },
      h("button#replay-start.btn", { type: "button", onclick: () => go(0), "aria-label": t("replay.first") }, "|◀"),
      h("button#replay-back.btn", { type: "button", onclick: () => go(state.at - 1), disabled: state.at === 0 }, t("replay.back")),
      h("button#replay-play.btn.btn-primary", { type: "button", onclick: play }, state.timer ? t("replay.pause") : t("replay.play")),
      h("button#replay-forward.btn", { type: "button", onclick: () => go(state.at + 1),
        disabled: state.at === steps.length - 1 }, t("replay.forward")),
      h("button#replay-end.btn", { type: "button", onclick: () => go(steps.length - 1), "aria-label": t("replay.last") }, "▶|"),
      h("label", t("replay.hand"), h("select#replay-hand", { onchange: (/** @type {{target: HTMLSelectElement}} */ e) => go(Number(e.target.value)) },
        handStarts().map((index) => h("option", { value: index, selected: steps[index].hand === step.hand },
          t("replay.handN", { hand: steps[index].hand + 1 }))))),
      h("label", t("replay.speed"), h("select#replay-speed", { onchange: (/** @type {{target: HTMLSelectElement}} */ e) => {
        state.speed = Number(e.target.value); if (state.timer) { stop(); play(); } } },
      [2000, 1000, 400, 150].map((ms) => h("option", { value: ms, selected: ms === state.speed }, `${1000 / ms}×`))))),
    h("section.replay-board",
      step.hands.map((hand, seat) => h("div.replay-hand", { dataset: { seat: String(seat), team: String(teamOf(seat, seats)),
        turn: String(step.turn === seat) } },
      h("h2", who.nameOf(seat)), h("div.replay-cards", hand.map((code) => cardElement(code))))),
      h("div.replay-table", h("h2", t("tv.table")), h("div.replay-cards", step.table.map((code) => cardElement(code)))),
      h("div.replay-explain", { id: "replay-explain", "aria-live": "polite" },
        h("h2", step.action ? t("replay.action", { action: step.action }) : t("replay.startPos")),
        h("ul", told.map((line) => h(`li.log-${line.kind}`, line.text))))),
    h("aside.replay-sheet.panel", sheet(steps, state.at, who))));
}

/** @param {ReplayStep[]} steps @param {number} at @param {import("./seats.js").Names} who */
function sheet(steps, at, who) {
  /** @type {HTMLElement[]} */
  const rows = [];
  steps.slice(0, at + 1).forEach((step) => {
    for (const event of step.events) {
      if (event.type === "hand_counted") {
        rows.push(h("tr", h("th", event.hand + 1), h("td", event.piles[0]), h("td", `+${event.points[0]}`),
          h("td", event.piles[1]), h("td", `+${event.points[1]}`), h("td", step.scores.join(" – "))));
      }
    }
  });
  return [h("h2", t("tv.sheet")), h("table", h("thead", h("tr", h("th", t("tv.sheetHand")),
    h("th", { colspan: 2 }, who.teamOf(0)), h("th", { colspan: 2 }, who.teamOf(1)), h("th", t("replay.total")))),
  h("tbody", rows))];
}

setLanguage(detectLanguage());
document.title = t("replay.title");
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", async (event) => {
  event.preventDefault();
  const file = event.dataTransfer?.files?.[0];
  if (file) loadText(await file.text());
});
document.addEventListener("keydown", (event) => {
  if (!state.replay || /** @type {HTMLElement | null} */ (event.target)?.tagName === "SELECT") return;
  if (event.key === "ArrowRight") go(state.at + 1);
  if (event.key === "ArrowLeft") go(state.at - 1);
});
exposeForTests("__replay", state);
const link = new URLSearchParams(location.search).get("record");
if (link && link.startsWith("/record/")) {
  load(link.replace(/^\/record\//, "/replayed/")).catch((error) => { state.problem = error.message; draw(); });
} else {
  draw();
}
