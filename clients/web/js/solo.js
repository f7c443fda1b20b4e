// @ts-check
// The solo streak ladder (R14), at /?solo: one person against bots of rising level. The server
// keeps the ladder under a token this browser stores; each chica is an ordinary heads-up table
// drawn by the table page below the ladder bar, resumed with the seat token the ladder hands out.
// The chica waits for its person (the server never plays for them); a finished chica's result
// and the choice of what next stay on screen, also after a reload, until the person chooses.
import { h, renderInto } from "./dom.js";
import { formatNumber, t } from "../i18n/index.js";
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { remember } from "./storage.js";
import { playerHello } from "./player.js";
import { openTable } from "./table-page.js";
import { toast } from "./toasts.js";

/** Scores grouped the way the chosen language writes them ("10.038" in es, "10,038" in en). */
const number = formatNumber;

/** "+12" for a margin, "−8" for a deficit. */
/** @param {number} n */
function signed(n) {
  return n > 0 ? `+${number(n)}` : n < 0 ? `−${number(-n)}` : "0";
}

/**
 * @param {HTMLElement} root
 * @param {{errorText: (error: import("./wire.js").Refusal) => string}} page
 */
export function openSolo(root, { errorText }) {
  /** @type {import("./wire.js").Message | null} the last `ladder` message */
  let state = null;
  /** @type {{name: string, score: number}[]} */
  let board = [];
  /** @type {string | null} the table the page below the bar is drawing */
  let shownTable = null;
  let busy = false;
  const bar = h("section.solo-bar", { "aria-labelledby": "solo-title", "aria-live": "polite" });
  const tableRoot = h("div.solo-table");

  const conn = new Connection(socketUrl(), {
    hello: () => ({ type: "hello", version: PROTOCOL_VERSION, name: remember.name() || t("solo.playerName"),
      ...playerHello() }),
    onMessage: () => {},
    onStatus: () => {},
    onWelcome: () => { refresh({ deal: !shownTable }); },
  });

  /** @param {import("./wire.js").Message} message @returns {Promise<import("./wire.js").Message | null>} */
  async function ask(message) {
    try {
      return await conn.request(message);
    } catch (caught) {
      const error = /** @type {import("./wire.js").Refusal} */ (caught);
      if (error.code !== "offline") toast(errorText(error), "error");
      return null;
    }
  }

  /**
   * Show the ladder (the server settles a finished chica first). A first visit deals at once;
   * after a finished chica its result and the choice stay until the person makes it.
   */
  async function refresh({ deal = false } = {}) {
    const opened = await ask({ type: "ladder_open", token: remember.ladderToken() });
    if (!opened) return;
    accept(opened);
    if (!opened.chica && !opened.last && deal) await play("ladder_play");
    else if (!opened.chica && !shownTable) showFinished();
    else show();
    loadBoard();
  }

  /** After a reload: the finished chica's table (its final score) below its result. */
  function showFinished() {
    const last = remember.shownChica();
    if (!last || !remember.seat(last.join_key)?.token) return;
    shownTable = last.table;
    openTable(tableRoot, last.join_key, { errorText });
  }

  /** @param {import("./wire.js").Message} message */
  function accept(message) {
    state = message;
    remember.setLadderToken(message.token);
    draw();
  }

  /** Deal the next chica ("ladder_play") or start afresh ("ladder_new"). */
  /** @param {"ladder_play" | "ladder_new"} type */
  async function play(type) {
    if (busy) return;
    busy = true;
    draw();
    const answer = await ask({ type, token: state?.token ?? remember.ladderToken() });
    busy = false;
    if (answer) accept(answer);
    show();
  }

  /** Draw the chica in progress below the bar (one table per page: a new chica reloads). */
  function show() {
    const chica = state?.chica;
    if (!chica || chica.table === shownTable) return;
    if (shownTable) {
      location.reload();
      return;
    }
    const held = remember.seat(chica.join_key);
    if (held?.token !== chica.seat_token) {
      remember.setSeat(chica.join_key, { token: chica.seat_token, seat: chica.seat, lastEvent: 0 });
    }
    shownTable = chica.table;
    remember.setShownChica(chica);
    openTable(tableRoot, chica.join_key, { errorText });
    watchForTheEnd();
  }

  /** When the table shows its game-over panel, ask the ladder to count the chica. */
  function watchForTheEnd() {
    let settling = false;
    const observer = new MutationObserver(async () => {
      if (settling || !state?.chica || !tableRoot.querySelector(".game-over")) return;
      settling = true;
      await refresh();
      settling = false;
    });
    observer.observe(tableRoot, { childList: true, subtree: true });
  }

  /** "Nuevo" ends a streak for good (R14): ask first when there is one to lose. */
  function startAfresh() {
    const streak = state?.streak ?? 0;
    if (streak > 0 && !globalThis.confirm(t("solo.new.confirm", { streak }))) return;
    play("ladder_new");
  }

  async function loadBoard() {
    const answer = await ask({ type: "ladder_board" });
    if (answer) {
      board = answer.lines;
      draw();
    }
  }

  /** @param {SubmitEvent} event */
  async function rename(event) {
    event.preventDefault();
    const name = new FormData(/** @type {HTMLFormElement} */ (event.target)).get("name");
    const answer = await ask({ type: "ladder_name", token: state?.token, name: String(name || "") });
    if (answer) {
      accept(answer);
      toast(t("solo.name.saved"));
      loadBoard();
    }
  }

  /** @param {string} key @param {string} value @param {string} id */
  function stat(key, value, id) {
    return h("div.solo-stat", { dataset: { stat: id } },
      h("span.solo-stat-label", t(key)), h("span.solo-stat-value", value));
  }

  function resultLine() {
    const last = state?.last;
    if (!state || !last || state.chica) return null;
    const text = t(`solo.result.${last.result}`, { margin: last.margin, level: last.level,
      streak: last.streak, score: number(last.score), next: state.level });
    const again = last.result === "won" || last.result === "void" ? "solo.next" : "solo.again";
    return h("div.solo-result", { dataset: { result: last.result } },
      h("p", text),
      h("button#solo-next.btn.btn-primary", { type: "button", disabled: busy,
        onclick: () => play("ladder_play") }, t(again)));
  }

  function leaderboard() {
    return h("details.panel.solo-board",
      h("summary", t("solo.board.title")),
      board.length
        ? h("ol.solo-board-lines", board.map((line) => h("li",
          h("span.solo-board-name", line.name || t("solo.board.anonymous")),
          h("span.solo-board-score", number(line.score)))))
        : h("p.hint", t("solo.board.empty")),
      state ? h("form.solo-name", { onsubmit: rename },
        h("label", { for: "solo-name" }, t("solo.name.label")),
        h("input#solo-name", { name: "name", maxlength: 20, value: state.name || "",
          placeholder: t("solo.name.placeholder"), autocomplete: "nickname" }),
        h("button.btn.btn-small", { type: "submit" }, t("solo.name.save"))) : null,
      h("p.hint", t("solo.board.hint")));
  }

  function draw() {
    if (!state) {
      renderInto(bar, h("p.loading", { role: "status" }, t("status.connecting")));
      return;
    }
    renderInto(bar,
      h("div.solo-head",
        h("h1#solo-title", t("solo.title")),
        h("div.solo-actions",
          h("a.btn.btn-small.btn-quiet", { href: "/?tips", target: "_blank", rel: "noopener" },
            t("solo.tips")),
          h("a#solo-pocket.btn.btn-small.btn-quiet", { href: "/pocket.html" }, t("pocket.link")),
          h("button#solo-new.btn.btn-small", { type: "button", disabled: busy,
            title: t("solo.new.tooltip"), onclick: startAfresh }, t("solo.new")))),
      h("div.solo-stats",
        stat("solo.streak", String(state.streak), "streak"),
        stat("solo.level", String(state.level), "level"),
        stat("solo.margin", signed(state.margin), "margin"),
        stat("solo.score", number(state.score), "score"),
        stat("solo.best", number(state.best), "best")),
      resultLine(),
      leaderboard());
  }

  renderInto(root, h("div.solo-page", bar, tableRoot));
  draw();
  conn.open();
  return () => { draw(); };
}
