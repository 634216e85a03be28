import test from "node:test";
import assert from "node:assert/strict";
import { unique } from "../lib/unique.mjs";

test("keeps first-seen order", () => assert.deepEqual(unique(["b", "a", "b", "c", "a"]), ["b", "a", "c"]));
test("numbers", () => assert.deepEqual(unique([10, 9, 10, 1]), [10, 9, 1]));
