// The pure parts of delivering a robot's copies: what the ServiceAccount watch keeps of each object
// (memory: it caches every ServiceAccount of the cluster), which robots a ServiceAccount change
// wakes, and what status says about copies that failed.
import { describe, expect, test } from "vitest";
import { MAX_COPY_FAILURES } from "../../../src/api/robot.ts";
import { type CopyFailure, copyFailureReport } from "../../../src/controllers/robot/delivery.ts";
import { acceptsCopiesFrom } from "../../../src/controllers/robot/mapping.ts";
import { linksServiceAccount } from "../../../src/controllers/robot/pull-secret-links.ts";
import {
  removedPullSecrets,
  trimServiceAccount,
} from "../../../src/controllers/shared/service-account-watch.ts";
import type { ServiceAccountObject } from "../../../src/kube/types.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";

/** A ServiceAccount as the apiserver sends it in a watch event, with what tools add to it. */
const fullServiceAccount = {
  apiVersion: "v1",
  kind: "ServiceAccount",
  metadata: {
    name: "app",
    namespace: "team-a",
    uid: "0b7c6d6e-8d51-4a3f-9d0c-1f3f2b1c9a77",
    resourceVersion: "48213",
    creationTimestamp: "2026-01-01T00:00:00Z",
    labels: {
      "app.kubernetes.io/name": "app",
      "app.kubernetes.io/managed-by": "Helm",
      "helm.sh/chart": "app-1.2.3",
    },
    annotations: {
      "meta.helm.sh/release-name": "app",
      "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/app",
      "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ padding: "x".repeat(4000) }),
    },
    ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "u" }],
    managedFields: [{ manager: "helm", operation: "Update", fieldsV1: { "f:metadata": {} } }],
  },
  secrets: [{ name: "app-token-abcde" }],
  imagePullSecrets: [{ name: "team-pull" }, { name: "other" }],
  automountServiceAccountToken: false,
};

describe("which namespaces accept a robot's copies", () => {
  const from = (value?: string) =>
    value === undefined ? undefined : { "harborconfig.io/accept-pull-secrets-from": value };
  test.each([
    [undefined, "team-a", false],
    ["", "team-a", false],
    ["team-a", "team-a", true],
    ["team-ab", "team-a", false],
    ["platform, team-a", "team-a", true],
    ["platform,team-a", "team-a", true],
    ["platform team-a", "team-a", true],
    ["platform", "team-a", false],
    ["*", "team-a", true],
    ["team-*", "team-a", false],
  ])("annotation %j, robot in %s: %s", (value, source, accepted) => {
    expect(acceptsCopiesFrom(from(value), source)).toBe(accepted);
  });
});

describe("the ServiceAccount watch's cache", () => {
  test("keeps the name, namespace, resourceVersion and pull secret names, nothing else", () => {
    expect(trimServiceAccount(fullServiceAccount)).toEqual({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "app", namespace: "team-a", resourceVersion: "48213" },
      imagePullSecrets: [{ name: "team-pull" }, { name: "other" }],
    });
  });

  test("a list item (no kind) without pull secrets stays just as small", () => {
    const { apiVersion: _a, kind: _k, imagePullSecrets: _i, ...item } = fullServiceAccount;
    expect(trimServiceAccount(item)).toEqual({
      metadata: { name: "app", namespace: "team-a", resourceVersion: "48213" },
    });
  });

  test("what it keeps of a typical ServiceAccount is a few dozen bytes, however large the object", () => {
    const kept = JSON.stringify(trimServiceAccount(fullServiceAccount)).length;
    expect(JSON.stringify(fullServiceAccount).length).toBeGreaterThan(4000);
    expect(kept).toBeLessThan(200);
  });

  test("an update that removes pull secrets names them; one that adds or keeps them names none", () => {
    const sa = (...names: string[]): ServiceAccountObject => ({
      metadata: { name: "app", namespace: "team-a" },
      ...(names.length ? { imagePullSecrets: names.map((name) => ({ name })) } : {}),
    });
    expect(removedPullSecrets(sa("team-pull", "other"), sa("other"))).toEqual(["team-pull"]);
    expect(removedPullSecrets(sa("team-pull"), sa())).toEqual(["team-pull"]);
    expect(removedPullSecrets(sa(), sa("team-pull"))).toEqual([]);
    expect(removedPullSecrets(sa("a"), sa("a"))).toEqual([]);
  });
});

