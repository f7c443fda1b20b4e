// A table page (/t/<key>): connect, take a seat or watch, keep the model current from the
// server's messages, draw it, and send the player's choices. Reconnects resume the same seat
// with the stored seat token and the last event number seen.
import { h, renderInto } from "./dom.js";
import { t } from "../i18n/index.js";
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { remember } from "./storage.js";
import {
  applyDeadlines, applyEvent, applyPresence, applySnapshot, emptyModel,
} from "./state.js";
import { describeEvent } from "./event-text.js";
import { seatName, teamName } from "./seats.js";
import { secondsLeft, tableView } from "./table-view.js";
import { newSelection } from "./play.js";
import { hostPanel } from "./host-panel.js";
import { gameOverPanel, logPanel, summaryPanel } from "./panels.js";
import { sharePanel } from "./share.js";
import { freeGameButton, freeGameKeys } from "./free-game.js";
import { toast } from "./toasts.js";
import { motionFor } from "./motion.js";
import { turnCue } from "./turn-cue.js";
import { openChat } from "./chat.js"; // issue 15: chat
import { openTv } from "./tv.js"; // issue 15: the TV table screen

/** Refusals that mean "this key cannot seat you": watch instead (a watch link, a full table). */
const WATCH_INSTEAD = new Set(["not_found", "forbidden", "no_free_seat", "table_locked", "wrong_phase",
  "seat_taken"]);

/**
 * Open the table reached through `key` in `root`; returns its redraw function, whose `close()`
 * ends the connection and the countdown timer when the page moves on.
 */
