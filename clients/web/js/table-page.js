// A table page (/t/<key>): connect, take a seat or watch, keep the model current from the
// server's messages, draw it, and send the player's choices. Reconnects resume the same seat
// with the stored seat token and the last event number seen.
import { h, renderInto } from "./dom.js";
import { t, tn } from "../i18n/index.js";
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { remember } from "./storage.js";
import {
  applyDeadlines, applyEvent, applyPresence, applySnapshot, emptyModel,
} from "./state.js";
import { describeEvent, quietEvents } from "./event-text.js";
import { seatName, teamPlayers } from "./seats.js";
import { secondsLeft, tableView } from "./table-view.js";
import { newSelection } from "./play.js";
import { hostPanel } from "./host-panel.js";
import { gameOverPanel, logPanel, summaryPanel, viewerOf } from "./panels.js";
import { sharePanel } from "./share.js";
import { freeGameButton, freeGameKeys } from "./free-game.js";
import { clearToasts, toast } from "./toasts.js";
import { refusalIsMoot, refusalText } from "./refusals.js";
import { cardName } from "./cards.js";
import { gameEvents, lastSummary } from "./state.js";
import { sheetPanel, sheetRows, sheetTable } from "./sheet.js";
import { motionFor } from "./motion.js";
import { turnCue } from "./turn-cue.js";
import { openChat } from "./chat.js"; // issue 15: chat
import { openTv } from "./tv.js"; // issue 15: the TV table screen
import { yourChairNote } from "./seat-choice.js";

/** Refusals that mean "this key cannot seat you": watch instead (a watch link, a full table). */
const WATCH_INSTEAD = new Set(["not_found", "forbidden", "no_free_seat", "table_locked", "wrong_phase",
  "seat_taken"]);
