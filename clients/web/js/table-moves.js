// @ts-check
// The player's moves as the table page sends them: nothing while the socket is down (the prompt
// says so), a play held for its confirmation under the misclick guard, R10's "nothing to claim".
import { isOffline } from "./state.js";
import { claimsPassed, holdMove, moveSent, setConfirmPlays } from "./table-choices.js";
import { remember } from "./storage.js";
import { askHint } from "./coach-hint.js";

/** @typedef {import("./model-types.js").Model} Model */
/** @typedef {import("./wire.js").LegalAction} LegalAction */
/** @typedef {import("./wire.js").Message} Message */

/**
 * @param {Model} model
 * @param {(message: Message) => Promise<Message | null>} send
 * @param {() => void} draw
 */
export function movesFor(model, send, draw) {
  setConfirmPlays(model, remember.confirmPlays());

  /** @param {LegalAction} action */
  function sendMove(action) {
    if (isOffline(model)) return; // a move sent now would be lost: the prompt says we are offline
    moveSent(model);
    send({ ...action, at: model.lastEvent });
  }

  return {
    /** A choice of the action bar: a play waits for its confirmation when the guard is on. */
    /** @param {LegalAction} action */
    act(action) {
      if (isOffline(model)) return;
      if (model.confirmPlays && action.type === "play") {
        holdMove(model, action);
        draw();
        return;
      }
      sendMove(action);
    },
    confirm() {
      if (model.held) sendMove(model.held);
      draw();
    },
    release() {
      holdMove(model, null);
      draw();
    },
    toggleConfirm() {
      setConfirmPlays(model, !model.confirmPlays);
      remember.setConfirmPlays(model.confirmPlays);
      draw();
    },
    /** What would the coach play? (to this player alone, from its own view) */
    askHint() {
      if (!isOffline(model)) askHint(/** @type {import("./model-types.js").TableModel} */ (model), send, draw);
    },
    /** R10: "nothing to claim" (a table message, not a game action): the window need not wait. */
    passClaims() {
      if (isOffline(model)) return;
      claimsPassed(model);
      send({ type: "no_claim" });
      draw();
    },
  };
}
