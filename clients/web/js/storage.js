// What the browser remembers between visits (localStorage): the player's name, the seat token of
// each table (the credential for every reconnect) with the last event seen, and host keys.

const PREFIX = "cuarenta.";

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + key) || "null");
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the page still works, a reload just cannot resume */
  }
}

export const remember = {
  name: () => read("name") || "",
  setName: (name) => write("name", name),
  /** The seat held at the table reached through `key`: {token, seat, lastEvent}. */
  seat: (key) => read(`seat.${key}`),
  setSeat: (key, seat) => write(`seat.${key}`, seat),
  /** The host key of a table this browser created, found through its join key. */
  hostKey: (key) => read(`host.${key}`),
  setHostKey: (key, hostKey) => write(`host.${key}`, hostKey),
  /** Choices made on the home form that act at the table (bots for empty seats at the start). */
  setup: (key) => read(`setup.${key}`),
  setSetup: (key, setup) => write(`setup.${key}`, setup),
  tally: () => read("tally") === true,
  setTally: (on) => write("tally", on),
  /** The "your turn" sound: off unless the person turned it on. */
  sound: () => read("sound") === true,
  setSound: (on) => write("sound", on),
};
