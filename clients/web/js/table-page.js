// @ts-check
// A table page (/t/<key>): wires the connection to the model and the model to the views. Each
// server message goes to a named update of the model (state.js), each choice of the viewer to
// one too (table-choices.js); then the views draw from the model. Reconnects resume the same
// seat with the stored seat token and the last event number seen (table-seating.js).
import { h, renderInto } from "./dom.js";
import { t } from "../i18n/index.js";
import { Connection, socketUrl } from "./connection.js";
import { remember, tabLog } from "./storage.js";
import {
  applyDeadlines, applyEvent, applyPresence, applySnapshot, dropLegal, emptyModel, gameEvents,
  keepEvent, logFetchFailed, mergeLog, setStatus, startLogFetch, welcomed,
} from "./state.js";
import { focusDone, followEvent, followLegal, setScreen, setTally } from "./table-choices.js";
import { movesFor } from "./table-moves.js";
import { namesAt } from "./seats.js";
import { tableView, timeLeft } from "./table-view.js";
import { gameOverPanel } from "./panels.js";
import { freeGameKeys } from "./free-game.js";
import { clearToasts, toast } from "./toasts.js";
import { refusalIsMoot, refusalText } from "./refusals.js";
import { sheetRows, sheetTable } from "./sheet.js";
import { motionFor } from "./motion.js";
import { turnCue } from "./turn-cue.js";
import { openChat } from "./chat.js";
import { openTv } from "./tv.js";
import { yourChairNote } from "./seat-choice.js";
import { keepCaretAtEnd, sitPanelView } from "./sit-panel.js";
import { paceNote } from "./pace.js";
import { seatingFor } from "./table-seating.js";
import { tellEvent } from "./table-notices.js";
import { sideColumn, toolbar } from "./table-side.js";
import { bringTableIntoView, fit, unfit } from "./table-fit.js";
import { announce, drawFailure, drawGone, drawStatus } from "./table-status.js";
import { exposeForTests } from "./test-hooks.js";
import { cardKeys } from "./card-keys.js";
import { tableFriends } from "./table-friends.js";

/** @typedef {import("./wire.js").Message} Message */
/** @typedef {import("./wire.js").LegalAction} LegalAction */
/** @typedef {(() => void) & {close?: () => void}} Redraw */

/**
 * Open the table reached through `key` in `root`; returns its redraw function, whose `close()`
 * ends the connection and the countdown timer when the page moves on.
 * @param {HTMLElement} root
 * @param {string} key
 * @param {{errorText: (error: import("./wire.js").Refusal) => string}} page
 * @returns {Redraw}
 */
