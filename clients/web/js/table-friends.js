// @ts-check
// Friends at the table page: "+ amigo" on another person's seat, the friends' panel in the side
// column (online friends, and one tap to invite one to this table while you sit at it), and an
// invitation received from a friend. The requests travel on the table's own socket.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { applyFriends, applyRated, markInvited } from "./state.js";
import { inviteNotice } from "./invites.js";
import { toast } from "./toasts.js";

/** @typedef {import("./model-types.js").Model} Model */
/** @typedef {import("./model-types.js").TableModel} TableModel */
/** @typedef {import("./wire.js").Message} Message */

/**
 * @param {Model} model
 * @param {{request: (message: Message) => Promise<Message>}} conn the table's connection
 * @param {() => void} draw
 */
export function tableFriends(model, conn, draw) {
  /** Ask for the friends (quietly: a browser without a player key has none). */
  function welcomed() {
    conn.request({ type: "friends" }).then((answer) => { applyFriends(model, /** @type {any} */ (answer)); draw(); }, () => {});
  }

  /** The person's news: `rated` (told on the game over), `invited`, a pushed `friends`. @param {Message} message */
  function receive(message) {
    if (message.type === "rated") {
      applyRated(model, /** @type {any} */ (message));
      draw();
    } else if (message.type === "invited") inviteNotice(message);
    else if (message.type === "friends" && !message.rid) {
      applyFriends(model, /** @type {any} */ (message));
      draw();
    }
  }

  /** @param {string} id */
  function befriend(id) {
    conn.request({ type: "friend", action: "request", player: id }).then((answer) => {
      applyFriends(model, /** @type {any} */ (answer));
      toast(t("friends.sent"));
      draw();
    }, (/** @type {{code?: string}} */ error) => toast(t(error.code === "rate_limited" ? "error.rate_limited" : "me.failed"), "error"));
  }

  /** @param {string} id */
  function invite(id) {
    conn.request({ type: "invite", player: id }).then(() => {
      markInvited(model, id);
      draw();
    }, () => toast(t("me.failed"), "error"));
  }

  return { welcomed, receive, befriend, invite };
}

/**
 * "+" beside another person's name on the felt: ask them to be friends.
 * @param {TableModel} model
 * @param {Partial<import("./model-types.js").Occupant>} occupant
 * @param {((id: string) => void) | null | undefined} befriend
 */
export function plusFriend(model, occupant, befriend) {
  if (!befriend || model.you === null || !occupant.player || occupant.bot) return null;
  if (occupant.player === model.table.occupants[model.you]?.player) return null;
  if (model.friends.some((f) => f.id === occupant.player)) return null;
  const id = occupant.player;
  const label = t("friends.addName", { name: occupant.name || "" });
  return h("button.btn-plus-friend", { type: "button", title: label, "aria-label": label, dataset: { befriend: id },
    onclick: () => befriend(id) }, "+");
}

/**
 * The friends panel: who is online, and "Invitar" for a seated player (at most one tap each).
 * @param {TableModel} model
 * @param {(id: string) => void} invite
 */
export function friendsPanel(model, invite) {
  if (!model.friends.length) return null;
  const here = new Set(model.table.occupants.map((o) => o.player).filter(Boolean));
  const online = model.friends.filter((f) => f.online && !here.has(f.id));
  return h("details.panel.friends-panel", { open: online.length > 0 && !model.table.started },
    h("summary", t("friends.title"), " ", h("span.badge", String(online.length))),
    online.length ? h("ul.me-list", online.map((f) => h("li.me-friend", { dataset: { player: f.id } },
      h("span.me-dot", { dataset: { online: "true" }, "aria-hidden": "true" }),
      h("span.me-friend-name", f.name),
      h("span.me-friend-where", f.table ? t("friends.atTable") : t("friends.online")),
      model.you !== null ? h("button.btn.btn-small", { type: "button", dataset: { invite: f.id },
        disabled: model.invitedNow.includes(f.id) || null, onclick: () => invite(f.id) },
      model.invitedNow.includes(f.id) ? t("invite.sent") : t("invite.send")) : null)))
      : h("p.hint", t("friends.noneOnline")));
}
