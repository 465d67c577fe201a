export * from "./client.ts";
export * from "./errors.ts";
export * from "./query.ts";
export type { CallOptions, HarborCallEvent, HarborConnectionSettings } from "./transport.ts";
