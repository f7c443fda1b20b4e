// @ts-check
// What the browser remembers between visits (localStorage): the player's name, the seat token of
// each table (the credential for every reconnect) with the last event seen, host keys, the solo
// ladder's token, the player key (who this browser's person is, across tables and visits); and for
// this tab only (sessionStorage) the events of the table it shows.

const PREFIX = "cuarenta.";

/** @typedef {{token: string, seat: number, lastEvent: number}} HeldSeat */
/** @typedef {{fillBots: boolean, botLevel: number, watch?: string}} Setup */
/** @typedef {{table: string, join_key: string}} ShownChica */

/** A player key as the server accepts it (protocol/players.py PlayerKey). */
export const PLAYER_KEY = /^[A-Za-z0-9_-]{32,64}$/;

/** 32 random bytes, base64url without padding. @returns {string} */
export function newPlayerKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {string} key @returns {any} */
function read(key) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + key) || "null");
  } catch {
    return null;
  }
}

/** @param {string} key @param {unknown} value */
function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the page still works, a reload just cannot resume */
  }
}

export const remember = {
  /** @returns {string} */
  name: () => read("name") || "",
  /** @param {string} name */
  setName: (name) => write("name", name),
  /** The seat held at the table reached through `key`. @param {string} key @returns {HeldSeat | null} */
  seat: (key) => read(`seat.${key}`),
  /** @param {string} key @param {HeldSeat | null} seat */
  setSeat: (key, seat) => write(`seat.${key}`, seat),
  /**
   * The seat held at a table, found by the table's id (a finished game in the person's history
   * names its table by id): the join key to return to it, the seat token that opens its records.
   * @param {string} table @returns {{key: string, token: string} | null}
   */
  tableSeat: (table) => read(`table.${table}`),
  /** @param {string} table @param {{key: string, token: string}} held */
  setTableSeat: (table, held) => {
    const kept = read(`table.${table}`);
    if (kept?.key !== held.key || kept?.token !== held.token) write(`table.${table}`, held);
  },
  /** The join keys of the tables where this browser holds a seat now. @returns {string[]} */
  heldTables: () => {
    try {
      return Object.keys(localStorage).filter((name) => name.startsWith(`${PREFIX}seat.`))
        .map((name) => name.slice(`${PREFIX}seat.`.length));
    } catch {
      return [];
    }
  },
  /** The host key of a table this browser created, found through its join key. */
  /** @param {string} key @returns {string | null} */
  hostKey: (key) => read(`host.${key}`),
  /** @param {string} key @param {string} hostKey */
  setHostKey: (key, hostKey) => write(`host.${key}`, hostKey),
  /** Choices made on the home form that act at the table (bots for empty seats at the start). */
  /** @param {string} key @returns {Setup | null} */
  setup: (key) => read(`setup.${key}`),
  /** @param {string} key @param {Setup} setup */
  setSetup: (key, setup) => write(`setup.${key}`, setup),
  tally: () => read("tally") === true,
  /** @param {boolean} on */
  setTally: (on) => write("tally", on),
  /** The "your turn" sound: off unless the person turned it on. */
  sound: () => read("sound") === true,
  /** @param {boolean} on */
  setSound: (on) => write("sound", on),
  /** The misclick guard: each play waits for a confirmation. Off unless the person turned it on. */
  confirmPlays: () => read("confirm") === true,
  /** @param {boolean} on */
  setConfirmPlays: (on) => write("confirm", on),
  /** The solo ladder's token, kept as the bare string it always was. @returns {string | null} */
  ladderToken: () => {
    try {
      return localStorage.getItem(`${PREFIX}ladder`);
    } catch {
      return null;
    }
  },
  /** @param {string} token */
  setLadderToken: (token) => {
    try {
      localStorage.setItem(`${PREFIX}ladder`, token);
    } catch {
      /* private mode: the ladder lasts as long as this page */
    }
  },
  /**
   * The player key: 32 random bytes as base64url (43 characters), made on the first call and kept.
   * It is a secret: it travels only in `hello` and in the move link's fragment. Null when storage
   * is disabled (the person is then a guest each visit). @returns {string | null}
   */
  playerKey: () => {
    const kept = read("player");
    if (typeof kept === "string" && PLAYER_KEY.test(kept)) return kept;
    const made = newPlayerKey();
    write("player", made);
    return read("player") === made ? made : null;
  },
  /** Whether a person was remembered here before (a key kept), without making one. */
  hasPlayerKey: () => {
    const kept = read("player");
    return typeof kept === "string" && PLAYER_KEY.test(kept);
  },
  /** Adopt a key brought from another device (the move link). @param {string} key */
  setPlayerKey: (key) => { if (PLAYER_KEY.test(key)) write("player", key); },
  /**
   * "Forget me": the key and everything that belonged to the person (name, ladder, held seats,
   * host keys) leave this browser; a later visit makes a new key.
   */
  forgetPlayer: () => {
    try {
      const ours = [];
      for (let i = 0; i < localStorage.length; i += 1) {
        const name = localStorage.key(i);
        if (name?.startsWith(PREFIX) && name !== `${PREFIX}lang`) ours.push(name);
      }
      for (const name of ours) localStorage.removeItem(name);
    } catch {
      /* storage disabled: nothing was kept */
    }
  },
  /** The last chica this browser drew: a reload shows its finished table. @returns {ShownChica | null} */
  shownChica: () => read("ladder.shown"),
  /** @param {ShownChica} chica */
  setShownChica: (chica) => write("ladder.shown", { table: chica.table, join_key: chica.join_key }),
};

/**
 * This tab's events of the table reached through `key` (they survive a reload of the tab; the
 * whole log comes from /watch-log anyway), and keeping the newest `limit` of them.
 */
export const tabLog = {
  /** @param {string} key @returns {[number, any][]} */
  load: (key) => {
    try {
      const saved = JSON.parse(sessionStorage.getItem(`${PREFIX}events.${key}`) || "[]");
      return Array.isArray(saved) ? saved : [];
    } catch {
      return []; // nothing kept
    }
  },
  /** @param {string} key @param {Map<number, unknown>} events */
  save: (key, events, limit = 300) => {
    try {
      const kept = [...events.entries()].sort((a, b) => a[0] - b[0]).slice(-limit);
      sessionStorage.setItem(`${PREFIX}events.${key}`, JSON.stringify(kept));
    } catch {
      /* storage unavailable: the fetched log fills in after a reload */
    }
  },
};
