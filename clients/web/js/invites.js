// @ts-check
// An invitation from a friend (`invited`), on any page with a socket: a notice that stays until
// answered. Accept goes to the table through the join key it carries; Decline just closes it.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";

/**
 * @param {import("./wire.js").Message} invited the server's `invited` message
 */
export function inviteNotice(invited) {
  const box = document.body; // over the page, not in the one-line strip of brief notices
  const from = invited.by?.name || "";
  const key = invited.join_key;
  box.querySelector(`.invite[data-key="${CSS.escape(String(key))}"]`)?.remove();
  const notice = h("div.invite", { role: "alertdialog", "aria-labelledby": "invite-text", dataset: { key: String(key) } },
    h("p#invite-text", t("invite.received", { name: from })),
    h("div.invite-actions",
      h("a#invite-accept.btn.btn-small.btn-primary", { href: `/t/${encodeURIComponent(String(key))}` }, t("invite.accept")),
      h("button#invite-decline.btn.btn-small.btn-quiet", { type: "button", onclick: () => notice.remove() },
        t("invite.decline"))));
  box.append(notice);
  /** @type {HTMLElement | null} */ (notice.querySelector("#invite-accept"))?.focus({ preventScroll: true });
}
