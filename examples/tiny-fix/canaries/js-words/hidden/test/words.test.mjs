import test from "node:test";
import assert from "node:assert/strict";
import { countWords } from "../lib/words.mjs";

test("counts plain words", () => assert.equal(countWords("a b c"), 3));
test("ignores repeated spaces", () => assert.equal(countWords("a  b"), 2));
