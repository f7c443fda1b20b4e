// @ts-check
// The coach's review in the replay: for a game opened by its record link
// (/record/<table>/<game>?key=…), the server's review (/review/…, 202 until it is ready) marks
// each play good, inaccuracy, mistake or blunder, with the better play in words and how sure
// the coach is of a mark, and tells each player's accuracy. Judged at what the seat knew then: no hindsight.
import { h } from "./dom.js";
import { formatNumber, t } from "../i18n/index.js";
import { playWords } from "./coach-hint.js";
import { namesOf } from "./replay-model.js";

/**
 * @typedef {{index: number, seat: number, grade: string, loss: number, sure?: number,
 *   best: import("./coach-hint.js").HintPlay, played: import("./coach-hint.js").HintPlay}} ReviewStep
 * @typedef {{steps: ReviewStep[], seats: {seat: number, judged: number, accuracy: number | null}[]}} Review
 */

const ASK_EVERY_MS = 2000;
const ASK_AT_MOST = 90; // three minutes: a review of a long game on a busy server

/** @type {Review | null} */
let review = null;

/** The review's address for a record link naming its game (else null). @param {string} link */
export function reviewUrl(link) {
  const found = /^\/record\/([^/?]+)\/(\d+)\?(.+)$/.exec(link);
  return found ? `/review/${found[1]}/${found[2]}?${found[3]}` : null;
}

/** Ask until the review is ready, then ``ready()`` (a review is a courtesy: failures are quiet). */
/** @param {string} url @param {() => void} ready */
export async function fetchReview(url, ready, asked = 0) {
  try {
    const answer = await fetch(url);
    if (answer.status === 200) {
      review = /** @type {Review} */ (await answer.json());
      ready();
      return;
    }
    if (answer.status !== 202 || asked >= ASK_AT_MOST) return;
  } catch {
    return;
  }
  setTimeout(() => fetchReview(url, ready, asked + 1), ASK_EVERY_MS);
}

/** The mark of the play that led to step ``at`` and each player's accuracy. */
/** @param {import("./replay-model.js").ReplayState} state @returns {HTMLElement | null} */
export function reviewPanel(state) {
  if (!review) return null;
  const names = namesOf(state);
  const step = review.steps.find((each) => each.index === state.at - 1);
  const mark = step && step.grade !== "forced"
    ? h(`p#replay-mark.replay-mark.is-${step.grade}`, { dataset: { grade: step.grade } },
      t(`review.${step.grade}`, { name: names.nameOf(step.seat) }),
      step.grade === "good" ? null : ` ${t("review.better", { play: playWords(step.best) })}`,
      step.grade === "good" || step.sure === undefined ? null
        : ` ${t("review.sure", { sure: formatNumber(Math.floor(100 * step.sure)) })}`)
    : null;
  const accuracy = review.seats.filter((seat) => seat.accuracy !== null).map((seat) =>
    t("review.accuracyOf", { name: names.nameOf(seat.seat), accuracy: formatNumber(Math.round(seat.accuracy ?? 0)) }));
  return h("section.replay-review.panel", { "aria-label": t("review.title") },
    h("h2", t("review.title")), mark,
    accuracy.length ? h("p.replay-accuracy", t("review.marks", { marks: accuracy.join(" · ") })) : null);
}
