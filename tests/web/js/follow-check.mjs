// Follow recorded protocol 4 frames with the browser's connection (connection.js `unfold`, its
// views followed by follow.js) and hold each view to the one the server held for that viewer
// (tests/web/test_follow_js.py writes the file). Prints "followed N" or throws.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { unfold } from "../../../clients/web/js/connection.js";

const viewers = JSON.parse(readFileSync(process.argv[2], "utf8"));
let followed = 0;
for (const frames of viewers) {
  let snapshot = null;
  for (const [message, truth] of frames) {
    for (const each of unfold(message, snapshot)) {
      if (each.type === "snapshot") snapshot = each;
    }
    if (message.type === "change") {
      assert.deepStrictEqual(snapshot.view, truth, `after event ${snapshot.last_event}`);
      followed += 1;
    }
  }
}
console.log(`followed ${followed}`);
