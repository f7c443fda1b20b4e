// @ts-check
// One WebSocket to the table server, speaking msgpack frames (protocol/), that heals itself:
// after a drop it reconnects with backoff and says `hello` again with the seat token and the last
// event number seen, so the server resumes the exact stream (ARCHITECTURE invariant 2).

// @msgpack/msgpack is loaded by a <script> before the modules (index.html); read it when used.
/** @typedef {import("./wire.js").Message} Message */
import { FollowError, followEvent } from "./follow.js";
/** @type {{MessagePack: {encode: (value: unknown) => Uint8Array, decode: (bytes: Uint8Array) => any}}} */
const page = /** @type {any} */ (globalThis);
/** @param {unknown} value */
const encode = (value) => page.MessagePack.encode(value);
/** @param {Uint8Array} bytes */
const decode = (bytes) => page.MessagePack.decode(bytes);

/** The protocol this client speaks (protocol/base.py PROTOCOL_VERSION; checked by a test). */
export const PROTOCOL_VERSION = 4;

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const PING_EVERY_MS = 20000;

export class Connection {
  /**
   * @param {string} url ws:// or wss:// address of the server's socket
   * @param {{hello: () => Message, onMessage: (msg: Message) => void,
   *          onStatus: (status: "connecting"|"open"|"lost") => void,
   *          onWelcome?: (welcome: Message) => void, onHelloError?: (error: Error) => void}} handlers
   *   `hello()` builds the first message of every (re)connection, so it always carries the
   *   freshest seat token and event number.
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.attempt = 0;
    this.nextRid = 1;
    /** @type {Map<number, {resolve: (answer: Message) => void, reject: (error: Error) => void}>} */
    this.pending = new Map();
    this.closedByUs = false;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pingTimer = undefined;
    /** @type {Promise<Message> | null} */
    this.ready = null;
    /** @type {Message | null} the last whole snapshot: updates are told as changes of it */
    this.snapshot = null;
    /** when `snapshot` came (ms since the epoch): a change's unchanged deadlines count on from it */
    this.snapshotAt = 0;
    /** @type {number | undefined} when the next attempt starts (ms since the epoch) */
    this.retryAt = undefined;
    globalThis.addEventListener("online", () => this.reconnectNow());
  }

  /** Open (or reopen) the socket; resolves when the server has answered the hello. */
  open() {
    this.closedByUs = false;
    this.handlers.onStatus("connecting");
    const socket = new WebSocket(this.snapshot?.info?.table ? `${this.url}?t=${encodeURIComponent(this.snapshot.info.table)}` : this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    /** @type {Promise<Message>} */
    const ready = new Promise((resolve, reject) => {
      socket.addEventListener("open", () => {
        this.request(this.handlers.hello()).then((welcome) => {
          this.attempt = 0;
          this.handlers.onStatus("open");
          this.startPing();
          resolve(welcome);
        }, reject);
      });
      socket.addEventListener("close", () => reject(new Error("closed before welcome")));
    });
    this.ready = ready;
    ready.then((welcome) => this.handlers.onWelcome?.(welcome),
      (error) => this.handlers.onHelloError?.(error));
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => this.lost(socket));
    return ready;
  }

  /**
   * Send a request; resolves with the server's answer to it (ack/welcome…), rejects on error.
   * @param {Message} message
   * @returns {Promise<Message>}
   */
  request(message) {
    const rid = this.nextRid++;
    const framed = { ...message, rid };
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(Object.assign(new Error("offline"), { code: "offline" }));
        return;
      }
      this.pending.set(rid, { resolve, reject });
      this.socket.send(/** @type {Uint8Array<ArrayBuffer>} */ (encode(framed)));
    });
  }

  close() {
    this.closedByUs = true;
    clearInterval(this.pingTimer);
    this.socket?.close(1000);
  }

  /** Drop the socket as a network failure would (used by the "reconnect" path and tests). */
  reconnectNow() {
    if (this.closedByUs) return;
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(4000);
    else this.open();
  }

  /** @param {ArrayBuffer} data */
  receive(data) {
    let message;
    try {
      message = decode(new Uint8Array(data));
    } catch {
      return; // a frame we cannot read: the server never sends one; ignore rather than crash
    }
    let messages;
    try {
      messages = unfold(message, this.snapshot, Date.now() - this.snapshotAt);
    } catch (error) {
      if (!(error instanceof FollowError)) {
        this.reconnectNow(); // an update we cannot place: resume, and get a whole snapshot
        return;
      }
      // a change our view cannot follow: its answer and events, then the whole snapshot asked for
      messages = [...(message.rid != null ? [{ type: "ack", rid: message.rid }] : []), ...message.events];
      this.request({ type: "sync" }).catch(() => {});
    }
    for (const each of messages) {
      if (each.type === "snapshot") [this.snapshot, this.snapshotAt] = [each, Date.now()];
      const waiter = each.rid ? this.pending.get(each.rid) : undefined;
      if (waiter && isAnswer(each)) {
        this.pending.delete(each.rid);
        if (each.type === "error") {
          waiter.reject(Object.assign(new Error(each.message), { code: each.code }));
        } else {
          waiter.resolve(each);
        }
      }
      this.handlers.onMessage(each);
    }
  }

  /** @param {WebSocket} socket */
  lost(socket) {
    if (socket !== this.socket) return;
    clearInterval(this.pingTimer);
    for (const { reject } of this.pending.values()) {
      reject(Object.assign(new Error("connection lost"), { code: "offline" }));
    }
    this.pending.clear();
    if (this.closedByUs) return;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)] * (0.75 + Math.random() / 2);
    this.attempt += 1;
    this.retryAt = Date.now() + delay; // the page counts down to it ("retrying in 3 s")
    this.handlers.onStatus("lost");
    setTimeout(() => this.open(), delay);
  }

  startPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      this.request({ type: "ping" }).catch(() => {});
    }, PING_EVERY_MS);
  }
}

