import test from "node:test";
import assert from "node:assert/strict";
import { padId } from "../lib/pad.mjs";

test("pads with zeros", () => assert.equal(padId(7), "0007", "padId must pad with zeros"));
