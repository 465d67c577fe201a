import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { budget } from "./env/budget.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The client and CLI tests again on each older supported Harbor release (the harbor and cli
 * projects run on the newest): the same files, with HCO_HARBOR_VERSION set, so every emulator a test
 * starts without naming a release models that one. Left out, as nothing in them follows the
 * release they run on: the files that name the release of every emulator they start (the release
 * matrix itself, the deployment settings, the connection's release handling), the one that starts
 * none, the HTTP transport below every operation, the emulator's own command line, the export
 * benchmark's smoke run and the CLI's process wrapper (help, exit codes, standard input, files).
 */
const OLDER_RELEASES = ["2.12.4", "2.13.5", "2.14.4"];
const RELEASE_PINNED = [
  "test/integration/harbor/versions.test.ts",
  "test/integration/harbor/deployment-settings.test.ts",
  "test/integration/harbor/connection-release.test.ts",
  "test/integration/harbor/bounded-body.test.ts",
  "test/integration/harbor/transport.test.ts",
  "test/integration/harbor/emulator-cli.test.ts",
  "test/integration/cli/bench-export.test.ts",
  "test/integration/cli/bin.test.ts",
];

// Seven kinds of project, split by what a test needs around it:
// - unit:    pure logic, nothing started.
// - harbor:  the Harbor client and the emulator; each file starts its own in-process emulator.
// - cli:     the command-line companion against an in-process emulator of each file's own.
// - harbor-<release>: the harbor and cli files again, on each older supported Harbor release.
// - install: the set-up itself (npm ci on a copy of the project), with other npm releases.
// - cluster: a real kube-apiserver + etcd (+ controller-manager) and an emulator per worker slot,
//            started once per run by the global setup, so that two files run at once without
//            sharing a cluster; each file gets its own namespace.
// - helm:    the Helm chart, with helm built from its Go module (a first build of its own, a step of
//            `npm test` before vitest); installs go into a control plane of the file's own, since
//            the chart installs the CRDs that the cluster project's global setup installs.
// - argocd:  a real Argo CD with a control plane, operator and emulator of its own (a cluster-wide
//            operator and Argo CD would see the cluster project's namespaces); its binaries take a
//            first build of their own, so `npm test` leaves it out: `npm run test:argocd` runs it.
// - flux:    a real Flux kustomize-controller likewise (`npm run test:flux`).
export default defineConfig({
  test: {
    root,
    pool: "forks",
    maxWorkers: 2,
    // From the one budget, so that HCO_TEST_TIME_SCALE stretches the fast projects' guards too.
    testTimeout: budget.requestMs,
    hookTimeout: budget.startMs,
    teardownTimeout: budget.requestMs,
    projects: [
      // unit, harbor and cli share a worker's modules between files (isolate: false): importing the
      // sources anew for each file cost more CPU than the tests themselves. Their files keep no
      // state outside what they start and stop (an emulator each, fake timers restored).
      {
        extends: true,
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false },
      },
      {
        extends: true,
        test: { name: "harbor", include: ["test/integration/harbor/**/*.test.ts"], isolate: false },
      },
      {
        extends: true,
        // The command-line companion against the emulator (each file starts its own); what needs
        // a cluster (--connection, the round trip with the operator) is in the cluster project.
        // Failures that wait out the client's retries run at once (describe.concurrent); they sleep
        // more than they work, so a file may run that many together.
        test: {
          name: "cli",
          include: ["test/integration/cli/**/*.test.ts"],
          maxConcurrency: 64,
          isolate: false,
        },
      },
      ...OLDER_RELEASES.map((release) => ({
        extends: true as const,
        test: {
          name: `harbor-${release}`,
          include: ["test/integration/harbor/**/*.test.ts", "test/integration/cli/**/*.test.ts"],
          exclude: RELEASE_PINNED,
          env: { HCO_HARBOR_VERSION: release },
          maxConcurrency: 64,
          isolate: false,
        },
      })),
      {
        extends: true,
        // The README's set-up on a clean copy of the project, with other npm releases.
        test: { name: "install", include: ["test/integration/install/**/*.test.ts"], testTimeout: 240_000 },
      },
      {
        extends: true,
        test: {
          name: "cluster",
          include: ["test/integration/cluster/**/*.test.ts", "test/e2e/**/*.test.ts"],
          globalSetup: ["test/env/global-setup.ts"],
          testTimeout: budget.testMs,
          hookTimeout: budget.startMs + budget.operatorMs,
        },
      },
      {
        extends: true,
        test: {
          name: "helm",
          include: ["test/integration/helm/**/*.test.ts"],
          testTimeout: budget.longTestMs,
          // A single file run on a machine that never built helm builds it in beforeAll.
          hookTimeout: 20 * 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "argocd",
          include: ["test/argocd/**/*.test.ts"],
          testTimeout: 300_000,
          // A first run may build the control plane in beforeAll when it was not built before.
          hookTimeout: 30 * 60_000,
          maxWorkers: 1,
        },
      },
      {
        extends: true,
        test: {
          name: "flux",
          include: ["test/flux/**/*.test.ts"],
          testTimeout: 300_000,
          // A first run may build the control plane in beforeAll when it was not built before.
          hookTimeout: 30 * 60_000,
          maxWorkers: 1,
        },
      },
    ],
  },
});
