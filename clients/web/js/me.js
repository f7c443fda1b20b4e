// @ts-check
// The person's own page (/me): who they are (name, language, ratings), their finished games with
// each game's replay, the tables they sit at, friends, the leaderboard, the move link to another
// device and "forget me". Everything comes over the socket under the player key (never over an
// HTTP route: a URL is logged, a key in a log is a key lost).
import { h, renderInto } from "./dom.js";
import { LANGUAGES, detectLanguage, language, setLanguage, t } from "../i18n/index.js";
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { remember } from "./storage.js";
import { playerHello } from "./player.js";
import { historySection } from "./me-history.js";
import { friendsSection, friendFromLink } from "./me-friends.js";
import { deviceSection, profileSection, ratingsSection, tablesSection } from "./me-views.js";
import { inviteNotice } from "./invites.js";
import { invitesSection } from "./me-invites.js";
import { enablePush, noticesSection, openedTable, turnsSection } from "./me-turns.js";
import { toast } from "./toasts.js";
import { exposeForTests } from "./test-hooks.js";

/** @typedef {import("./wire.js").Message} Message */

/**
 * What the page shows, as the server last told it.
 * @typedef {object} MeState
 * @property {Message | null} me
 * @property {import("./me-history.js").PastGame[]} games the history pages fetched so far, newest first
 * @property {boolean} more older games follow
 * @property {Message | null} friends
 * @property {Record<string, Message>} boards the leaderboard of each profile class
 * @property {boolean} gone the person was forgotten
 * @property {Message | null} turns the person's turn-based games
 * @property {Message | null} notices their notification settings
 * @property {Message | null} invitations the invitations they have not answered
 * @property {string} pushNote why notifications could not be turned on ("" when they could)
 */

const root = /** @type {HTMLElement} */ (document.querySelector("#main"));
const PAGE = 10;
/** @type {MeState} */
const state = { me: null, games: [], more: false, friends: null, boards: {}, gone: false,
  turns: null, notices: null, invitations: null, pushNote: "" };

const conn = new Connection(socketUrl(), {
  hello: () => ({ type: "hello", version: PROTOCOL_VERSION, name: remember.name() || "guest", ...playerHello() }),
  onMessage: receive,
  onStatus: (status) => {
    const box = document.querySelector("#status");
    if (box) box.textContent = status === "lost" ? t("status.lost") : "";
  },
  onWelcome: () => { loadAll(); },
});

/** Pushed messages: a friend's state changed, an invitation came. @param {Message} message */
function receive(message) {
  if (message.type === "invited") inviteNotice(message);
  else if (message.type === "friends" && !message.rid) {
    state.friends = message;
    draw();
  }
}

/** Send a request; a refusal is told, never swallowed. @param {Message} message */
async function ask(message) {
  try {
    return await conn.request(message);
  } catch (error) {
    const code = /** @type {{code?: string}} */ (error).code;
    toast(code && LANGUAGES[language()][`error.${code}`] ? t(`error.${code}`) : t("me.failed"), "error");
    return null;
  }
}

async function loadAll() {
  const [me, history, friends, pairs, duel, turns, notices, invitations] = await Promise.all([ask({ type: "me" }),
    ask({ type: "history", skip: 0, count: PAGE }), ask({ type: "friends" }),
    ask({ type: "leaderboard", profile_class: "pairs" }), ask({ type: "leaderboard", profile_class: "duel" }),
    ask({ type: "turns" }), ask({ type: "notice_settings" }), ask({ type: "invitations" })]);
  const opened = openedTable(turns);
  if (opened) { // from a notification: straight to the move
    location.replace(opened);
    return;
  }
  state.turns = turns;
  state.notices = notices;
  state.invitations = invitations;
  if (me?.language) setLanguage(me.language);
  state.me = me;
  state.games = history?.games || [];
  state.more = Boolean(history?.more);
  state.friends = friends;
  state.boards = { ...(pairs ? { pairs } : {}), ...(duel ? { duel } : {}) };
  draw();
  const friend = friendFromLink();
  if (friend && friend !== me?.id && confirm(t("friends.askLink"))) act("request", friend);
}

async function olderGames() {
  const page = await ask({ type: "history", skip: state.games.length, count: PAGE });
  if (!page) return;
  state.games = [...state.games, ...page.games];
  state.more = page.more;
  draw();
  /** @type {HTMLElement | null} */ (root.querySelector(`[data-index="${state.games.length - page.games.length}"] a`))?.focus();
}

/** @param {{name?: string, language?: string}} change */
async function saveMe(change) {
  const me = await ask({ type: "set_me", ...change });
  if (!me) return;
  state.me = me;
  if (change.name) remember.setName(me.name);
  if (change.language) setLanguage(me.language, { remember: true });
  toast(t("me.saved"));
  draw();
}

/** @param {string} action @param {string} player */
async function act(action, player) {
  const friends = await ask({ type: "friend", action, player });
  if (friends) state.friends = friends;
  draw();
}

/** Forget the invitations to a table; then, if accepted, go there. @param {string} table @param {string} [then] */
async function dropInvite(table, then) {
  const invitations = await ask({ type: "invitations", drop: table });
  if (then) {
    location.assign(then);
    return;
  }
  if (invitations) state.invitations = invitations;
  draw();
}

async function turnOnPush() {
  const result = await enablePush(ask).catch(() => "failed");
  state.pushNote = result === "on" ? "" : result;
  if (result === "on") state.notices = await ask({ type: "notice_settings" });
  draw();
}

/** @param {Message} change */
async function saveNotices(change) {
  const settings = await ask(change);
  if (!settings) return;
  state.notices = settings;
  toast(t("me.notices.saved"));
  draw();
}

async function forget() {
  if (!confirm(t("me.forget.confirm"))) return;
  const done = await ask({ type: "forget_me", confirm: true });
  if (!done) return;
  remember.forgetPlayer();
  state.gone = true;
  conn.close();
  draw();
}

function draw() {
  document.title = t("me.title");
  if (state.gone) {
    renderInto(root, h("div.me", h("h1", t("me.title")), h("p#forgotten.lede", t("me.forgotten")),
      h("a.btn.btn-primary", { href: "/" }, t("me.home"))));
    return;
  }
  if (!state.me) {
    renderInto(root, h("p.loading", { role: "status" }, t("status.connecting")));
    return;
  }
  const active = document.activeElement?.id;
  const open = [...root.querySelectorAll("details[open]")].map((d) => d.className);
  renderInto(root, h("div.me",
    profileSection(state.me, saveMe),
    h("div.me-main", invitesSection(state.invitations, dropInvite), turnsSection(state.turns, state.me.id),
      historySection(state.games, state.more, olderGames),
      noticesSection(state.notices, state.pushNote, turnOnPush, saveNotices), deviceSection(forget)),
    h("div.me-aside", tablesSection(), friendsSection(state.friends, state.me.id, act),
      ratingsSection(state.me, state.boards))));
  for (const name of open) root.querySelector(`details.${name.split(" ").join(".")}`)?.setAttribute("open", "");
  if (active) document.getElementById(active)?.focus();
}

setLanguage(detectLanguage());
exposeForTests("__cuarentaMe", { state, send: ask });
draw();
conn.open();
