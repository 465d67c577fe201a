// undici's connection pool with its request API, and nothing else of the package. undici's index
// loads every dispatcher, fetch, WebSocket, the caches and the mocks, which the operator never uses
// (measured with Node 24: a bare Node with the index loaded 69 MiB of resident memory, with these
// three files 57 MiB; every module of the operator loaded, 91 MiB against 87 MiB). The paths are
// undici's own files at the version package-lock.json pins; were their layout to change, the
// operator would fail at start, and so would every test that calls Harbor with it.
import { createRequire } from "node:module";
import type { Pool as UndiciPool } from "undici";

export type { Dispatcher } from "undici";
export type Pool = UndiciPool;

const require = createRequire(import.meta.url);

export const Pool = require("undici/lib/dispatcher/pool") as typeof UndiciPool;
const BaseDispatcher = require("undici/lib/dispatcher/dispatcher") as { prototype: object };
// What undici's index does to give every dispatcher request(), stream() and the rest.
Object.assign(BaseDispatcher.prototype, require("undici/lib/api") as object);
