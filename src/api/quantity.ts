// A project's storage limit as the spec writes it ("10Gi", "1.5G", "unlimited") and as Harbor
// stores it: a whole number of bytes from 1 to 1024 TiB, or -1 for unlimited. The CRD checks the
// syntax and the range at admission; a fraction of a byte ("1.5") only the operator sees.
import { celString, type StringRule } from "./common.ts";

/** Harbor's ceiling for a project quota: 1024 TiB. */
export const MAX_STORAGE_BYTES = 2 ** 50;

const QUANTITY = /^([0-9]+)(?:\.([0-9]+))?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/;

const UNITS: Record<string, bigint> = {
  "": 1n,
  k: 10n ** 3n,
  M: 10n ** 6n,
  G: 10n ** 9n,
  T: 10n ** 12n,
  P: 10n ** 15n,
  Ki: 2n ** 10n,
  Mi: 2n ** 20n,
  Gi: 2n ** 30n,
  Ti: 2n ** 40n,
  Pi: 2n ** 50n,
};

/** Bytes of a storage quantity, -1 for unlimited; undefined when Harbor could not store it. */
export function storageBytes(text: string): number | undefined {
  if (text === "unlimited" || text === "-1") return -1;
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, whole = "", fraction = "", unit = ""] = m;
  // Exact arithmetic: "1.1k" is 1100 bytes, "1.5" no whole number of bytes.
  const scaled = BigInt(whole + fraction) * (UNITS[unit] as bigint);
  const divisor = 10n ** BigInt(fraction.length);
  if (scaled % divisor !== 0n) return undefined;
  const bytes = scaled / divisor;
  return bytes >= 1n && bytes <= BigInt(MAX_STORAGE_BYTES) ? Number(bytes) : undefined;
}

const BINARY_UNITS: ReadonlyArray<[string, number]> = [
  ["Pi", 2 ** 50],
  ["Ti", 2 ** 40],
  ["Gi", 2 ** 30],
  ["Mi", 2 ** 20],
  ["Ki", 2 ** 10],
];

/** Bytes → the shortest exact binary quantity ("10Gi"), or "unlimited" for -1. */
export function formatStorage(bytes: number): string {
  if (bytes < 0) return "unlimited";
  for (const [unit, size] of BINARY_UNITS) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

export const STORAGE_LIMIT: StringRule = {
  // CEL's isInteger() refuses "1.5Gi" (whole bytes): the fraction of a byte is left to the operator.
  cel: `self == 'unlimited' || self == '-1' || (self.matches(${celString(QUANTITY.source)}) && quantity(self).compareTo(quantity('1')) >= 0 && quantity(self).compareTo(quantity('1Pi')) <= 0)`,
  message:
    'must be "unlimited", "-1", or a whole number of bytes from 1 to 1Pi written as a quantity with an optional suffix k, M, G, T, P, Ki, Mi, Gi, Ti or Pi (e.g. "10Gi")',
  test: (v) => storageBytes(v) !== undefined,
};
