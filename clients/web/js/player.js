// @ts-check
// The person behind this browser (protocol/players.py): the player key rides in every `hello`
// and nowhere else on the wire; the move link carries it in the URL fragment (`/#player=…`),
// which browsers never send to a server, so another device can become the same person.
import { t } from "../i18n/index.js";
import { PLAYER_KEY, remember } from "./storage.js";

/** The `hello` fields that name the person (none when storage is off: a guest). */
export function playerHello() {
  const key = remember.playerKey();
  return key ? { player_key: key } : {};
}

/**
 * The link that moves this person to another device: the player key, and the solo ladder's
 * token when there is one (the key absorbs it: the ladder follows the person).
 * @returns {string | null}
 */
export function moveLink() {
  const key = remember.playerKey();
  if (!key) return null;
  const ladder = remember.ladderToken();
  const extra = ladder ? `&ladder=${encodeURIComponent(ladder)}` : "";
  return `${location.origin}/#player=${key}${extra}`;
}

/**
 * Arriving through a move link: after the person agrees, keep its key (and ladder), and take the
 * fragment out of the address bar and the history either way (a secret should not linger there).
 * @param {(question: string) => boolean} ask the confirmation (window.confirm on a page)
 * @returns {boolean} whether this browser took the key
 */
export function adoptMoveLink(ask = (question) => confirm(question)) {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const key = fragment.get("player");
  if (key === null) return false;
  history.replaceState(null, "", location.pathname + location.search);
  if (!PLAYER_KEY.test(key) || key === remember.playerKey() || !ask(t("player.adopt"))) return false;
  remember.setPlayerKey(key);
  const ladder = fragment.get("ladder");
  if (ladder) remember.setLadderToken(ladder);
  return true;
}
