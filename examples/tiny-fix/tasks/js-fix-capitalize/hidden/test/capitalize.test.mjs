import test from "node:test";
import assert from "node:assert/strict";
import { capitalize } from "../lib/capitalize.mjs";

test("mixed case", () => assert.equal(capitalize("hELLO"), "Hello"));
test("empty", () => assert.equal(capitalize(""), ""));
test("one letter", () => assert.equal(capitalize("a"), "A"));
