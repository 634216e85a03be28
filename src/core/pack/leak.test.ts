import assert from "node:assert/strict";
import { test } from "node:test";
import { findLeaks } from "./leak.js";

const denylist = ["Django queryset ordering regression in admin changelist"];

test("a denylist line that appears verbatim matches, case-insensitively", () => {
  const hits = findLeaks({ title: "fix: django QUERYSET ordering regression in admin changelist", prompt: "" }, denylist);
  assert.equal(hits.length, 1);
  assert.equal(hits[0]?.how, "verbatim");
  assert.equal(hits[0]?.field, "title");
});

test("four shared words longer than three letters match", () => {
  const hits = findLeaks({ title: "t", prompt: "The admin changelist shows a queryset whose ordering is wrong." }, denylist);
  assert.equal(hits.length, 1);
  assert.deepEqual(hits[0]?.shared, ["admin", "changelist", "ordering", "queryset"]);
});

test("three shared words, or short words, do not", () => {
  assert.deepEqual(findLeaks({ title: "queryset ordering in the admin", prompt: "" }, denylist), []);
  assert.equal(findLeaks({ title: "in the a an of x", prompt: "" }, ["the a an"]).length, 1);
  assert.deepEqual(findLeaks({ title: "of an in at", prompt: "" }, ["at in an of zz"]), []);
});