describe("which robots a ServiceAccount wakes", () => {
  const robot = (name: string, secret: Record<string, unknown>): ManagedObject => ({
    metadata: { name, namespace: "ops" },
    spec: { secret },
  });
  const copies = (serviceAccounts: string[], matchLabels: Record<string, string> = { pull: "yes" }) => ({
    copies: { namespaceSelector: { matchLabels }, serviceAccounts },
  });
  const sa = { metadata: { name: "app", namespace: "team-a" } };
  const labelled = { pull: "yes" };

  test("a robot that names it and selects its namespace", () => {
    expect(linksServiceAccount(robot("r", copies(["app"])), sa, labelled)).toBe(true);
    expect(linksServiceAccount(robot("r", copies(["default", "app"])), sa, labelled)).toBe(true);
    // An empty selector matches every namespace.
    expect(linksServiceAccount(robot("r", copies(["app"], {})), sa, {})).toBe(true);
  });

  test("not one that names another ServiceAccount, selects other namespaces, or copies nowhere", () => {
    expect(linksServiceAccount(robot("r", copies(["default"])), sa, labelled)).toBe(false);
    expect(linksServiceAccount(robot("r", copies(["app"])), sa, { pull: "no" })).toBe(false);
    expect(linksServiceAccount(robot("r", {}), sa, labelled)).toBe(false);
    expect(linksServiceAccount({ metadata: { name: "r", namespace: "ops" } }, sa, labelled)).toBe(false);
  });

  test("not while its namespace is unknown: the Namespace's own event queues the robots", () => {
    expect(linksServiceAccount(robot("r", copies(["app"])), sa, undefined)).toBe(false);
  });

  test("after a removal, only the robots whose Secret was removed", () => {
    expect(linksServiceAccount(robot("team-pull", copies(["app"])), sa, labelled, ["team-pull"])).toBe(true);
    expect(
      linksServiceAccount(robot("r", { name: "team-pull", ...copies(["app"]) }), sa, labelled, ["team-pull"]),
    ).toBe(true);
    expect(linksServiceAccount(robot("r", copies(["app"])), sa, labelled, ["team-pull"])).toBe(false);
  });
});

describe("what status says about failed copies", () => {
  const conflict = (namespace: string): CopyFailure => ({
    namespace,
    reason: "SecretConflict",
    message: `Secret ${namespace}/pull exists and is not managed by this resource; rename the secret or remove it`,
  });

  test("one namespace: named with why", () => {
    const r = copyFailureReport([conflict("team-b")]);
    expect(r.listed).toEqual([conflict("team-b")]);
    expect(r.message).toBe(
      "the Secret could not be delivered to namespace team-b: Secret team-b/pull exists and is not managed by this resource; rename the secret or remove it",
    );
  });

  test("several: sorted by namespace, counted, each with why", () => {
    const forbidden: CopyFailure = {
      namespace: "a-locked",
      reason: "Forbidden",
      message:
        'PUT /api/v1/namespaces/a-locked/serviceaccounts/default: 403 serviceaccounts "default" is forbidden',
    };
    const r = copyFailureReport([conflict("team-b"), forbidden]);
    expect(r.listed.map((f) => f.namespace)).toEqual(["a-locked", "team-b"]);
    expect(r.message).toMatch(
      /^the Secret could not be delivered to 2 namespaces \(status\.copyFailures lists them\): a-locked: PUT .* is forbidden; team-b: Secret team-b\/pull exists/,
    );
  });

  test("status lists at most the CRD's limit, with short, clean messages; the message counts them all", () => {
    const many = Array.from({ length: MAX_COPY_FAILURES + 5 }, (_, i) => ({
      ...conflict(`ns-${String(i).padStart(2, "0")}`),
      message: `refused\n\u202e${"x".repeat(600)}`,
    }));
    const r = copyFailureReport(many);
    expect(r.listed).toHaveLength(MAX_COPY_FAILURES);
    expect(r.listed[0]?.namespace).toBe("ns-00");
    for (const f of r.listed) {
      expect(f.message.length).toBeLessThanOrEqual(256);
      expect(f.message).toMatch(/^refused x+…$/);
    }
    expect(r.message).toContain(`to ${MAX_COPY_FAILURES + 5} namespaces`);
  });
});
