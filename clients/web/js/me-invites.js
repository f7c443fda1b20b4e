// @ts-check
// /me: the invitations the person has not answered yet (kept by the server three days). A
// friend_invite notification opens /me?invite=<table>: the push carries no key, so the join key
// comes only here, over the person's own socket. Accept goes to the table; "No, thanks" forgets it.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";

/** @typedef {import("./wire.js").Message} Message */

/** The table a notification asked for (/me?invite=<table>), else null. */
export function invitedTable() {
  return new URLSearchParams(location.search).get("invite");
}

/**
 * The pending invitations, the one the notification named first; nothing when there are none.
 * ``drop`` forgets the invitations to a table, then goes to ``then`` if given (accepted).
 * @param {Message | null} invitations @param {(table: string, then?: string) => void} drop
 */
export function invitesSection(invitations, drop) {
  const wanted = invitedTable();
  const lines = [...(invitations?.invitations || [])]
    .sort((/** @type {any} */ a, /** @type {any} */ b) => Number(b.table === wanted) - Number(a.table === wanted));
  if (!lines.length) return null;
  return h("section.panel.me-section.me-invites", { "aria-labelledby": "me-invites-title" },
    h("h2#me-invites-title", t("me.invites")),
    h("ul.me-list.me-invite-list", lines.map((/** @type {Message} */ line) =>
      h("li.me-invite", { class: line.table === wanted ? "is-wanted" : null, dataset: { table: line.table } },
        h("p.me-invite-text", t("me.invites.from", { name: line.by.name })),
        h("div.invite-actions",
          h("a.btn.btn-small.btn-primary.me-invite-accept", { href: `/t/${encodeURIComponent(line.join_key)}`,
            onclick: (/** @type {MouseEvent} */ event) => {
              event.preventDefault();
              drop(line.table, /** @type {HTMLAnchorElement} */ (event.currentTarget).href);
            } },
          t("invite.accept")),
          h("button.btn.btn-small.btn-quiet.me-invite-drop", { type: "button", onclick: () => drop(line.table) },
            t("me.invites.drop")))))));
}
