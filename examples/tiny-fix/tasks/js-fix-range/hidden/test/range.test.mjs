import test from "node:test";
import assert from "node:assert/strict";
import { range } from "../lib/range.mjs";

test("half-open", () => assert.deepEqual(range(2, 5), [2, 3, 4]));
test("empty when equal", () => assert.deepEqual(range(3, 3), []));
test("empty when reversed", () => assert.deepEqual(range(5, 2), []));
