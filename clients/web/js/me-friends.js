// @ts-check
// /me: friends (online or not, and at which table), requests received and sent, the people
// blocked; add a friend by their player link (`/me#friend=<public id>`) or id.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";

/**
 * A person in the friends answer: public id and name; for a friend, whether they are online and
 * the table they sit at (a link to watch it), as the server tells it.
 * @typedef {{id: string, name: string, online?: boolean, table?: string | null}} Person
 */
/** @typedef {(action: string, player: string) => unknown} Act */

/** The person's own player link: whoever opens it may send a friend request. @param {string} id */
export function playerLink(id) {
  return `${location.origin}/me#friend=${encodeURIComponent(id)}`;
}

/** The public id a player link (or a bare id) names, or null. @param {string} text */
export function idFromLink(text) {
  const found = text.trim().match(/(?:#friend=)?([A-Za-z0-9_-]{8,24})$/);
  return found ? found[1] : null;
}

/** Arriving through a friend's player link: the id it names (the fragment is then dropped). */
export function friendFromLink() {
  const found = location.hash.match(/^#friend=([A-Za-z0-9_-]{8,24})$/);
  if (!found) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return found[1];
}

/** @param {string} label @param {() => unknown} onclick @param {string} action @param {string} id */
function button(label, onclick, action, id, quiet = true) {
  return h(quiet ? "button.btn.btn-small.btn-quiet" : "button.btn.btn-small", { type: "button", onclick,
    dataset: { action, player: id }, id: `friend-${action}-${id}` }, label);
}

/** @param {Person} friend @param {Act} act */
function friendRow(friend, act) {
  const where = friend.online
    ? (friend.table ? t("friends.atTable") : t("friends.online")) : t("friends.offline");
  return h("li.me-friend", { dataset: { player: friend.id, online: String(Boolean(friend.online)) } },
    h("span.me-dot", { dataset: { online: String(Boolean(friend.online)) }, "aria-hidden": "true" }),
    h("span.me-friend-name", friend.name),
    h("span.me-friend-where", where),
    button(t("friends.remove"), () => { if (confirm(t("friends.remove.confirm", { name: friend.name }))) act("remove", friend.id); }, "remove", friend.id),
    button(t("friends.block"), () => act("block", friend.id), "block", friend.id));
}

/** @param {Person} person @param {Act} act */
function incomingRow(person, act) {
  return h("li.me-friend", { dataset: { player: person.id } },
    h("span.me-friend-name", person.name), h("span.me-friend-where", t("friends.wantsYou")),
    button(t("friends.accept"), () => act("accept", person.id), "accept", person.id, false),
    button(t("friends.refuse"), () => act("refuse", person.id), "refuse", person.id),
    button(t("friends.block"), () => act("block", person.id), "block", person.id));
}

/** @param {Act} act */
function addForm(act) {
  const input = /** @type {HTMLInputElement} */ (h("input#friend-add", { type: "text", autocomplete: "off",
    placeholder: t("friends.add.placeholder"), "aria-describedby": "friend-add-hint" }));
  return h("form.me-add", { onsubmit: (/** @type {Event} */ e) => {
    e.preventDefault();
    const id = idFromLink(input.value);
    if (id) act("request", id);
    input.value = "";
  } },
  h("label", { for: "friend-add" }, t("friends.add")),
  h("div.link-field", input, h("button.btn", { type: "submit" }, t("friends.send"))),
  h("p#friend-add-hint.hint", t("friends.add.hint")));
}

/**
 * @param {import("./wire.js").Message | null} friends the last `friends` answer
 * @param {string} me this person's public id (their player link)
 * @param {Act} act
 */
export function friendsSection(friends, me, act) {
  /** @type {Person[][]} */
  const [list, incoming, outgoing, blocked] = ["friends", "incoming", "outgoing", "blocked"]
    .map((part) => friends?.[part] || []);
  return h("section.panel.me-section.me-friends", { "aria-labelledby": "me-friends-title" },
    h("h2#me-friends-title", t("friends.title")),
    incoming.length ? h("div", h("h3", t("friends.incoming")),
      h("ul#friends-incoming.me-list", incoming.map((p) => incomingRow(p, act)))) : null,
    list.length ? h("ul#friends-list.me-list", list.map((p) => friendRow(p, act))) : h("p.hint", t("friends.none")),
    outgoing.length ? h("div", h("h3", t("friends.outgoing")), h("ul#friends-outgoing.me-list",
      outgoing.map((p) => h("li.me-friend", { dataset: { player: p.id } }, h("span.me-friend-name", p.name),
        button(t("friends.withdraw"), () => act("remove", p.id), "remove", p.id))))) : null,
    blocked.length ? h("details.me-blocked", h("summary", t("friends.blocked")), h("ul.me-list",
      blocked.map((p) => h("li.me-friend", { dataset: { player: p.id } }, h("span.me-friend-name", p.name),
        button(t("friends.unblock"), () => act("unblock", p.id), "unblock", p.id))))) : null,
    addForm(act),
    h("div.link-row", h("label", { for: "my-player-link" }, t("friends.myLink")),
      h("input#my-player-link", { type: "text", readonly: true, value: playerLink(me),
        onfocus: (/** @type {{target: HTMLInputElement}} */ e) => e.target.select() }),
      h("p.hint", t("friends.myLink.hint"))));
}
