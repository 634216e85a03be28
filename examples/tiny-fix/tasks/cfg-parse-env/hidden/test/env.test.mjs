import test from "node:test";
import assert from "node:assert/strict";
import { parseEnv } from "../lib/env.mjs";

test("double quotes", () => assert.deepEqual(parseEnv('A="x y"'), { A: "x y" }));
test("single quotes", () => assert.deepEqual(parseEnv("B='z'"), { B: "z" }));
test("bare values", () => assert.deepEqual(parseEnv("C=1\n# c\nD = two"), { C: "1", D: "two" }));
test("mismatched quotes stay", () => assert.deepEqual(parseEnv("E=\"q'"), { E: "\"q'" }));
