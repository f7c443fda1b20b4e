// @ts-check
// The viewer's own choices on the table page's model (state.js): the card picked and what it
// takes, folded panels, the tally and TV switches, the seat asked for, the move sent. Named
// functions, as the snapshot and event updates in state.js are: views call these, never assign.

/** @typedef {import("./model-types.js").Model} Model */
/** @typedef {import("./model-types.js").AnyEvent} AnyEvent */
/** @typedef {import("./model-types.js").Selection} Selection */

/** Selection state survives re-renders; it resets whenever the legal actions change. */
/** @returns {Selection} */
export function newSelection() {
  return { card: null, take: [] };
}

/**
 * The legal actions arrived or changed: the pick starts afresh, and when moves appeared for a
 * viewer who had none, the turn starts (the next draw focuses its first choice).
 * @param {Model} model
 * @returns {{changed: boolean, turnStarts: boolean}}
 */
export function followLegal(model) {
  const now = JSON.stringify(model.legal);
  if (now === model.legalKey) return { changed: false, turnStarts: false };
  const turnStarts = (!model.legalKey || model.legalKey === "[]") && model.legal.length > 0;
  model.legalKey = now;
  model.selection = newSelection();
  model.held = null;
  model.focusPending = turnStarts;
  return { changed: true, turnStarts };
}

/** The focus was given (or was not needed) after a turn's first draw. @param {Model} model */
export function focusDone(model) {
  const pending = model.focusPending;
  model.focusPending = false;
  return pending;
}

/** Choose a hand card (again: unchoose it); its table cards are picked afresh. */
/** @param {Model} model @param {string} code */
export function pickHandCard(model, code) {
  model.held = null;
  model.selection = { card: model.selection.card === code ? null : code, take: [] };
}

/** Toggle a table card in the manual pick (R8 prefixes: any legal take can be built by clicks). */
/** @param {Model} model @param {string} code */
export function pickTableCard(model, code) {
  model.held = null;
  const take = model.selection.take;
  model.selection = { ...model.selection,
    take: take.includes(code) ? take.filter((c) => c !== code) : [...take, code] };
}

/** @param {Model} model */
export function clearTake(model) {
  model.selection = { ...model.selection, take: [] };
}

/** This page sends the seat's move: the pick is done. @param {Model} model */
export function moveSent(model) {
  model.ownMove = true;
  model.selection = newSelection();
  model.held = null;
}

/** The misclick guard on or off (the person's setting). @param {Model} model @param {boolean} on */
export function setConfirmPlays(model, on) {
  model.confirmPlays = on;
  model.held = null;
}

/**
 * A play chosen under the misclick guard: shown selected (its card and what it takes), sent only
 * once confirmed. `null` lets go of it (the person chooses again).
 * @param {Model} model
 * @param {import("./wire.js").LegalAction | null} action
 */
export function holdMove(model, action) {
  model.held = action;
  if (action && action.card) model.selection = { card: String(action.card), take: [...(action.take || [])] };
}

/** R10: this viewer has nothing to claim this hand. @param {Model} model */
export function claimsPassed(model) {
  model.claimPassed = model.game?.handNumber ?? null;
}

/**
 * Follow a live event's effect on the viewer's panels and moves; returns whether it was a play
 * of this seat that this page did not send (a stand-in played for the player).
 * @param {Model} model
 * @param {AnyEvent} event
 */
export function followEvent(model, event) {
  const mine = model.you !== null && event.seat === model.you;
  const standInPlayed = event.type === "played" && mine && !model.ownMove && model.role === "player";
  if (event.type === "played" && mine) model.ownMove = false;
  if (event.type === "hand_counted") model.summaryOpen = true;
  // The game ended before this hand's count: the summary shown is an older hand's.
  if (event.type === "game_over" && model.summary && model.summary.hand !== model.game?.handNumber) {
    model.summaryOpen = false;
  }
  return standInPlayed;
}

/** @typedef {"summaryOpen" | "hostOpen" | "sheetOpen"} Fold */

/** A panel folded or unfolded by the person: later redraws keep it so. */
/** @param {Model} model @param {Fold} panel @param {boolean} open */
export function setFold(model, panel, open) {
  model[panel] = open;
}

/** @param {Model} model @param {boolean} on */
export function setTally(model, on) {
  model.tallyMode = on;
}

/** @param {Model} model @param {boolean} on */
export function setScreen(model, on) {
  model.screenMode = on;
}

/** The hello carries a seat token (`on`), or the token held nothing. @param {Model} model @param {boolean} on */
export function setResuming(model, on) {
  model.resuming = on;
}

/** The visitor asked to sit (at `seat`, or the first free chair): the next welcome joins. */
/** @param {Model} model @param {number | null} seat */
export function wishSeat(model, seat = null) {
  model.wantsSeat = true;
  model.wantedSeat = seat;
}

/** The join asks for the wished seat, once. @param {Model} model */
export function takeSeatWish(model) {
  const wish = { asked: model.wantsSeat, seat: model.wantedSeat };
  model.wantsSeat = false;
  model.wantedSeat = null;
  return wish;
}

/** The join was refused: `final` when this key cannot seat anyone. @param {Model} model @param {boolean} final */
export function joinRefused(model, final) {
  model.joinRefused = final;
}
