import { describe, expect, test } from "vitest";
import {
  CHANGES,
  compareReleases,
  firstReleaseText,
  type HarborChange,
  has,
  NEWEST_KNOWN,
  parseRelease,
  releaseOf,
  releaseText,
  supportOf,
} from "../../../src/harbor/release.ts";

describe("what Harbor reports, as a release", () => {
  test.each([
    ["v2.15.2-8ab0c5ba", "2.15.2"],
    ["v2.12.4", "2.12.4"],
    ["2.13.5", "2.13.5"],
    ["v2.13", "2.13.0"],
    ["v2.14.1-rc1-0a1b2c3d", "2.14.1"],
    ["v2.10.3-6b4981d4", "2.10.3"],
    [" v2.15.2-8ab0c5ba\n", "2.15.2"],
    ["v3.0.0+build.7", "3.0.0"],
  ])("%j → %s", (text, release) => {
    const r = parseRelease(text);
    expect(r && releaseText(r)).toBe(release);
  });

  test.each([["dev"], [""], [undefined], ["v2"], ["2.x.1"], ["version 2.15.2"], ["v2.15.2 and more"]])(
    "%j names no release",
    (text) => {
      expect(parseRelease(text)).toBeUndefined();
    },
  );

  test.each([
    ["2.12.4", "2.13.0", -1],
    ["2.13.0", "2.12.4", 1],
    ["2.14.1", "2.14.1", 0],
    ["2.14.10", "2.14.9", 1],
    ["2.9.9", "2.10.0", -1],
    ["3.0.0", "2.99.99", 1],
  ])("%s against %s: %i", (a, b, sign) => {
    const ra = parseRelease(a);
    const rb = parseRelease(b);
    if (!ra || !rb) throw new Error("unparsed");
    expect(Math.sign(compareReleases(ra, rb))).toBe(sign);
  });
});

describe("what the operator does with a release", () => {
  test.each([
    ["v2.12.0-aaaaaaaa", "supported", "2.12.0"],
    ["v2.12.4-e12a4c0e", "supported", "2.12.4"],
    ["v2.13.5-e13a5c0e", "supported", "2.13.5"],
    ["v2.15.2-e15a2c0e", "supported", "2.15.2"],
    // A later patch of the newest line is of a known line.
    ["v2.15.9-aaaaaaaa", "supported", "2.15.9"],
    ["v2.16.0-aaaaaaaa", "newer", "2.16.0"],
    ["v3.0.0", "newer", "3.0.0"],
    ["v2.11.2-aaaaaaaa", "older", "2.11.2"],
    ["v2.10.3-e10a3c0e", "older", "2.10.3"],
    ["v1.10.0", "older", "1.10.0"],
    ["dev", "unknown", releaseText(NEWEST_KNOWN)],
    [undefined, "unknown", releaseText(NEWEST_KNOWN)],
  ])("%j: %s, requests follow %s", (reported, kind, follows) => {
    const s = supportOf(reported);
    expect(s.kind).toBe(kind);
    expect(releaseText(s.release)).toBe(follows);
    expect(releaseText(releaseOf(reported))).toBe(follows);
  });
});

describe("the changes between releases", () => {
  test("every change names a release, within the supported lines", () => {
    for (const [change, entry] of Object.entries(CHANGES)) {
      const firsts: readonly string[] = typeof entry === "string" ? [entry] : entry;
      for (const first of firsts) {
        const r = parseRelease(first);
        expect(r, change).toBeDefined();
        if (!r) continue;
        // A release newer than the newest known has every change (supportOf: "newer").
        expect(compareReleases(r, NEWEST_KNOWN), change).toBeLessThanOrEqual(0);
      }
      // One first release per line.
      expect(new Set(firsts.map((f) => f.split(".").slice(0, 2).join("."))).size, change).toBe(firsts.length);
    }
  });

  test.each<[string, HarborChange, boolean]>([
    ["2.12.4", "gcTenWorkers", false],
    ["2.13.0", "gcTenWorkers", true],
    ["2.13.5", "purgeEventTypes", true],
    ["2.13.5", "singleActiveReplication", false],
    ["2.14.0", "singleActiveReplication", true],
    ["2.14.0", "maxUpstreamConnections", false],
    ["2.14.1", "maxUpstreamConnections", true],
    ["2.14.4", "registryCaCertificate", false],
    ["2.15.0", "registryCaCertificate", true],
    ["2.15.0", "proxyCacheLocalOnNotFound", false],
    ["2.15.1", "proxyCacheLocalOnNotFound", true],
    ["2.16.0", "proxyCacheLocalOnNotFound", true],
    // Brought by a patch of each of three lines.
    ["2.12.4", "webhookAllowPrivateIP", false],
    ["2.13.5", "webhookAllowPrivateIP", false],
    ["2.13.6", "webhookAllowPrivateIP", true],
    ["2.14.4", "webhookAllowPrivateIP", false],
    ["2.14.5", "webhookAllowPrivateIP", true],
    ["2.15.2", "webhookAllowPrivateIP", false],
    ["2.15.3", "webhookAllowPrivateIP", true],
    ["2.16.0", "webhookAllowPrivateIP", true],
  ])("%s has %s: %s", (text, change, expected) => {
    const r = parseRelease(text);
    if (!r) throw new Error("unparsed");
    expect(has(r, change)).toBe(expected);
  });

  test.each<[HarborChange, string]>([
    ["maxUpstreamConnections", "2.14.1"],
    ["gcTenWorkers", "2.13"],
    ["webhookAllowPrivateIP", "2.15.3 (on 2.13: 2.13.6; on 2.14: 2.14.5)"],
  ])("%s comes with Harbor %s", (change, text) => {
    expect(firstReleaseText(change)).toBe(text);
  });

  test("a Harbor that names no release has every change (it is taken as the newest known)", () => {
    for (const change of Object.keys(CHANGES) as HarborChange[])
      expect(has(releaseOf("dev"), change)).toBe(true);
  });
});
