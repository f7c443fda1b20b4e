// @ts-check
// /me: the person's turn-based games ("your turn" first, the time left, the last play) and the
// notifications that call them back with the page closed (Web Push through the service worker:
// the server's VAPID key, this device's subscription, the kinds switched on, quiet hours in the
// person's own time zone). A notification opens /me?open=<table>: the page goes to that table.
import { h } from "./dom.js";
import { language, t } from "../i18n/index.js";

/** @typedef {import("./wire.js").Message} Message */
/** @typedef {(message: Message) => Promise<Message | null>} Ask */

const KINDS = ["your_turn", "deadline_near", "friend_invite", "night_round"];

/** "3 h", "2 d", "15 min": the time left until ``at`` (server seconds), by the server's clock. */
function left(/** @type {number} */ at, /** @type {number} */ serverNow) {
  const s = Math.max(0, at - serverNow);
  if (s >= 2 * 86400) return t("time.days", { n: Math.floor(s / 86400) });
  if (s >= 3600) return t("time.hours", { n: Math.floor(s / 3600) });
  return t("time.minutes", { n: Math.max(1, Math.floor(s / 60)) });
}

/** @param {Message} line @param {string} me */
function turnRow(line, me, /** @type {number} */ serverNow) {
  const others = line.seats.filter((/** @type {any} */ seat) => seat.player !== me)
    .map((/** @type {any} */ seat) => seat.name || t("seat.empty"));
  const status = line.stage === "finished"
    ? (line.forfeit ? t(`me.result.${line.forfeit}Forfeit`) : t("me.turns.finished"))
    : line.stage === "lobby" ? t("me.turns.lobby")
      : line.your_turn ? t("me.turns.yours") : t("me.turns.theirs", { names: line.waiting_for.join(", ") });
  return h("li.me-turn", { class: line.your_turn ? "is-yours" : null, dataset: { table: line.table } },
    h("div.me-turn-head", h("strong.me-turn-status", status),
      line.deadline && line.stage === "playing"
        ? h("span.me-turn-left", t("me.turns.left", { time: left(line.deadline, serverNow) })) : null),
    h("p.hint", others.join(" · "), " — ", t("me.turns.score", { a: line.scores[0], b: line.scores[1] }),
      line.on_deadline === "forfeit" ? ` · ${t("lobby.forfeit")}` : ""),
    line.last_play ? h("p.hint.me-turn-last", t("me.turns.last", { play: line.last_play })) : null,
    h("a.btn.btn-small", { class: line.your_turn ? "btn-primary" : null,
      href: `/t/${encodeURIComponent(line.join_key)}?mine` },
    line.your_turn ? t("me.turns.open") : t("me.turns.look")));
}

/** The turn-based games, "your turn" first (the server sorts them). @param {Message | null} turns @param {string} me */
export function turnsSection(turns, me) {
  const lines = turns?.tables || [];
  return h("section.panel.me-section.me-turns", { "aria-labelledby": "me-turns-title" },
    h("h2#me-turns-title", t("me.turns")),
    lines.length ? h("ul.me-list.me-turn-list", lines.map((/** @type {Message} */ line) => turnRow(line, me, turns?.server_time ?? 0)))
      : h("p.hint", t("me.turns.none")));
}

/** Arriving from a notification (/me?open=<table>): the join link of that table, or null. @param {Message | null} turns */
export function openedTable(turns) {
  const wanted = new URLSearchParams(location.search).get("open");
  if (!wanted) return null;
  const line = (turns?.tables || []).find((/** @type {any} */ l) => l.table === wanted);
  return line ? `/t/${encodeURIComponent(line.join_key)}?mine` : null;
}

/** @param {string} text base64url */
function bytesOf(text) {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

/** Subscribe this device and tell the server; a refusal or a "no" is told. @param {Ask} ask */
export async function enablePush(ask) {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) return "unsupported";
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return "blocked";
  const key = await ask({ type: "push_key" });
  if (!key) return "failed";
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true,
    applicationServerKey: bytesOf(key.public_key) });
  const json = subscription.toJSON();
  await rememberLanguage();
  const done = await ask({ type: "push_subscribe", endpoint: json.endpoint,
    p256dh: json.keys?.p256dh, auth: json.keys?.auth });
  return done ? "on" : "failed";
}

/** The service worker titles its notifications in the pages' language: kept where it reads it. */
export async function rememberLanguage() {
  if (!("caches" in window)) return;
  await (await caches.open("prefs")).put("/__lang", new Response(language()));
}

/** "HH:MM" of minutes after midnight. @param {number | null | undefined} minutes */
function clock(minutes) {
  if (minutes == null) return "";
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/** @param {string} text "HH:MM" */
function minutesOf(text) {
  const [hours, minutes] = text.split(":").map(Number);
  return text ? hours * 60 + minutes : null;
}

/**
 * The notifications: turn them on for this device, the kinds, quiet hours.
 * @param {Message | null} settings @param {string} note @param {() => void} enable
 * @param {(change: Message) => void} save
 */
export function noticesSection(settings, note, enable, save) {
  const off = new Set(settings?.off || []);
  const form = h("form.me-notices-form", { onsubmit: (/** @type {Event} */ event) => {
    event.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (event.target));
    const from = minutesOf(String(data.get("quiet_from") || ""));
    const to = minutesOf(String(data.get("quiet_to") || ""));
    save({ type: "set_notice_settings", off: KINDS.filter((kind) => !data.get(kind)),
      quiet_from: from != null && to != null ? from : null, quiet_to: from != null && to != null ? to : null,
      time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC" });
  } },
  h("fieldset", h("legend", t("me.notices.when")),
    KINDS.map((kind) => h("div.field.field-inline",
      h("input", { type: "checkbox", id: `notice-${kind}`, name: kind, checked: !off.has(kind) }),
      h("label", { for: `notice-${kind}` }, t(`me.notices.kind.${kind}`))))),
  h("fieldset.me-quiet", h("legend", t("me.notices.quiet")),
    h("label", { for: "quiet-from" }, t("me.notices.quietFrom")),
    h("input#quiet-from", { type: "time", name: "quiet_from", value: clock(settings?.quiet_from) }),
    h("label", { for: "quiet-to" }, t("me.notices.quietTo")),
    h("input#quiet-to", { type: "time", name: "quiet_to", value: clock(settings?.quiet_to) })),
  h("button#me-notices-save.btn.btn-small", { type: "submit" }, t("me.notices.save")));
  const devices = settings?.devices || 0;
  return h("section.panel.me-section.me-notices", { "aria-labelledby": "me-notices-title" },
    h("h2#me-notices-title", t("me.notices")),
    h("p.hint", t("me.notices.hint")),
    devices ? h("p#me-notices-on", t("me.notices.on", { n: devices })) : null,
    note ? h("p#me-notices-note.form-error", { role: "alert" }, t(`me.notices.${note}`)) : null,
    h("button#me-notices-enable.btn.btn-primary", { type: "button", onclick: enable }, t("me.notices.enable")),
    form);
}
