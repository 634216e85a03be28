import test from "node:test";
import assert from "node:assert/strict";
import { sum } from "../lib/sum.mjs";

test("adds every element", () => assert.equal(sum([1, 2, 3]), 6));
test("empty is zero", () => assert.equal(sum([]), 0));
test("single element", () => assert.equal(sum([5]), 5));
