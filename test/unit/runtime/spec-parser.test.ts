// The spec parser shared by a kind's claims, reconcile and sweep: one parse per spec object, a new
// object parsed afresh, and what cannot be cached (no object) parsed every time.
import { expect, test } from "vitest";
import { z } from "zod";
import { specParser } from "../../../src/runtime/spec-parser.ts";

test("parses each spec object once, and a new version again", () => {
  let parses = 0;
  const schema = z.object({ name: z.string(), size: z.number().default(1) }).transform((v) => {
    parses++;
    return v;
  });
  const parse = specParser(schema);
  const spec = { name: "a" };
  const first = parse(spec);
  expect(first.success && first.data).toEqual({ name: "a", size: 1 });
  expect(parse(spec)).toBe(first);
  expect(parses).toBe(1);
  const next = parse({ name: "a", size: 2 });
  expect(next.success && next.data).toEqual({ name: "a", size: 2 });
  expect(parses).toBe(2);
  // An invalid spec is remembered as invalid; a missing one is parsed as {} each time.
  expect(parse({ size: 3 }).success).toBe(false);
  expect(parse(undefined).success).toBe(false);
  expect(parses).toBe(2);
});
