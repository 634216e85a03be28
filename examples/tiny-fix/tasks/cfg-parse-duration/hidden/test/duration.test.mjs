import test from "node:test";
import assert from "node:assert/strict";
import { parseDuration } from "../lib/duration.mjs";

test("hours and minutes", () => assert.equal(parseDuration("1h30m"), 5400));
test("seconds", () => assert.equal(parseDuration("45s"), 45));
test("hours and seconds", () => assert.equal(parseDuration("2h5s"), 7205));
