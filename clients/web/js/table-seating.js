// @ts-check
// Who the page is at the table: the hello that resumes a held seat, joining through the join
// link (or the host key), watching otherwise, choosing or moving to a free chair before the
// start, and the host's start (bots in the free chairs first, when the home form asked for them).
import { t } from "../i18n/index.js";
import { PROTOCOL_VERSION } from "./connection.js";
import { remember } from "./storage.js";
import { playerHello } from "./player.js";
import { toast } from "./toasts.js";
import { joinRefused, setResuming, takeSeatWish, wishSeat } from "./table-choices.js";

/** @typedef {import("./model-types.js").Model} Model */
/** @typedef {import("./wire.js").Message} Message */
/** @typedef {import("./wire.js").Refusal} Refusal */
/** @typedef {{take: (seat: number) => void, moving: boolean}} ChairChoice */

/** Refusals that mean "this key cannot seat you": watch instead (a watch link, a full table). */
const WATCH_INSTEAD = new Set(["not_found", "forbidden", "no_free_seat", "table_locked", "wrong_phase",
  "seat_taken"]);
/** Refusals that leave the choice open: someone else was quicker to that chair (or to the last). */
const CHOOSE_AGAIN = new Set(["seat_taken", "no_free_seat"]);

/**
 * @param {object} table
 * @param {Model} table.model
 * @param {import("./connection.js").Connection} table.conn
 * @param {string} table.key the link the page was opened with
 * @param {string | null} table.hostKey
 * @param {(error: Refusal) => string} table.errorText
 * @param {(message: Message) => Promise<Message | null>} table.send a request whose refusal is told
 * @param {() => void} table.gone the table no longer exists
 * @param {(reason: string) => void} table.failed the table cannot be opened
 */
export function seatingFor({ model, conn, key, hostKey, errorText, send, gone, failed }) {
  /** @type {string | null} the name typed to sit down, for the person once the socket reopens */
  let renaming = null;

  /** The first message of every connection: the seat token and the last event seen, if any. */
  function hello() {
    const held = remember.seat(key);
    setResuming(model, Boolean(held?.token));
    return {
      type: "hello", version: PROTOCOL_VERSION, name: remember.name() || "guest",
      resume: held?.token ?? null,
      last_event: model.resuming ? (model.lastEvent || held?.lastEvent || 0) : null,
      ...playerHello(),
    };
  }

  /** Someone who never told us a name first watches; the "sit down" panel asks for it. A
   * person sent from /me to a table where they sit (``?mine``) joins: it gives them their seat. */
  function enter() {
    const mine = new URLSearchParams(location.search).has("mine");
    if (model.wantsSeat || remember.name() || hostKey || mine) join();
    else watch();
  }

  /** A resumed seat gets its snapshot and missed events unasked; anyone else asks again. */
  function welcomed() {
    if (model.resuming) return;
    if (renaming === null) {
      enter();
      return;
    }
    // A person's name is theirs across tables (the server keeps it): the one chosen to sit
    // becomes it before the join, which seats the person under their name.
    const name = renaming;
    renaming = null;
    conn.request({ type: "set_me", name }).catch(() => {}).finally(enter);
  }

  /** The hello's seat token held nothing (the table is gone, or the seat was given up). */
  function tokenRefused() {
    if (!model.resuming) return;
    setResuming(model, false);
    remember.setSeat(key, null);
    enter(); // as a newcomer would, which finds out whether the table still exists
  }

  async function join() {
    const { asked, seat } = takeSeatWish(model);
    try {
      await conn.request({ type: "join", key: hostKey || key, seat });
    } catch (error) {
      const refusal = /** @type {Refusal} */ (error);
      if (refusal.code === "offline") return; // the next welcome tries again
      joinRefused(model, !CHOOSE_AGAIN.has(refusal.code ?? ""));
      if (!WATCH_INSTEAD.has(refusal.code ?? "") || asked) toast(errorText(refusal), "error");
      await watch();
    }
  }

  async function watch() {
    try {
      await conn.request({ type: "watch", key: hostKey || key });
    } catch (error) {
      const refusal = /** @type {Refusal} */ (error);
      if (refusal.code === "not_found") gone();
      else if (refusal.code !== "offline") failed(errorText(refusal));
    }
  }

  /** Sit down under `name`, at `seat` or the first free chair: the name travels in the next hello. */
  /** @param {string} name @param {number | null} seat */
  function sitDown(name, seat = null) {
    remember.setName(name);
    wishSeat(model, seat);
    renaming = name;
    conn.reconnectNow();
  }

  /** A visitor chose a free chair: sit there under the name given (asked for if missing). */
  /** @param {number} seat */
  function sitAt(seat) {
    const input = /** @type {HTMLInputElement | null} */ (document.querySelector("#sit-name"));
    const name = (input?.value ?? remember.name()).trim();
    if (!name) {
      input?.focus();
      toast(t("sit.needName"), "warn");
      return;
    }
    sitDown(name, seat);
  }

  /** A seated player moves to a free chair before the start (the protocol's sit). */
  /** @param {number} seat */
  function moveTo(seat) {
    send({ type: "sit", seat });
  }

  /**
   * Who may take a free chair now, and how: a visitor sits, a seated guest moves; else null (the
   * host arranges the chairs, her own too, from the host panel: the page's gold is her start).
   * @returns {ChairChoice | null}
   */
  function chairChoice() {
    if (!model.table || model.table.started) return null;
    if (model.role === "player") return model.isHost ? null : { take: moveTo, moving: true };
    if (model.role === "spectator" && model.canSit && !model.joinRefused) {
      return { take: sitAt, moving: false };
    }
    return null;
  }

  /** Whether the start fills free chairs with bots: the home form's choice (yes if unknown). */
  function fillsBots() {
    return remember.setup(key)?.fillBots ?? true;
  }

  async function start() {
    const setup = remember.setup(key) || { fillBots: true, botLevel: 3 };
    if (fillsBots() && model.table) {
      for (const [seat, occupant] of model.table.occupants.entries()) {
        if (occupant.empty) await send({ type: "add_bot", seat, level: setup.botLevel });
      }
    }
    await send({ type: "start" });
  }

  return { hello, welcomed, tokenRefused, sitDown, chairChoice, fillsBots, start };
}