export function openTable(root, key, { errorText }) {
  const model = emptyModel();
  setTally(model, remember.tally());
  setScreen(model, new URLSearchParams(location.search).has("screen"));
  const hostKey = remember.hostKey(key);
  const names = namesAt(model);
  const motion = motionFor(model);
  const cue = turnCue();
  /** @type {boolean | null} whether the table last drawn had started: the start is its change */
  let drawnStarted = null;

  const conn = new Connection(socketUrl(), {
    hello: () => seating.hello(),
    onMessage: receive,
    onStatus: (status) => { setStatus(model, status); showStatus(); draw(); },
    onWelcome: () => { welcomed(model); seating.welcomed(); friends.welcomed(); },
    onHelloError: (error) => {
      if (/** @type {import("./wire.js").Refusal} */ (error).code !== "bad_token") return;
      remember.setSeat(key, null); // a stale or foreign token: start afresh
      conn.reconnectNow();
    },
  });
  const seating = seatingFor({ model, conn, key, hostKey, errorText, send, gone, failed: (reason) => drawFailure(root, reason) });
  const friends = tableFriends(model, conn, () => draw());
  const chat = openChat({ request: (message) => conn.request(message), model });
  const tv = openTv(root, key, names);
  const sitPanel = sitPanelView((name) => seating.sitDown(name));
  const moves = movesFor(model, send, draw);

  /** @param {Message} message */
  function receive(message) {
    switch (message.type) {
      case "snapshot":
        applySnapshot(model, /** @type {import("./wire.js").Snapshot} */ (message));
        if (message.chat) chat.restore(model.chatBefore); // a whole snapshot: the chat so far
        fetchHistory();
        persistEvent();
        legalChanged();
        draw();
        break;
      case "event": {
        if (message.n > model.seenEvent) motion.before(message.event); // where things are now
        const outcome = applyEvent(model, message.n, message.event);
        tv.remember(message.n, message.event);
        if (outcome === "gap") {
          conn.reconnectNow(); // a lost event: resume from the last one we have (invariant 2)
          return;
        }
        if (outcome !== "ok") return;
        keepEvent(model, message.n, message.event);
        tabLog.save(key, model.events);
        tellEvent(model, message.n, message.event, names, followEvent(model, message.event));
        if (dropLegal(model)) {
          legalChanged();
          draw();
        }
        break;
      }
      case "presence":
        applyPresence(model, /** @type {any} */ (message));
        draw();
        break;
      case "deadlines":
        applyDeadlines(model, /** @type {any} */ (message));
        draw();
        break;
      case "seated":
        remember.setSeat(key, { token: message.token, seat: message.seat, lastEvent: model.lastEvent });
        break;
      case "error":
        if (message.code === "bad_token") seating.tokenRefused();
        break;
      case "goodbye":
        // Kicked, or this seat was resumed elsewhere (another tab): reconnecting would only
        // push the other window out in turn, so stop here until the player reloads.
        conn.close();
        setStatus(model, "ended");
        showStatus();
        toast(t("table.goodbye", { reason: message.reason }), "warn");
        break;
      case "chat":
        chat.receive(message);
        break;
      default:
        friends.receive(message); // the person's news: a rating change, an invitation, friends
        break;
    }
  }

  function persistEvent() {
    const held = remember.seat(key);
    if (held) remember.setSeat(key, { ...held, lastEvent: model.lastEvent });
    if (held && model.table) remember.setTableSeat(model.table.id, { key, token: held.token }); // /me's replays
  }

  /**
   * The table's whole public log (a spectator arriving mid-game, a reload, a return): the same
   * redacted events a spectator receives, so nothing private; live events keep their own form.
   */
  async function fetchHistory() {
    if (!startLogFetch(model)) return;
    try {
      const answer = await (await fetch(`/watch-log/${encodeURIComponent(hostKey || key)}`)).json();
      mergeLog(model, answer.log || []);
      draw();
    } catch {
      logFetchFailed(model);
    }
  }

  function legalChanged() {
    const { changed, turnStarts } = followLegal(model);
    if (turnStarts) announce(t("prompt.yourTurn"));
    if (changed) cue.set(model.legal.length > 0 && model.role === "player");
  }

  /**
   * Send a request; a refusal is told in a banner (what to do instead), never swallowed.
   * @param {Message} message
   * @returns {Promise<Message | null>}
   */
  async function send(message) {
    try {
      return await conn.request(message);
    } catch (error) {
      const refusal = /** @type {import("./wire.js").Refusal} */ (error);
      if (!refusalIsMoot(refusal, message, model)) toast(refusalText(refusal, message, errorText), "error");
      return null;
    }
  }

  function toggleScreen() {
    setScreen(model, !model.screenMode);
    if (model.screenMode) document.documentElement.requestFullscreen?.().catch(() => {});
    else if (document.fullscreenElement) document.exitFullscreen?.().catch(() => {});
    draw();
  }

  function toggleTally() {
    setTally(model, !model.tallyMode);
    remember.setTally(model.tallyMode);
    draw();
  }

  function showStatus() {
    drawStatus(root, model, conn.retryAt);
  }

  function gone() {
    conn.close();
    clearInterval(ticker);
    setStatus(model, "gone");
    showStatus();
    remember.setSeat(key, null);
    clearToasts();
    drawGone(root);
  }

  /** The finished game's record, for whoever holds a seat token or the host key. */
  function recordUrl() {
    const credential = remember.seat(key)?.token || hostKey;
    if (!credential || !model.table) return null;
    return `/record/${encodeURIComponent(model.table.id)}?key=${encodeURIComponent(credential)}`;
  }

  /** @type {Redraw} */
  function draw() {
    if (!model.table) return;
    const drawn = /** @type {import("./model-types.js").TableModel} */ (model);
    const table = drawn.table;
    const starting = drawnStarted === false && table.started && model.you !== null;
    drawnStarted = table.started;
    document.body.classList.toggle("screen-mode", model.screenMode);
    if (model.screenMode) { // the TV screen, sized by the screen's height alone
      unfit();
      tv.draw(model, toggleScreen);
      return;
    }
    chat.refresh();
    const side = { names, key, redraw: draw, send, start: seating.start, fillBots: seating.fillsBots(),
      toggleTally, toggleScreen, cueControls: cue.controls, chat: chat.element,
      toggleConfirm: moves.toggleConfirm, invite: friends.invite };
    const rows = sheetRows(gameEvents(model), table.seats);
    const ctx = { ...moves, redraw: draw, names, tools: toolbar(drawn, side),
      chooseChair: seating.chairChoice(), befriend: friends.befriend };
    renderInto(root, h("div.table-page", { dataset: { role: model.role, stage: table.stage,
      seat: model.you === null ? "" : String(model.you) } },
    h("div.table-main", h("h1.visually-hidden", t("access.tableHeading")), sitPanel.draw(drawn) ?? paceNote(drawn), drawn.isHost ? null : yourChairNote(drawn),
      tableView(drawn, ctx),
      gameOverPanel(drawn, names, { rematch: () => send({ type: "rematch" }), record: recordUrl(),
        befriend: friends.befriend,
        sheet: rows.length ? h("div.end-sheet", { role: "region", tabindex: "0", "aria-label": t("sheet.title") },
          sheetTable(rows, names)) : null })),
    h("aside.table-side", sideColumn(drawn, side, rows))));
    keepCaretAtEnd(root);
    fit(root);
    if (starting) bringTableIntoView();
    motion.after();
    focusFirstChoice();
    cue.follow(); // the hand may have moved out of sight (or back)
  }

  /** A keyboard player whose focus was lost by the redraw lands on the first choice of the turn. */
  function focusFirstChoice() {
    if (!focusDone(model)) return;
    const active = document.activeElement;
    if (active && active !== document.body && root.contains(active)) return;
    /** @type {HTMLElement | null} */ (root.querySelector(".action-bar button, .hand button.card"))
      ?.focus({ preventScroll: true });
  }

  const onResize = () => fit(root);
  window.addEventListener("resize", onResize);
  /** Count down visible deadlines once a second without redrawing the table. */
  const ticker = setInterval(() => {
    if (model.status === "lost") showStatus();
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-deadline]"))) {
      el.textContent = timeLeft(Number(el.dataset.deadline));
    }
  }, 1000);

  // Drop the socket as a network failure would, to exercise the resume path; send a request as
  // the page's buttons do (its refusal told as theirs is).
  exposeForTests("__cuarenta", { model, dropConnection: () => conn.socket?.close(4000), send });

  const stopKeys = freeGameKeys(model, send); // R14 libre-2p: N starts a new game
  const stopCardKeys = cardKeys(root);
  for (const [n, event] of tabLog.load(key)) keepEvent(model, n, event);
  renderInto(root, h("p.loading", { role: "status" }, t("status.connecting")));
  conn.open();
  /** Leave this table page for good (another page takes the root): no socket, no timer left. */
  draw.close = () => {
    conn.close();
    clearInterval(ticker);
    window.removeEventListener("resize", onResize);
    unfit();
    cue.close();
    stopKeys();
    stopCardKeys();
  };
  return draw;
}