/**
 * An `update` is one change at the table in one frame: the answer to our own request (when `rid`
 * is set), the numbered events, then our snapshot. Hand them on in that order. The snapshot is
 * told as a change of `previous` (protocol 3): `info` null means unchanged, and `view.history`
 * holds only the entries from `history_from` on. Throws when `previous` cannot be the base.
 * A `change` (protocol 4) is followed instead (`followed`), `elapsedMs` after `previous` came.
 * @param {Message} message
 * @param {Message | null} previous
 * @param {number} [elapsedMs]
 * @returns {Message[]}
 */
export function unfold(message, previous, elapsedMs = 0) {
  if (message.type === "change") return followed(message, previous, elapsedMs);
  if (message.type !== "update") return [message];
  const answer = message.rid != null ? [{ type: "ack", rid: message.rid }] : [];
  return [...answer, ...message.events, whole(message.snapshot, previous)];
}

/**
 * A `change` (protocol 4): the answer, the events, then the snapshot they lead to, our view
 * followed from `previous`'s by each event (follow.js) unless the change brings a whole one.
 * Throws `FollowError` on a gap or an event the view cannot take.
 * Unchanged deadlines are `previous`'s, their remaining times less the `elapsedMs` since.
 * @param {Message} change @param {Message | null} previous @param {number} elapsedMs
 * @returns {Message[]}
 */
function followed(change, previous, elapsedMs) {
  const answer = change.rid != null ? [{ type: "ack", rid: change.rid }] : [];
  const info = change.info ?? previous?.info;
  const you = change.you ?? previous?.you;
  if (!info || !you || !change.events.length) throw new FollowError("a change before any snapshot");
  if (previous && change.events[0].n !== previous.last_event + 1) {
    throw new FollowError(`event ${change.events[0].n} after ${previous.last_event}`);
  }
  let view = previous?.view ?? null;
  for (const each of change.events) view = followEvent(view, each.event, info, you.seat ?? null);
  if (change.view) view = change.view;
  const deadlines = change.deadlines ?? (previous?.deadlines ?? []).map(
    (/** @type {Message} */ d) => ({ ...d, remaining_ms: Math.max(0, d.remaining_ms - elapsedMs) }));
  const last_event = change.events[change.events.length - 1].n;
  const snapshot = { type: "snapshot", last_event, you, info, view, legal: change.legal ?? [], deadlines };
  return [...answer, ...change.events, snapshot];
}

/** @param {Message} change @param {Message | null} previous @returns {Message} */
function whole(change, previous) {
  const { history_from: from = 0, ...snapshot } = change;
  if (snapshot.info == null) {
    if (!previous) throw new Error("an update left out the table info before any snapshot");
    snapshot.info = previous.info;
  }
  if (from > 0) {
    const before = previous?.view?.history;
    if (!snapshot.view || !before || before.length < from) {
      throw new Error(`an update continues a history of ${from} entries that we do not hold`);
    }
    snapshot.view = { ...snapshot.view, history: [...before.slice(0, from), ...snapshot.view.history] };
  }
  return snapshot;
}

/** Messages that answer a request (carry its rid); events pushed to everyone do not. */
/** @param {Message} message */
function isAnswer(message) {
  return ["ack", "error", "welcome", "table_created", "pong", "record", "ladder", "ladder_board",
    "ladder_synced", "me", "history", "friends", "leaderboard", "hint", "turns", "push_key",
    "notice_settings", "invitations"]
    .includes(message.type);
}

/** The socket address of the server that served this page. */
export function socketUrl(path = "/ws") {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}
