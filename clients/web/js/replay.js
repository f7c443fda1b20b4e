// @ts-check
// The replay viewer (/replay): a finished game from its record link
// (?record=/record/<table>/<game>?key=…, with the players' names as ?seat=…) or a dropped record
// file, stepped play by play. The positions come from the server, which replays the record
// through the engine (server/replay_positions.py). A step has its own link (#step=37): opened,
// the viewer starts there, and the address follows the steps (replaced, so Back leaves the page).
import { renderInto } from "./dom.js";
import { t } from "../i18n/index.js";
import { exposeForTests } from "./test-hooks.js";
import { pageChrome } from "./page-chrome.js";
import { emptyState, failed, lastStep, loaded, peopleOf, stepOfHash, stepTo } from "./replay-model.js";
import { replayEmpty, replayView } from "./replay-view.js";
import { animateMoves, cardPlaces } from "./replay-motion.js";
import { pointRulesAt } from "./rules-link.js";
import { fetchReview, reviewUrl } from "./replay-review.js";

const root = /** @type {HTMLElement} */ (document.querySelector("#main"));
const state = emptyState();
state.people = peopleOf(location.search);

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
  try {
    const answer = await fetch(url);
    if (!answer.ok) throw new Error(await answer.text());
    loaded(state, await answer.json(), stepOfHash(location.hash) ?? 0);
  } catch (error) {
    failed(state, /** @type {Error} */ (error).message);
  }
  draw();
}

/** @param {File} file */
async function loadFile(file) {
  await load(`/replayed?record=${await deflated(await file.text())}`);
}

/** @param {number} to */
function go(to) {
  const before = cardPlaces(root);
  const from = state.at;
  if (!stepTo(state, to)) return;
  if (state.at === lastStep(state)) stop();
  draw();
  const played = state.replay?.steps[state.at].events.find((e) => e.type === "played");
  if (state.at === from + 1) animateMoves(root, before, played && played.take.length ? played.seat : null);
}

function stop() {
  clearInterval(state.timer);
  state.timer = undefined;
}

function play() {
  if (state.timer) stop();
  else {
    if (state.at === lastStep(state)) stepTo(state, 0);
    state.timer = setInterval(() => go(state.at + 1), state.speed);
  }
  draw();
}

/** @param {number} ms */
function speed(ms) {
  state.speed = ms;
  if (state.timer) { stop(); play(); }
}

const actions = { go, play, speed, load: loadFile };

function draw() {
  document.title = t("replay.title");
  if (!state.replay) {
    renderInto(root, replayEmpty(state, actions));
    return;
  }
  renderInto(root, replayView(state, actions));
  pointRulesAt(state.replay.profile);
  const hash = `#step=${state.at}`;
  if (location.hash !== hash) history.replaceState(null, "", `${location.pathname}${location.search}${hash}`);
}

/** ←/→ a step, Home/End the first and last; not while a control that reads keys has focus. */
/** @param {KeyboardEvent} event */
function onKey(event) {
  const target = /** @type {HTMLElement | null} */ (event.target);
  if (!state.replay || event.altKey || event.ctrlKey || event.metaKey
    || ["SELECT", "INPUT", "TEXTAREA"].includes(target?.tagName || "")) return;
  const to = { ArrowRight: state.at + 1, ArrowLeft: state.at - 1, Home: 0, End: lastStep(state) }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  go(to);
}

pageChrome(draw);
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", (event) => {
  event.preventDefault();
  const file = event.dataTransfer?.files?.[0];
  if (file) loadFile(file);
});
document.addEventListener("keydown", onKey);
addEventListener("hashchange", () => {
  const asked = stepOfHash(location.hash);
  if (asked !== null && asked !== state.at) go(asked);
});
exposeForTests("__replay", state);
const link = new URLSearchParams(location.search).get("record");
if (link && link.startsWith("/record/")) {
  load(link.replace(/^\/record\//, "/replayed/"));
  const review = reviewUrl(link);
  if (review) fetchReview(review, () => { if (state.replay) draw(); });
} else draw();
