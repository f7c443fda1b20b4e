// @ts-check
// The club page's one WebSocket (msgpack frames, protocol/clubs.py): say hello, follow the club,
// send the host's commands and get each answer by its request id. It reconnects after a drop and
// follows the club again (the `onOpen` callback), so a member stays seatable. The hello carries
// the person's player key (as on every page): a member known by their public id is called back
// by a notification when a round seats them (issue 41).
import { playerHello } from "./player.js";

/** @typedef {Record<string, any>} Wire */
/** @type {{MessagePack: {encode: (value: unknown) => Uint8Array, decode: (bytes: Uint8Array) => any}}} */
const page = /** @type {any} */ (globalThis);
const PROTOCOL_VERSION = 3;
const RETRY_MS = 1500;

export class ClubSocket {
  /**
   * @param {string} url
   * @param {() => string} name the name said in each hello
   * @param {(message: Wire) => void} onMessage every message, answers included
   * @param {() => void} onOpen after each welcome
   */
  constructor(url, name, onMessage, onOpen) {
    this.url = url;
    this.name = name;
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.nextRid = 1;
    /** @type {Map<number, {resolve: (answer: Wire) => void, reject: (error: Error) => void}>} */
    this.pending = new Map();
    /** @type {WebSocket | null} */
    this.socket = null;
  }

  open() {
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.request({ type: "hello", version: PROTOCOL_VERSION, name: this.name() || "guest",
        ...playerHello() })
        .then(() => this.onOpen(), () => {});
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => {
      for (const { reject } of this.pending.values()) reject(new Error("offline"));
      this.pending.clear();
      if (this.socket === socket) setTimeout(() => this.open(), RETRY_MS);
    });
  }

  /** Say hello again (a new name travels in the hello). */
  reopen() {
    const old = this.socket;
    this.socket = null;
    old?.close(1000);
    this.open();
  }

  /**
   * Send a request; resolves with its answer, rejects with the server's error (its `code`).
   * @param {Wire} message
   * @returns {Promise<Wire>}
   */
  request(message) {
    const rid = this.nextRid++;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(Object.assign(new Error("offline"), { code: "offline" }));
        return;
      }
      this.pending.set(rid, { resolve, reject });
      this.socket.send(/** @type {Uint8Array<ArrayBuffer>} */ (page.MessagePack.encode({ ...message, rid })));
    });
  }

  /** @param {ArrayBuffer} data */
  receive(data) {
    /** @type {Wire} */
    let message;
    try {
      message = page.MessagePack.decode(new Uint8Array(data));
    } catch {
      return;
    }
    const waiter = message.rid ? this.pending.get(message.rid) : undefined;
    if (waiter && message.type !== "snapshot" && message.type !== "update") {
      this.pending.delete(message.rid);
      if (message.type === "error") waiter.reject(Object.assign(new Error(message.message), { code: message.code }));
      else waiter.resolve(message);
    }
    this.onMessage(message);
  }
}