/** Refusals that leave the choice open: someone else was quicker to that chair (or to the last). */
const CHOOSE_AGAIN = new Set(["seat_taken", "no_free_seat"]);

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
  let hostOpen = false; // the host unfolded her panel during the game
  let sheetOpen = false; // the player unfolded the score sheet: the next event leaves it open
  let focusPending = false;
  let drawnStarted = null; // whether the table last drawn had started: the start is its change
  let wantsSeat = false; // the visitor asked to sit (the name panel), so the next welcome joins
  let joinRefused = false; // this key cannot seat anyone (a watch link): stop offering a seat
  let wantedSeat = null; // the free chair the visitor clicked, or null for the first free one
  let typedName = null; // the name being typed in the "choose your chair" panel
  const hostKey = remember.hostKey(key);

  const names = {
    nameOf: (seat) => seatName(model.table?.occupants[seat], seat, model.table?.seats ?? 4),
    teamOf: (team) => teamPlayers(team, model.table?.seats ?? 4, model.table?.occupants),
    get seats() { return model.table?.seats ?? 4; },
  };
  model.nameOf = names.nameOf;
  model.teamOf = names.teamOf;

  const motion = motionFor(model);
  const cue = turnCue();
  let resuming = false;
  let ownMove = false; // this page sent the seat's move: a play it did not send was a stand-in's
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
      enter();
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

  /** Someone who never told us a name first watches; the "sit down" panel asks for it. */
  function enter() {
    if (wantsSeat || remember.name() || hostKey) join();
    else watch();
  }

  function persistEvent() {
    const held = remember.seat(key);
    if (held) remember.setSeat(key, { ...held, lastEvent: model.lastEvent });
  }

  function receive(message) {
    switch (message.type) {
      case "snapshot":
        applySnapshot(model, message);
        fetchHistory();
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
      case "error":
        // The hello was welcomed but its seat token holds nothing (the table is gone, or the
        // seat was given up): enter as a newcomer would, which finds out whether it still exists.
        if (message.code === "bad_token" && resuming) {
          resuming = false;
          remember.setSeat(key, null);
          enter();
        }
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

  /**
   * Keep the event (the log and the score sheet are drawn from events, in the language and with
   * the names of the moment they are drawn), and tell what deserves a glance.
   */
  function tell(n, event) {
    model.events.set(n, event);
    saveLog();
    const mine = model.you !== null && event.seat === model.you;
    if (event.type === "played" && mine && !ownMove && model.role === "player") {
      toast(t("notice.botPlayed", { card: cardName(event.card) }), "warn"); // a stand-in played
    }
    if (event.type === "played" && mine) ownMove = false;
    if (event.type === "stand_in" && mine && event.active) toast(t("notice.standIn"), "warn");
    if (event.type === "hand_counted") summaryOpen = true;
    // The game ended before this hand's count: the summary shown is an older hand's.
    if (event.type === "game_over" && model.summary && model.summary.hand !== model.game?.handNumber) {
      summaryOpen = false;
    }
    const told = describeEvent(event, names);
    // A banner for a line the log leaves out (a claim window nobody here could use) is noise too.
    if (told?.banner && document.visibilityState !== "hidden"
      && !quietEvents(gameEvents(model), viewerOf(model)).has(n)) toast(told.text, told.kind);
  }

  /** The events survive a reload of this tab; the whole log comes from /watch-log anyway. */
  function saveLog() {
    try {
      const kept = [...model.events.entries()].sort((a, b) => a[0] - b[0]).slice(-300);
      sessionStorage.setItem(`cuarenta.events.${key}`, JSON.stringify(kept));
    } catch {
      /* storage unavailable: the fetched log fills in after a reload */
    }
  }

  function loadLog() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(`cuarenta.events.${key}`) || "[]");
      if (Array.isArray(saved)) for (const [n, event] of saved) model.events.set(n, event);
    } catch {
      /* nothing kept */
    }
  }

  /**
   * The table's whole public log (a spectator arriving mid-game, a reload, a return): the same
   * redacted events a spectator receives, so nothing private; live events keep their own form.
   */
  let historyFetched = -1;
  async function fetchHistory() {
    if (historyFetched === model.welcomes) return;
    historyFetched = model.welcomes;
    try {
      const answer = await (await fetch(`/watch-log/${encodeURIComponent(hostKey || key)}`)).json();
      for (const { n, event } of answer.log || []) if (!model.events.has(n)) model.events.set(n, event);
      const events = gameEvents(model);
      if (!model.summary) model.summary = lastSummary(events);
      if (!model.lastPlay) model.lastPlay = events.map(([, e]) => e).filter((e) => e.type === "played").pop() ?? null;
      draw();
    } catch {
      historyFetched = -1; // try again with the next snapshot
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

  /** Send a request; a refusal is told in a banner (what to do instead), never swallowed. */
  async function send(message) {
    try {
      return await conn.request(message);
    } catch (error) {
      if (!refusalIsMoot(error, message, model)) toast(refusalText(error, message, errorText), "error");
      return null;
    }
  }

  function act(action) {
    ownMove = true;
    selection = newSelection();
    send({ ...action, at: model.lastEvent });
  }

  /** R10: "nothing to claim" (a table message, not a game action): the window need not wait. */
  function passClaims() {
    model.claimPassed = model.game?.handNumber ?? null;
    send({ type: "no_claim" });
    draw();
  }

  /** Whether the start fills free chairs with bots: the home form's choice (yes if unknown). */
  function fillsBots() {
    return remember.setup(key)?.fillBots ?? true;
  }

  async function start() {
    const setup = remember.setup(key) || { fillBots: true, botLevel: 3 };
    if (fillsBots()) {
      for (const [seat, occupant] of model.table.occupants.entries()) {
        if (occupant.empty) await send({ type: "add_bot", seat, level: setup.botLevel });
      }
    }
    await send({ type: "start" });
  }

  /** A visitor chose a free chair: sit there under the name given (asked for if missing). */
  function sitAt(seat) {
    const input = root.querySelector("#sit-name");
    const name = (input?.value ?? remember.name()).trim();
    if (!name) {
      input?.focus();
      toast(t("sit.needName"), "warn");
      return;
    }
    remember.setName(name);
    wantsSeat = true;
    wantedSeat = seat;
    conn.reconnectNow(); // the name travels in the hello of the new connection
  }

  /** A seated player moves to a free chair before the start (the protocol's sit). */
  function moveTo(seat) {
    send({ type: "sit", seat });
  }

  /**
   * Who may take a free chair now, and how: a visitor sits, a seated guest moves; else null (the
   * host arranges the chairs, her own too, from the host panel: the page's gold is her start).
   */
  function chairChoice() {
    if (model.table.started) return null;
    if (model.role === "player") return model.isHost ? null : { take: moveTo, moving: true };
    if (model.role === "spectator" && model.canSit && !joinRefused) {
      return { take: sitAt, moving: false };
    }
    return null;
  }

  async function join() {
    const joinWith = hostKey || key;
    const asked = wantsSeat;
    const seat = wantedSeat;
    wantsSeat = false;
    wantedSeat = null;
    try {
      await conn.request({ type: "join", key: joinWith, seat });
    } catch (error) {
      if (error.code === "offline") return; // the next welcome tries again
      joinRefused = !CHOOSE_AGAIN.has(error.code);
      if (!WATCH_INSTEAD.has(error.code) || asked) toast(errorText(error), "error");
      await watch();
    }
  }

  async function watch() {
    try {
      await conn.request({ type: "watch", key: hostKey || key });
    } catch (error) {
      if (error.code === "not_found") drawGone();
      else if (error.code !== "offline") drawFailure(errorText(error));
    }
  }

  /**
   * Before the start, a visitor watching through the join link chooses a chair under a name: the
   * free chairs around the table say with whom and against whom each one plays, and a click on
   * one sits there; "any chair" takes the first free one. What is typed survives the redraws
   * that others' arrivals cause.
   */
  function sitPanel() {
    if (model.role !== "spectator" || !model.canSit || joinRefused || model.table.started) {
      return null; // a watch link's viewer is not offered a chair the server would refuse
    }
    if (!model.table.occupants.some((o) => o.empty)) return null;
    if (typedName === null) typedName = remember.name();
    const input = h("input#sit-name", { maxlength: 32, autocomplete: "nickname", required: true,
      value: typedName, dataset: { focus: "sit-name" },
      oninput: (event) => { typedName = event.target.value; } });
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
    h("div.sit-row",
      h("div.field", h("label", { for: "sit-name" }, t("home.name")), input),
      h("button.btn", { type: "submit", id: "sit-down" }, t("sit.button"))),
    h("p.hint", t(model.table.seats === 4 ? "sit.hint" : "sit.hint.two", { button: t("seat.sitHere") })));
  }

  /** A redraw put the focus back in the name field: the caret goes back after what was typed. */
  function keepCaretAtEnd(input) {
    if (input && document.activeElement === input) input.setSelectionRange(input.value.length, input.value.length);
  }

  function drawStatus() {
    const status = document.querySelector("#status");
    if (!status) return;
    status.dataset.status = model.status;
    status.textContent = statusText();
    const loading = root.querySelector(".loading");
    if (loading && model.status !== "open") loading.textContent = statusText() || t("status.connecting");
  }

  function statusText() {
    if (model.status === "open") return "";
    if (model.status === "lost" && conn.retryAt) {
      return t("status.retrying", { s: Math.max(1, Math.ceil((conn.retryAt - Date.now()) / 1000)) });
    }
    return t(`status.${model.status}`);
  }

  /**
   * The table no longer exists (a server restart on the memory store, or an expired table): say
   * so plainly, stop reconnecting, and offer a new table (the home page keeps the name).
   */
  function drawGone() {
    conn.close();
    clearInterval(ticker);
    model.status = "gone";
    drawStatus();
    remember.setSeat(key, null);
    clearToasts();
    document.body.classList.remove("screen-mode");
    renderInto(root, h("div.home", h("section.created.table-gone",
      h("h1#gone-title", t("gone.title")), h("p.lede", t("gone.text")),
      h("div.form-actions", h("a#new-table.btn.btn-primary", { href: "/" }, t("gone.newTable"))),
      h("p.hint", t("gone.hint")))));
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
      model.table.spectators && model.role === "player" ? h("span#watchers.badge.badge-watchers", { title: t("table.watchers.tooltip") },
        tn("table.spectators", model.table.spectators)) : null,
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
    const starting = drawnStarted === false && model.table.started && model.you !== null;
    drawnStarted = model.table.started;
    document.body.classList.toggle("screen-mode", model.screenMode);
    if (model.screenMode) { // issue 15: the TV screen, sized by the screen's height alone
      unfit();
      tv.draw(model, toggleScreen);
      return;
    }
    chat.refresh(); // issue 15
    const ctx = { selection, act, redraw: draw, tools: toolbar(), passClaims, chooseChair: chairChoice() };
    const events = gameEvents(model);
    const rows = sheetRows(events, model.table.seats);
    const finished = model.game?.phase === "finished";
    const side = model.screenMode ? [logPanel(model, names)] : [
      model.isHost ? hostPanel(model, { send, start, fillBots: fillsBots(),
        open: hostOpen, onToggle: (open) => { hostOpen = open; } }) : null,
      summaryOpen ? summaryPanel(model, names, () => { summaryOpen = false; draw(); }) : null,
      // the sheet unfolds itself at a hand's count and at the end, else as the player left it
      model.table.started ? sheetPanel(rows, names, finished || summaryOpen || sheetOpen,
        (open) => { sheetOpen = open; }) : null,
      logPanel(model, names),
      model.isHost && remember.setup(key)?.watch && !model.table.started ? h("details.panel.share-panel", { open: true },
        h("summary", t("share.title")), sharePanel({ join: key, watch: remember.setup(key)?.watch })) : null,
      chat.element, // issue 15
    ];
    renderInto(root, h("div.table-page", { dataset: { role: model.role, stage: model.table.stage,
      seat: model.you === null ? "" : String(model.you) } },
    h("div.table-main", model.screenMode ? null : sitPanel(),
      model.screenMode || model.isHost ? null : yourChairNote(model), tableView(model, ctx),
      gameOverPanel(model, names, { rematch: () => send({ type: "rematch" }), record: recordUrl(),
        sheet: rows.length ? h("div.end-sheet", sheetTable(rows, names)) : null })),
    h("aside.table-side", side)));
    keepCaretAtEnd(root.querySelector("#sit-name"));
    fit();
    if (starting) bringTableIntoView();
    motion.after();
    focusFirstChoice();
    cue.follow(); // the hand may have moved out of sight (or back)
  }

  /**
   * The game starts: a player who pressed "Empezar" below the table (a phone's host) or read the
   * chat there sees the first cards dealt, since the table fills the window from the page's top
   * (fit). Only then: a reader who scrolls down later keeps her place.
   */
  function bringTableIntoView() {
    if (window.scrollY === 0) return;
    const still = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    window.scrollTo({ top: 0, behavior: still ? "auto" : "smooth" });
  }

  /** The table takes the window's height below what sits above it: nothing to scroll to. */
  function fit() {
    const main = root.querySelector(".table-main");
    if (!main) return;
    const page = root.querySelector(".table-page");
    // The room beyond a 1366x768 laptop's (a big monitor, a family TV): the cards grow in
    // proportion with it and the table's text by part of it (style.css --room, --text); a
    // laptop's or a phone's window keeps the sizes it was fitted at.
    // On the root: the top bar and the notice strip above the table grow with it.
    const room = Math.max(1, Math.min(window.innerWidth / 1366, window.innerHeight / 768));
    const text = 1 + (room - 1) * 0.6;
    document.documentElement.style.setProperty("--room", room.toFixed(3));
    document.documentElement.style.setProperty("--text", text.toFixed(3));
    const top = main.getBoundingClientRect().top + window.scrollY;
    const height = Math.max(0, Math.floor(window.innerHeight - top - 8));
    page?.style.setProperty("--fit-h", `${height}px`);
    // Cards as large as the height allows: a short table (the solo page's bar above it) gets
    // smaller cards rather than a hand below the fold.
    const card = Math.max(34, Math.min(76 * room, window.innerWidth * 0.12, (height - 260 * text) / 3.9));
    page?.style.setProperty("--card-w", `${Math.floor(card)}px`);
    fitFelt(Math.floor(card));
  }

  /** The page's sizes go with it (a TV screen or the next page sizes itself). */
  function unfit() {
    for (const name of ["--room", "--text"]) document.documentElement.style.removeProperty(name);
  }

  /**
   * The felt's cards as large as its room allows, `card` at most: its lines (the last play, the
   * caída warning, the claim window) keep their height and the cards share what is left, in the
   * number of rows that makes them largest. A crowded felt or a short window (a chosen card's
   * choices below) gets smaller cards, never cards or a line cut by the felt's rim.
   */
  function fitFelt(card) {
    const felt = root.querySelector(".felt");
    const cards = felt?.querySelector(".table-cards");
    if (!cards) return;
    const box = getComputedStyle(felt);
    const gaps = getComputedStyle(cards);
    const gap = parseFloat(gaps.columnGap) || 0;
    const rowGap = parseFloat(gaps.rowGap) || 0;
    const width = felt.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight);
    let height = felt.clientHeight - parseFloat(box.paddingTop) - parseFloat(box.paddingBottom);
    for (const line of felt.children) {
      if (line !== cards) height -= line.offsetHeight + (parseFloat(box.rowGap) || 0);
    }
    const count = cards.children.length;
    let best = 0;
    for (let rows = 1; rows <= Math.min(count, 4); rows += 1) {
      const perRow = Math.ceil(count / rows);
      best = Math.max(best, Math.min(card, (width - (perRow - 1) * gap) / perRow,
        (height - (rows - 1) * rowGap) / rows / 1.5));
    }
    cards.style.setProperty("--felt-card-w", `${Math.max(16, Math.floor(best))}px`);
  }
  window.addEventListener("resize", fit);

  /** Count down visible deadlines once a second without redrawing the table. */
  const ticker = setInterval(() => {
    if (model.status === "lost") drawStatus();
    for (const el of document.querySelectorAll("[data-deadline]")) {
      el.textContent = `${secondsLeft(Number(el.dataset.deadline))} s`;
    }
  }, 1000);

  // Test hook: drop the socket as a network failure would, to exercise the resume path; send a
  // request as the page's buttons do (its refusal told as theirs is).
  globalThis.__cuarenta = { model, dropConnection: () => conn.socket?.close(4000), send };

  const stopKeys = freeGameKeys(model, send); // R14 libre-2p: N starts a new game
  loadLog();
  renderInto(root, h("p.loading", { role: "status" }, t("status.connecting")));
  conn.open();
  /** Leave this table page for good (another page takes the root): no socket, no timer left. */
  draw.close = () => {
    conn.close();
    clearInterval(ticker);
    window.removeEventListener("resize", fit);
    unfit();
    cue.close();
    stopKeys();
  };
  return draw;
}