export function openTable(root, key, { errorText }) {
  const model = emptyModel();
  model.tallyMode = remember.tally();
  model.screenMode = new URLSearchParams(location.search).has("screen");
  let selection = newSelection();
  let legalKey = "";
  let summaryOpen = false;
  let focusPending = false;
  let wantsSeat = false; // the visitor asked to sit (the name panel), so the next welcome joins
  let joinRefused = false; // this key cannot seat anyone (a watch link): stop offering a seat
  const hostKey = remember.hostKey(key);

  const names = {
    nameOf: (seat) => seatName(model.table?.occupants[seat], seat, model.table?.seats ?? 4),
    teamOf: (team) => teamName(team, model.table?.seats ?? 4),
  };
  model.nameOf = names.nameOf;

  const motion = motionFor(model);
  const cue = turnCue();
  let resuming = false;
  const conn = new Connection(socketUrl(), {
    hello: () => {
      const held = remember.seat(key);
      resuming = Boolean(held?.token);
      return {
        type: "hello", version: PROTOCOL_VERSION, name: remember.name() || "guest",
        resume: held?.token ?? null,
        last_event: resuming ? (model.lastEvent || held.lastEvent || 0) : null,
      };
    },
    onMessage: receive,
    onStatus: (status) => { model.status = status; drawStatus(); },
    // A resumed seat gets its snapshot and missed events unasked; anyone else asks again.
    onWelcome: () => {
      model.welcomes += 1;
      if (resuming) return;
      // Someone who never told us a name first watches; the "sit down" panel asks for it.
      if (wantsSeat || remember.name() || hostKey) join();
      else watch();
    },
    onHelloError: (error) => {
      if (error.code === "bad_token") {
        remember.setSeat(key, null); // a stale or foreign token: start afresh
        conn.reconnectNow();
      }
    },
  });

  // issue 15: the chat panel (kept across redraws) and the TV screen of the watch link
  const chat = openChat({ request: (message) => conn.request(message), model });
  const tv = openTv(root, key, names);

  function persistEvent() {
    const held = remember.seat(key);
    if (held) remember.setSeat(key, { ...held, lastEvent: model.lastEvent });
  }

  function receive(message) {
    switch (message.type) {
      case "snapshot":
        applySnapshot(model, message);
        persistEvent();
        resetSelectionIfStale();
        draw();
        break;
      case "event": {
        if (message.n > model.seenEvent) motion.before(message.event); // where things are now
        const outcome = applyEvent(model, message.n, message.event);
        tv.remember(message.n, message.event); // issue 15
        if (outcome === "gap") {
          conn.reconnectNow(); // a lost event: resume from the last one we have (invariant 2)
          return;
        }
        if (outcome === "ok") {
          tell(message.n, message.event);
          // The table moved past the snapshot: its legal actions would be refused as stale,
          // so offer nothing until the snapshot that follows this event arrives.
          if (model.legal.length) {
            model.legal = [];
            resetSelectionIfStale();
            draw();
          }
        }
        break;
      }
      case "presence":
        applyPresence(model, message);
        draw();
        break;
      case "deadlines":
        applyDeadlines(model, message);
        draw();
        break;
      case "seated":
        remember.setSeat(key, { token: message.token, seat: message.seat, lastEvent: model.lastEvent });
        break;
      case "goodbye":
        // Kicked, or this seat was resumed elsewhere (another tab): reconnecting would only
        // push the other window out in turn, so stop here until the player reloads.
        conn.close();
        model.status = "ended";
        drawStatus();
        toast(t("table.goodbye", { reason: message.reason }), "warn");
        break;
      case "chat": // issue 15
        chat.receive(message);
        break;
      default:
        break;
    }
  }

  function tell(n, event) {
    const told = describeEvent(event, names);
    if (!told) return;
    model.log.push({ n, ...told });
    if (model.log.length > 300) model.log.splice(0, model.log.length - 300);
    saveLog();
    if (event.type === "hand_counted") summaryOpen = true;
    if (told.banner && document.visibilityState !== "hidden") toast(told.text, told.kind);
  }

  /** The log survives a reload of this tab (the server resends only the events we missed). */
  function saveLog() {
    try {
      sessionStorage.setItem(`cuarenta.log.${key}`, JSON.stringify(model.log.slice(-120)));
    } catch {
      /* storage unavailable: the log restarts after a reload */
    }
  }

  function loadLog() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(`cuarenta.log.${key}`) || "[]");
      if (Array.isArray(saved)) model.log = saved;
    } catch {
      model.log = [];
    }
  }

  function resetSelectionIfStale() {
    const now = JSON.stringify(model.legal);
    if (now !== legalKey) {
      const turnStarts = (!legalKey || legalKey === "[]") && model.legal.length > 0;
      if (turnStarts) announce(t("prompt.yourTurn"));
      cue.set(model.legal.length > 0 && model.role === "player");
      legalKey = now;
      selection = newSelection();
      focusPending = turnStarts;
    }
  }

  /** A keyboard player whose focus was lost by the redraw lands on the first choice of the turn. */
  function focusFirstChoice() {
    if (!focusPending) return;
    focusPending = false;
    const active = document.activeElement;
    if (active && active !== document.body && root.contains(active)) return;
    root.querySelector(".action-bar button, .hand button.card")?.focus({ preventScroll: true });
  }

  /** Tell screen-reader users it is their move (the banner is for eyes, this for ears). */
  function announce(text) {
    const region = document.querySelector("#announcer");
    if (region && text) region.textContent = text;
  }

  /** Send a request; a refusal is told in a banner, never swallowed. */
  async function send(message) {
    try {
      return await conn.request(message);
    } catch (error) {
      toast(errorText(error), "error");
      return null;
    }
  }

  function act(action) {
    selection = newSelection();
    send({ ...action, at: model.lastEvent });
  }

  /** R10: "nothing to claim" (a table message, not a game action): the window need not wait. */
  function passClaims() {
    model.claimPassed = model.game?.handNumber ?? null;
    send({ type: "no_claim" });
    draw();
  }

  async function start() {
    const setup = remember.setup(key) || { fillBots: true, botLevel: 3 };
    if (setup.fillBots) {
      for (const [seat, occupant] of model.table.occupants.entries()) {
        if (occupant.empty) await send({ type: "add_bot", seat, level: setup.botLevel });
      }
    }
    await send({ type: "start" });
  }

  async function join() {
    const joinWith = hostKey || key;
    const asked = wantsSeat;
    wantsSeat = false;
    try {
      await conn.request({ type: "join", key: joinWith });
    } catch (error) {
      if (error.code === "offline") return; // the next welcome tries again
      joinRefused = true;
      if (!WATCH_INSTEAD.has(error.code) || asked) toast(errorText(error), "error");
      await watch();
    }
  }

  async function watch() {
    try {
      await conn.request({ type: "watch", key: hostKey || key });
    } catch (error) {
      if (error.code !== "offline") drawFailure(errorText(error));
    }
  }

  /** Before the start, a visitor watching without a name may take a seat under a name. */
  function sitPanel() {
    if (model.role !== "spectator" || joinRefused || model.table.started) return null;
    if (!model.table.occupants.some((o) => o.empty)) return null;
    const input = h("input#sit-name", { maxlength: 32, autocomplete: "nickname", required: true,
      value: remember.name() });
    return h("form.panel.sit-panel", {
      "aria-labelledby": "sit-title",
      onsubmit: (event) => {
        event.preventDefault();
        const name = input.value.trim();
        if (!name) return;
        remember.setName(name);
        wantsSeat = true;
        conn.reconnectNow(); // the name travels in the hello of the new connection
      },
    },
    h("h2#sit-title", t("sit.title")),
    h("div.field", h("label", { for: "sit-name" }, t("home.name")), input),
    h("button.btn.btn-primary.btn-wide", { type: "submit", id: "sit-down" }, t("sit.button")),
    h("p.hint", t("sit.hint")));
  }

  function drawStatus() {
    const status = document.querySelector("#status");
    if (!status) return;
    status.dataset.status = model.status;
    status.textContent = model.status === "open" ? "" : t(`status.${model.status}`);
  }

  function drawFailure(reason) {
    renderInto(root, h("div.home", h("section.created",
      h("h1", t("table.unavailable")), h("p.lede", reason), h("a.btn.btn-primary", { href: "/" },
        t("table.backHome")))));
  }

  /** The finished game's record, for whoever holds a seat token or the host key. */
  function recordUrl() {
    const credential = remember.seat(key)?.token || hostKey;
    if (!credential || !model.table) return null;
    return `/record/${encodeURIComponent(model.table.id)}?key=${encodeURIComponent(credential)}`;
  }

  function toolbar() {
    return h("div.table-tools",
      h("button.btn.btn-small.btn-quiet", {
        type: "button", "aria-pressed": String(model.tallyMode), dataset: { focus: "tally" },
        title: t("tally.tooltip"),
        onclick: () => { model.tallyMode = !model.tallyMode; remember.setTally(model.tallyMode); draw(); },
      }, t("tally.toggle")),
      model.role === "spectator" ? h("button.btn.btn-small.btn-quiet", {
        type: "button", id: "screen-mode", dataset: { focus: "screen" },
        onclick: toggleScreen,
      }, model.screenMode ? t("screen.leave") : t("screen.enter")) : null,
      model.role === "player" ? cue.controls(draw) : null,
      model.role === "spectator" ? h("span.badge.badge-watch", t("table.watching")) : null,
      freeGameButton(model, send));
  }

  function toggleScreen() {
    model.screenMode = !model.screenMode;
    if (model.screenMode) document.documentElement.requestFullscreen?.().catch(() => {});
    else if (document.fullscreenElement) document.exitFullscreen?.().catch(() => {});
    draw();
  }

  function draw() {
    if (!model.table) return;
    document.body.classList.toggle("screen-mode", model.screenMode);
    if (model.screenMode) { tv.draw(model, toggleScreen); return; } // issue 15: the TV screen
    chat.refresh(); // issue 15
    const ctx = { selection, act, redraw: draw, tools: toolbar(), passClaims };
    const side = model.screenMode ? [logPanel(model)] : [
      model.isHost ? hostPanel(model, { send, start }) : null,
      summaryOpen ? summaryPanel(model, names, () => { summaryOpen = false; draw(); }) : null,
      logPanel(model),
      model.isHost && remember.setup(key)?.watch && !model.table.started ? h("details.panel.share-panel", { open: true },
        h("summary", t("share.title")), sharePanel({ join: key, watch: remember.setup(key)?.watch })) : null,
      chat.element, // issue 15
    ];
    renderInto(root, h("div.table-page", { dataset: { role: model.role, stage: model.table.stage,
      seat: model.you === null ? "" : String(model.you) } },
    h("div.table-main", model.screenMode ? null : sitPanel(), tableView(model, ctx),
      gameOverPanel(model, names, { rematch: () => send({ type: "rematch" }), record: recordUrl() })),
    h("aside.table-side", side)));
    fit();
    motion.after();
    focusFirstChoice();
  }

  /** The table takes the window's height below what sits above it: nothing to scroll to. */
  function fit() {
    const main = root.querySelector(".table-main");
    if (!main) return;
    const top = main.getBoundingClientRect().top + window.scrollY;
    const height = Math.max(0, Math.floor(window.innerHeight - top - 8));
    root.querySelector(".table-page")?.style.setProperty("--fit-h", `${height}px`);
  }
  window.addEventListener("resize", fit);

  /** Count down visible deadlines once a second without redrawing the table. */
  const ticker = setInterval(() => {
    for (const el of document.querySelectorAll("[data-deadline]")) {
      el.textContent = `${secondsLeft(Number(el.dataset.deadline))} s`;
    }
  }, 1000);

  // Test hook: drop the socket as a network failure would, to exercise the resume path.
  globalThis.__cuarenta = { model, dropConnection: () => conn.socket?.close(4000) };

  const stopKeys = freeGameKeys(model, send); // R14 libre-2p: N starts a new game
  loadLog();
  renderInto(root, h("p.loading", { role: "status" }, t("status.connecting")));
  conn.open();
  /** Leave this table page for good (another page takes the root): no socket, no timer left. */
  draw.close = () => {
    conn.close();
    clearInterval(ticker);
    window.removeEventListener("resize", fit);
    stopKeys();
  };
  return draw;
}
