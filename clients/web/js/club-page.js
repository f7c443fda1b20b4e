// @ts-check
// A club's night on its page (/c/<club>) and its TV (/c/<club>/tv, /c/<club>?tv). The night is
// polled from /c/<club>/night.json; one WebSocket (club-socket.js) follows the club: a member who
// joined is told its seat each round and is sat there directly (its seat token kept where the
// table page resumes it), then taken to its table; the host's commands go the same way.
import { h, renderInto } from "./dom.js";
import { detectLanguage, setLanguage, t } from "../i18n/index.js";
import { ClubSocket } from "./club-socket.js";
import { pairList, pairings, roundTitle, standingsTable, tableCard, currentRound } from "./club-night.js";
import { hostPanel } from "./club-host.js";
import { memberHistory, pastNights, seasonTable } from "./club-season.js";
import { tvView } from "./club-tv.js";
import { remember } from "./storage.js";
import { DISK_FINE, DISK_POLL_MS, diskBanner, readDisk } from "./disk-notice.js";

/** @typedef {Record<string, any>} Doc */

const POLL_MS = 1000;
const GO_AFTER_MS = 1500;
const path = location.pathname.replace(/\/$/, "");
const tv = new URLSearchParams(location.search).has("tv") || path.endsWith("/tv");
const club = decodeURIComponent(path.replace(/^\/c\//, "").replace(/\/tv$/, ""));
const KEY_SLOT = `cuarenta.clubkey.${club}`;
const MEMBER_SLOT = `cuarenta.clubmember.${club}`;
const root = /** @type {HTMLElement} */ (document.querySelector("#night"));

/** @typedef {import("./disk-notice.js").DiskState} DiskState */
/** @type {{data: Doc | null, host: boolean, key: string, member: boolean, notice: string, who: string, disk: DiskState}} */
const app = { data: null, host: false, key: sessionStorage.getItem(KEY_SLOT) || "", member: localStorage.getItem(MEMBER_SLOT) === "1",
  notice: "", who: "", disk: DISK_FINE };
let drawn = "";

const socket = new ClubSocket(`${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`, () => remember.name(),
  received, follow);

function follow() {
  const open = { type: "club_open", club, member: app.member && Boolean(remember.name()), key: app.key || null };
  socket.request(open).then((answer) => {
    app.host = Boolean(answer.host);
    merge(answer.state);
    if (app.host) watchDisk();
  }, () => {
    app.key = "";
    app.host = false;
    sessionStorage.removeItem(KEY_SLOT);
    if (open.key) socket.request({ ...open, key: null }).then((answer) => merge(answer.state), () => {});
  });
}

/** @param {Doc} message */
function received(message) {
  if (message.type === "club_night") {
    if (!message.rid) merge(message.state);
  } else if (message.type === "club_seat") {
    app.notice = t("clubnight.yourSeat", { table: message.table, seat: message.seat + 1, // and the round's pace
      pace: t(`clubnight.pace.${message.move_deadline ?? 0}`) });
    socket.request({ type: "join", key: message.join_key, seat: message.seat }).catch(() => {});
    remember.setSeat(message.join_key, null);
    pendingSeat = message.join_key;
    draw(true);
  } else if (message.type === "seated" && pendingSeat) {
    const key = pendingSeat;
    pendingSeat = null;
    remember.setSeat(key, { token: message.token, seat: message.seat, lastEvent: 0 });
    setTimeout(() => location.assign(`/t/${encodeURIComponent(key)}`), GO_AFTER_MS);
  }
}
/** @type {string | null} */
let pendingSeat = null;

/** @param {Doc} state */
function merge(state) {
  app.data = { live: {}, ...(app.data || {}), ...state };
  draw();
}

async function poll() {
  try {
    app.data = await (await fetch(`/c/${encodeURIComponent(club)}/night.json`)).json();
    draw();
  } catch {
    /* the next poll tries again */
  }
}

/** The host hears how full the server's disk is (/readyz), now and every DISK_POLL_MS. */
async function watchDisk() {
  const state = await readDisk();
  if (state) app.disk = state;
  draw();
}
setInterval(() => {
  if (app.host) watchDisk();
}, DISK_POLL_MS);

/**
 * Host commands carry the club and the key. One refused as `stale` (another server process wrote
 * the night at that moment: "send it again") is sent again once, after reloading the night.
 * @param {Doc} message
 */
function send(message) {
  const request = () => socket.request({ ...message, club, key: app.key });
  return request().catch(async (/** @type {Error & {code?: string}} */ error) => {
    if (error.code !== "stale") throw error;
    await poll();
    return request();
  }).then((answer) => {
    if (message.type === "club_pair") {
      for (const id of ["club-pair-1", "club-pair-2"]) {
        const input = /** @type {HTMLInputElement | null} */ (document.querySelector(`#${id}`));
        if (input) input.value = "";
      }
    }
    merge(answer.state);
    return answer;
  });
}

function draw(force = false) {
  const data = app.data;
  if (!data) return;
  const shape = JSON.stringify([data, app.host, app.member, app.notice, app.who, app.disk]);
  if (shape === drawn && !force) return;
  drawn = shape;
  if (tv) {
    renderInto(root, tvView(club, data));
    return;
  }
  const kept = keepInputs();
  renderInto(root, page(data));
  restoreInputs(kept);
}

/** @param {Doc} data */
function page(data) {
  const night = data.night;
  const round = night ? currentRound(night) : null;
  return h("div.club-night",
    h("h2", t("clubnight.tonight"), " · ", h("span.club-night-round", night ? roundTitle(night) : t("clubnight.notStarted"))),
    app.host && !tv ? diskBanner(app.disk) : null,
    app.notice ? h("p.club-night-notice", { role: "status" }, app.notice) : null,
    memberForm(),
    round ? h("ul.club-night-tables", round.matches.map((/** @type {Doc} */ m) => tableCard(night, data.live, m))) : null,
    night?.standings?.length ? [h("h2", t("clubnight.standings")), standingsTable(night)] : null,
    night ? [h("h2", t("clubnight.pairings")), pairings(night)] : null,
    night && !night.tournament ? [h("h2", t("clubnight.pairs")), pairList(night)] : null,
    app.host ? hostPanel(night, data.members || [], send) : keyForm(),
    h("p", h("a.btn.btn-small", { href: `/c/${encodeURIComponent(club)}/tv` }, t("clubnight.openTv"))),
    (data.members || []).length ? [h("h2", t("clubnight.members")), h("ul.club-members",
      data.members.map((/** @type {Doc} */ m) => h("li", { dataset: { player: m.player || "" } }, m.name)))] : null,
    h("h2", t("clubnight.season")), seasonTable(data.season || []),
    h("h2", t("clubnight.pastNights")), pastNights(data.past || []),
    historyPart(data));
}

function memberForm() {
  if (app.member && remember.name()) return h("p.club-member-me", t("clubnight.memberAs", { name: remember.name() }));
  return h("form.club-member-form", { onsubmit: (/** @type {Event} */ event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement} */ (document.querySelector("#club-member-name")).value.trim();
    if (!name) return;
    remember.setName(name);
    app.member = true;
    localStorage.setItem(MEMBER_SLOT, "1");
    socket.reopen();
  } },
  h("label", { for: "club-member-name" }, t("clubnight.yourName")),
  h("input#club-member-name", { required: true, maxlength: 32, value: remember.name() }),
  h("button#club-member-join.btn.btn-primary", { type: "submit" }, t("clubnight.joinClub")));
}

function keyForm() {
  return h("section.club-host-key", h("h3", t("clubnight.iHost")),
    h("form", { onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault();
      app.key = /** @type {HTMLInputElement} */ (document.querySelector("#club-host-key")).value.trim();
      sessionStorage.setItem(KEY_SLOT, app.key);
      follow();
    } },
    h("label", { for: "club-host-key" }, t("club.hostKey")),
    h("input#club-host-key", { type: "password", autocomplete: "off", required: true }),
    h("button#club-host-open.btn", { type: "submit" }, t("clubnight.openPanel"))));
}

