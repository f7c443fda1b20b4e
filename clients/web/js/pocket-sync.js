// @ts-check
// Hand the chicas played in the pocket to the server (issue 42, `ladder_sync`): once the server
// answers, every finished chica not yet handed in goes as its record, compactly (packs run
// together, actions in their one-line text form); the server replays it and counts it once on
// this browser's ladder (the same ladder token as the online ladder's), whatever we send twice.
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { remember } from "./storage.js";
import { playerHello } from "./player.js";
import { t } from "../i18n/index.js";
import { finishedChicas, markSynced } from "./pocket-ladder.js";

const CHUNK = 900; // the characters of actions one string carries (the protocol allows 1000)

/** @param {Record<string, any>} action an R15 action @returns {string} its one-line text form */
export function actionText(action) {
  switch (action.type) {
    case "play":
      return `${action.seat} ${action.card}${action.take.length ? `:${action.take.join(",")}` : ""}`;
    case "announce":
      return `${action.seat} announce ${action.call}`;
    case "take_missed":
      return `${action.seat} take-missed`;
    default:
      return `${action.type}`;
  }
}

/**
 * The `ladder_sync` fields of an R15 record (protocol/ladder.py LadderSync).
 * @param {Record<string, any>} record
 */
export function compactRecord(record) {
  /** @type {string[]} */
  const actions = [];
  for (const text of record.actions.map(actionText)) {
    if (actions.length && actions[actions.length - 1].length + 1 + text.length <= CHUNK) {
      actions[actions.length - 1] += `;${text}`;
    } else actions.push(text);
  }
  return {
    dealer: record.dealer ?? null,
    draw_start: record.draw ? record.draw.start : null,
    draw: record.draw ? record.draw.cards.join("") : "",
    packs: record.packs.map((/** @type {string[]} */ pack) => pack.join("")),
    actions,
  };
}

/**
 * Hand in every chica not yet handed in; resolves with the server's pocket tally (or null when
 * there was nothing to send, or no server answered within `waitMs`).
 * @param {number} [waitMs]
 * @returns {Promise<{played: number, won: number, sent: number} | null>}
 */
export async function syncChicas(waitMs = 8000) {
  const waiting = (await finishedChicas()).filter((chica) => !chica.synced);
  if (!waiting.length) return null;
  return new Promise((resolve) => {
    let done = false;
    const finish = (/** @type {{played: number, won: number, sent: number} | null} */ tally) => {
      if (done) return;
      done = true;
      conn.close();
      resolve(tally);
    };
    const conn = new Connection(socketUrl(), {
      hello: () => ({ type: "hello", version: PROTOCOL_VERSION, name: remember.name() || t("solo.playerName"),
        ...playerHello() }),
      onHelloError: () => finish(null),
      onMessage: () => {},
      onStatus: () => {},
      onWelcome: async () => {
        try {
          const opened = await conn.request({ type: "ladder_open", token: remember.ladderToken() });
          remember.setLadderToken(opened.token);
          let tally = { played: 0, won: 0, sent: 0 };
          for (const chica of waiting) {
            const answer = await conn.request({ type: "ladder_sync", token: opened.token, ...compactRecord(chica.record) });
            if (chica.id !== undefined) await markSynced(chica.id, answer.digest);
            tally = { played: answer.played, won: answer.won, sent: tally.sent + 1 };
          }
          finish(tally);
        } catch {
          finish(null); // refused or cut off: what was not marked is sent again next time
        }
      },
    });
    conn.open();
    setTimeout(() => finish(null), waitMs);
  });
}
