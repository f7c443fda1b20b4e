// @ts-check
// The table's toolbar (tally, TV screen, turn cue, watchers, the free game's N) and the side
// column beside the felt: the host's panel, the hand's summary, the score sheet, the log, the
// links to share before the start, and the chat.
import { h } from "./dom.js";
import { t, tn } from "../i18n/index.js";
import { hostPanel } from "./host-panel.js";
import { logPanel, summaryPanel } from "./panels.js";
import { sharePanel } from "./share.js";
import { freeGameButton } from "./free-game.js";
import { sheetPanel } from "./sheet.js";
import { remember } from "./storage.js";
import { setFold } from "./table-choices.js";
import { confirmSwitch } from "./confirm-play.js";
import { friendsPanel } from "./table-friends.js";

/** @typedef {import("./model-types.js").TableModel} TableModel */
/** @typedef {import("./seats.js").Names} Names */
/** @typedef {import("./wire.js").Message} Message */

/**
 * @typedef {object} SideContext
 * @property {Names} names
 * @property {string} key the join link of the table
 * @property {() => void} redraw
 * @property {(message: Message) => Promise<Message | null>} send
 * @property {() => Promise<void>} start
 * @property {boolean} fillBots
 * @property {() => void} toggleTally
 * @property {() => void} toggleScreen
 * @property {(redraw: () => void) => (HTMLElement | null)[]} cueControls
 * @property {HTMLElement} chat
 * @property {() => void} toggleConfirm the misclick guard's switch
 * @property {(id: string) => void} invite invite a friend to this table
 */

/** @param {TableModel} model @param {SideContext} ctx */
export function toolbar(model, ctx) {
  const table = model.table;
  return h("div.table-tools",
    h("button.btn.btn-small.btn-quiet", {
      type: "button", "aria-pressed": String(model.tallyMode), dataset: { focus: "tally" },
      title: t("tally.tooltip"), onclick: ctx.toggleTally,
    }, t("tally.toggle")),
    model.role === "spectator" ? h("button.btn.btn-small.btn-quiet", {
      type: "button", id: "screen-mode", dataset: { focus: "screen" }, onclick: ctx.toggleScreen,
    }, model.screenMode ? t("screen.leave") : t("screen.enter")) : null,
    model.role === "player" ? ctx.cueControls(ctx.redraw) : null,
    table.spectators && model.role === "player" ? h("span#watchers.badge.badge-watchers",
      { title: t("table.watchers.tooltip") }, tn("table.spectators", table.spectators)) : null,
    model.role === "spectator" ? h("span.badge.badge-watch", t("table.watching")) : null,
    freeGameButton(model, ctx.send));
}

/**
 * @param {TableModel} model
 * @param {SideContext} ctx
 * @param {import("./sheet.js").SheetRow[]} rows the score sheet's rows
 */
export function sideColumn(model, ctx, rows) {
  const table = model.table;
  const finished = model.game?.phase === "finished";
  const watch = remember.setup(ctx.key)?.watch;
  return [
    model.isHost ? hostPanel(model, { send: ctx.send, start: ctx.start, fillBots: ctx.fillBots,
      open: model.hostOpen, onToggle: (/** @type {boolean} */ open) => setFold(model, "hostOpen", open) }) : null,
    model.summaryOpen ? summaryPanel(model, ctx.names, () => {
      setFold(model, "summaryOpen", false);
      ctx.redraw();
    }) : null,
    // the sheet unfolds itself at a hand's count and at the end, else as the player left it
    table.started ? sheetPanel(rows, ctx.names, finished || model.summaryOpen || model.sheetOpen,
      (/** @type {boolean} */ open) => setFold(model, "sheetOpen", open)) : null,
    friendsPanel(model, ctx.invite),
    logPanel(model, ctx.names),
    model.isHost && watch && !table.started ? h("details.panel.share-panel", { open: true },
      h("summary", t("share.title")), sharePanel({ join: ctx.key, watch })) : null,
    ctx.chat,
    confirmSwitch(model, ctx.toggleConfirm),
  ];
}