/** @param {Doc} data */
function historyPart(data) {
  const nights = [...(data.past || []), ...(data.night ? [data.night] : [])];
  const members = (data.members || []).map((/** @type {Doc} */ m) => m.name);
  if (!members.length) return null;
  return h("section.club-member-history", h("h2", t("clubnight.history")),
    h("label", { for: "club-history-who" }, t("clubnight.member")),
    h("select#club-history-who", { onchange: (/** @type {Event} */ e) => {
      app.who = /** @type {HTMLSelectElement} */ (e.target).value;
      draw();
    } }, h("option", { value: "" }, "—"), members.map((/** @type {string} */ name) => h("option", { value: name, selected: name === app.who }, name))),
    app.who ? memberHistory(app.who, nights) : null);
}

function keepInputs() {
  /** @type {Map<string, string>} */
  const values = new Map();
  root.querySelectorAll("input[id], select[id]").forEach((el) => values.set(el.id, /** @type {HTMLInputElement} */ (el).value));
  return { values, focus: document.activeElement?.id || "" };
}

/** @param {{values: Map<string, string>, focus: string}} kept */
function restoreInputs(kept) {
  for (const [id, value] of kept.values) {
    const el = /** @type {HTMLInputElement | HTMLSelectElement | null} */ (root.querySelector(`#${id}`));
    if (!el || id === "club-history-who") continue;
    if (el instanceof HTMLSelectElement && ![...el.options].some((option) => option.value === value)) continue;
    el.value = value;
  }
  if (kept.focus) /** @type {HTMLElement | null} */ (root.querySelector(`#${kept.focus}`))?.focus();
}

setLanguage(detectLanguage());
if (tv) document.body.classList.add("is-club-tv");
socket.open();
poll();
setInterval(poll, POLL_MS);
