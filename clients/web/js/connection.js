// One WebSocket to the table server, speaking msgpack frames (protocol/), that heals itself:
// after a drop it reconnects with backoff and says `hello` again with the seat token and the last
// event number seen, so the server resumes the exact stream (ARCHITECTURE invariant 2).

const { encode, decode } = globalThis.MessagePack;

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const PING_EVERY_MS = 20000;

export class Connection {
  /**
   * @param {string} url ws:// or wss:// address of the server's socket
   * @param {{hello: () => object, onMessage: (msg: object) => void,
   *          onStatus: (status: "connecting"|"open"|"lost") => void,
   *          onWelcome?: (welcome: object) => void, onHelloError?: (error: Error) => void}} handlers
   *   `hello()` builds the first message of every (re)connection, so it always carries the
   *   freshest seat token and event number.
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.socket = null;
    this.attempt = 0;
    this.nextRid = 1;
    this.pending = new Map();
    this.closedByUs = false;
    this.pingTimer = null;
    this.ready = null;
    globalThis.addEventListener("online", () => this.reconnectNow());
  }

  /** Open (or reopen) the socket; resolves when the server has answered the hello. */
  open() {
    this.closedByUs = false;
    this.handlers.onStatus("connecting");
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.ready = new Promise((resolve, reject) => {
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
    this.ready.then((welcome) => this.handlers.onWelcome?.(welcome),
      (error) => this.handlers.onHelloError?.(error));
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => this.lost(socket));
    return this.ready;
  }

  /** Send a request; resolves with the server's answer to it (ack/welcome…), rejects on error. */
  request(message) {
    const rid = this.nextRid++;
    const framed = { ...message, rid };
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(Object.assign(new Error("offline"), { code: "offline" }));
        return;
      }
      this.pending.set(rid, { resolve, reject });
      this.socket.send(encode(framed));
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

  receive(data) {
    let message;
    try {
      message = decode(new Uint8Array(data));
    } catch {
      return; // a frame we cannot read: the server never sends one; ignore rather than crash
    }
    const waiter = message.rid ? this.pending.get(message.rid) : undefined;
    if (waiter && isAnswer(message)) {
      this.pending.delete(message.rid);
      if (message.type === "error") {
        waiter.reject(Object.assign(new Error(message.message), { code: message.code }));
      } else {
        waiter.resolve(message);
      }
    }
    this.handlers.onMessage(message);
  }

  lost(socket) {
    if (socket !== this.socket) return;
    clearInterval(this.pingTimer);
    for (const { reject } of this.pending.values()) {
      reject(Object.assign(new Error("connection lost"), { code: "offline" }));
    }
    this.pending.clear();
    if (this.closedByUs) return;
    this.handlers.onStatus("lost");
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    setTimeout(() => this.open(), delay * (0.75 + Math.random() / 2));
  }

  startPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      this.request({ type: "ping" }).catch(() => {});
    }, PING_EVERY_MS);
  }
}

/** Messages that answer a request (carry its rid); events pushed to everyone do not. */
function isAnswer(message) {
  return ["ack", "error", "welcome", "table_created", "pong", "record", "ladder", "ladder_board"]
    .includes(message.type);
}

/** The socket address of the server that served this page. */
export function socketUrl(path = "/ws") {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}
