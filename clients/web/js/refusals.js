// @ts-check
// A refused request in words that say what to do instead. The server's codes are stable (main.js
// errorText words them); one, wrong_phase ("not at this moment of the table"), answers many
// different requests, so its sentence depends on what was asked.
import { t } from "../i18n/index.js";

/** What a wrong_phase refusal of each request means for the player (i18n error.wrong_phase.*). */
/** @type {Record<string, string>} */
const WRONG_PHASE = {
  play: "play", announce: "play", claim: "play", take_missed: "play",
  rematch: "rematch", start: "start",
  sit: "lobby", stand: "lobby", swap: "lobby", add_bot: "lobby", remove_bot: "lobby", set_options: "lobby",
};

/** The sentence for `error`, the refusal of `request`; `errorText` words any other refusal. */
/** @param {import("./wire.js").Refusal} error @param {import("./wire.js").Message} request @param {(error: import("./wire.js").Refusal) => string} errorText */
export function refusalText(error, request, errorText) {
  const what = error?.code === "wrong_phase" ? WRONG_PHASE[request?.type] : null;
  return what ? t(`error.wrong_phase.${what}`) : errorText(error);
}

/**
 * Refusals with nothing to tell: "nothing to claim" (R10) after the window closed by itself, a
 * start the table already made (a second click, another tab).
 */
/** @param {import("./wire.js").Refusal} error @param {import("./wire.js").Message} request @param {import("./model-types.js").Model} model */
export function refusalIsMoot(error, request, model) {
  if (error?.code !== "wrong_phase") return false;
  return request?.type === "no_claim" || (request?.type === "start" && Boolean(model?.table?.started));
}
