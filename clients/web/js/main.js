// @ts-check
// Boot: pick the language, then show the home page ("/") or a table ("/t/<key>").
import { LANGUAGES, detectLanguage, language, setLanguage, t } from "../i18n/index.js";
import { h } from "./dom.js";
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { renderHome, showWaiting } from "./home.js";
import { openTable } from "./table-page.js";
import { openSolo } from "./solo.js";
import { renderTips } from "./tips.js";
import { remember } from "./storage.js";
import { adoptMoveLink, playerHello } from "./player.js";
import { clearToasts } from "./toasts.js";
import "./tap-tips.js"; // every hover explanation also opens with a tap (a phone)
import { registerWorker } from "./install.js";
import { exposeForTests } from "./test-hooks.js";

/** An element index.html always has. @param {string} selector */
function part(selector) {
  return /** @type {HTMLElement} */ (document.querySelector(selector));
}

function chrome() {
  document.title = t("app.title");
  part(".skip-link").textContent = t("app.skip");
  part("#lang-label").textContent = t("app.language");
  part("#solo-link").textContent = t("solo.link");
  part("#me-link").replaceChildren(h("span.me-icon", { "aria-hidden": "true" }), h("span.topbar-me-text", t("me.link")));
  const rules = /** @type {HTMLElement | null} */ (document.querySelector("#rules-link")); // the rules from every screen (a new tab)
  if (rules) { rules.textContent = t("rules.link"); rules.title = t("rules.link.tooltip"); }
  const picker = part("#lang");
  picker.replaceChildren(...Object.keys(LANGUAGES).map((code) =>
    h("option", { value: code, selected: code === language() }, LANGUAGES[code]["app.languageName"])));
}

/** A human sentence for a refused request (the code is stable; the server's text is a detail). */
/** @param {import("./wire.js").Refusal} error */
export function errorText(error) {
  if (error?.code && LANGUAGES[language()][`error.${error.code}`]) return t(`error.${error.code}`);
  return error?.message || t("error.unknown");
}

/** The home page's renderer; it remembers a created table so a language switch keeps the links. */
/** @param {HTMLElement} root @param {boolean} known a person was remembered here before */
function homePage(root, known) {
  /** @type {Connection | null} */
  let conn = null;
  /** @type {import("./home.js").HomeApp} */
  const app = {
    created: null,
    waiting: 0,
    playerName: remember.name,
    errorText,
    async createTable(request) {
      if (!conn) {
        conn = new Connection(socketUrl(), {
          hello: () => ({ type: "hello", version: PROTOCOL_VERSION, name: request.name || "guest",
            ...playerHello() }),
          onMessage: () => {},
          onStatus: () => {},
        });
      }
      await conn.open();
      if (request.name) {
        remember.setName(request.name);
        await conn.request({ type: "set_me", name: request.name }).catch(() => {}); // the person's name
      }
      const created = await conn.request({ type: "create", profile: request.profile,
        options: request.options, turn_timer: request.turnTimer, public: Boolean(request.public),
        move_deadline: request.moveDeadline || 0, on_deadline: request.onDeadline || "stand_in",
        casual: Boolean(request.casual) });
      conn.close();
      const keys = { join: created.join_key, watch: created.watch_key, host: created.host_key };
      remember.setHostKey(keys.join, keys.host);
      remember.setSetup(keys.join, { fillBots: request.fillBots, botLevel: request.botLevel,
        watch: keys.watch });
      app.created = keys;
      return keys;
    },
  };
  const render = () => renderHome(root, app);
  const counted = known ? waitingForYou() : Promise.resolve(0);
  exposeForTests("__cuarentaHome", { counted });
  counted.then((count) => {
    app.waiting = count;
    if (!app.created) showWaiting(root, count);
  });
  return render;
}

/**
 * How many turn-based games wait for this person's move: the `turns` /me asks for, over a
 * socket opened for that alone (the player key rides in its hello, as everywhere). 0 on failure.
 * @returns {Promise<number>}
 */
async function waitingForYou() {
  const conn = new Connection(socketUrl(), {
    hello: () => ({ type: "hello", version: PROTOCOL_VERSION, name: remember.name() || "guest",
      ...playerHello() }),
    onMessage: () => {},
    onStatus: () => {},
  });
  try {
    await conn.open();
    const turns = await conn.request({ type: "turns" });
    return (turns.tables || []).filter((/** @type {any} */ line) =>
      line.your_turn && line.stage === "playing").length;
  } catch {
    return 0;
  } finally {
    conn.close();
  }
}

function boot() {
  // An explicit ?lang= is a choice: remember it for the table links opened next.
  setLanguage(detectLanguage(), { remember: new URLSearchParams(location.search).has("lang") });
  chrome();
  adoptMoveLink(); // `/#player=…`: become the same person as on the other device
  const known = remember.hasPlayerKey(); // a person seen before (their games may wait for them)
  remember.playerKey(); // made on the first visit, kept after
  const root = part("#main");
  const match = location.pathname.match(/^\/t\/([\w.~-]+)\/?$/);
  const page = new URLSearchParams(location.search);
  let rerender;
  if (match) rerender = openTable(root, decodeURIComponent(match[1]), { errorText });
  else if (page.has("solo")) rerender = openSolo(root, { errorText });
  else if (page.has("tips")) rerender = renderTips(root);
  else {
    rerender = homePage(root, known);
    rerender();
  }
  part("#lang").addEventListener("change", (event) => {
    setLanguage(/** @type {HTMLSelectElement} */ (event.target).value, { remember: true });
    clearToasts(); // a notice in the old language would linger: the log keeps every line
    chrome();
    rerender();
  });
}

boot();
registerWorker();
