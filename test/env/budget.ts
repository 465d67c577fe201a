// How long the tests wait for anything: one budget, in one place. A wait's timeout only guards
// against a hang; it never measures speed (that is the benchmark's job), so every wait of the tests
// takes its timeout from here, and a machine that is slower or busier than the 2-core machine the
// numbers were chosen on scales them all with HCO_TEST_TIME_SCALE (e.g. 2 doubles every one).
//
// The numbers: on the 2-core machine with two test files running at once, the operator acts on a
// change in well under a second and a drift sweep comes every few seconds; the longest wait that
// passes there takes about 15 s (a retry backoff). The budget is four times that.

const scale = (() => {
  const raw = process.env.HCO_TEST_TIME_SCALE;
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`HCO_TEST_TIME_SCALE must be a positive number, not ${raw}`);
  return n;
})();

const seconds = (s: number) => Math.round(s * 1000 * scale);

export const budget = {
  /** The scale applied to every figure below. */
  scale,
  /** One request to a local peer: kubectl, the apiserver, the emulator. */
  requestMs: seconds(30),
  /** The operator acting on something: a reconcile, a retry, a drift sweep, a run followed to its end. */
  operatorMs: seconds(60),
  /** Starting a process and seeing it ready: an operator, a control plane, a demo. */
  startMs: seconds(120),
  /** One test of the cluster project: a few changes, each awaited. */
  testMs: seconds(180),
  /** A test that starts whole environments of its own (a demo, a Helm install, the benchmark). */
  longTestMs: seconds(300),
} as const;
