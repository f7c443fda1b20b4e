// @ts-check
// What the browser remembers between visits (localStorage): the player's name, the seat token of
// each table (the credential for every reconnect) with the last event seen, host keys, the solo
// ladder's token; and for this tab only (sessionStorage) the events of the table it shows.

const PREFIX = "cuarenta.";

/** @typedef {{token: string, seat: number, lastEvent: number}} HeldSeat */
/** @typedef {{fillBots: boolean, botLevel: number, watch?: string}} Setup */
/** @typedef {{table: string, join_key: string}} ShownChica */

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
