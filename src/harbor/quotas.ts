// Quotas (/quotas): the hard limits and usage Harbor keeps per project, apart from the project
// itself. Harbor's quota semantics a caller should know:
// - every operation needs *system* access (an admin, or a system robot with quota permissions); a
//   project admin gets 403 (its message is the caller's name). Project members see the same
//   numbers in the project summary, read-only;
// - a project's quota is the one with reference "project" and reference_id = the project id (a
//   string); its id is its own, not the project's. It goes when the project goes;
// - an update replaces the hard limits: `storage` must be there, is the only resource, and is -1
//   (unlimited) or positive (400 otherwise). A limit below what is used is accepted (by design:
//   pushes then fail until it is raised or content goes);
// - the list's default order is newest first; `sort` takes creation_time, update_time,
//   hard.storage and used.storage, with "-" for descending. It has no `q`.
import { z } from "zod";
import { Timestamp } from "./common.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** Resource name → amount; storage in bytes, -1 is unlimited. */
export const ResourceList = z.record(z.string(), z.number().int());
export type ResourceList = z.output<typeof ResourceList>;

export const Quota = z.object({
  id: z.number().int().optional(),
  /** What the quota is for; for a project: its id, name and owner_name. */
  ref: z.record(z.string(), z.unknown()).nullish(),
  hard: ResourceList.nullish(),
  used: ResourceList.nullish(),
  creation_time: Timestamp.optional(),
  update_time: Timestamp.optional(),
});
export type Quota = z.output<typeof Quota>;

export const QuotaUpdate = z.object({ hard: ResourceList });
export type QuotaUpdate = z.input<typeof QuotaUpdate>;

export interface QuotaListParams {
  /** "project" for project quotas. */
  reference?: string;
  /** The referenced object's id (Harbor compares it as a string). */
  referenceId?: string | number;
  /** e.g. "creation_time", "-hard.storage"; unknown keys mean the default order (newest first). */
  sort?: string;
}

/** The project id a project quota refers to, from its `ref`. */
export function quotaProjectId(quota: Quota): number | undefined {
  const id = quota.ref?.id;
  return typeof id === "number" ? id : undefined;
}

export class QuotasApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** listQuotas: every page. */
  list(params: QuotaListParams = {}, opts?: CallOptions): Promise<Quota[]> {
    return this.#t.listAll(this.#listRequest(params, opts), Quota);
  }

  /** listQuotas, page by page (100 each), for callers that may stop early. */
  pages(params: QuotaListParams = {}, opts?: CallOptions): AsyncGenerator<Quota[]> {
    return this.#t.pages(this.#listRequest(params, opts), Quota);
  }

  /** The quota of one project (there is one per project), or undefined when Harbor has none. */
  async ofProject(projectId: number, opts?: CallOptions): Promise<Quota | undefined> {
    const found = await this.list({ reference: "project", referenceId: projectId }, opts);
    return found.find((q) => quotaProjectId(q) === projectId) ?? found[0];
  }

  /** getQuota */
  get(id: number, opts?: CallOptions): Promise<Quota> {
    return this.#t.json({ ...opts, operation: "getQuota", method: "GET", path: path`/quotas/${id}` }, Quota);
  }

  /** updateQuota: replaces the hard limits, e.g. `{ storage: 10 * 2 ** 30 }`. */
  update(id: number, hard: ResourceList, opts?: CallOptions): Promise<void> {
    const body = QuotaUpdate.parse({ hard });
    return this.#t.noContent({
      ...opts,
      operation: "updateQuota",
      method: "PUT",
      path: path`/quotas/${id}`,
      body,
    });
  }

  #listRequest(params: QuotaListParams, opts: CallOptions | undefined) {
    return {
      ...opts,
      operation: "listQuotas",
      method: "GET" as const,
      path: "/quotas",
      query: {
        reference: params.reference,
        reference_id: params.referenceId === undefined ? undefined : String(params.referenceId),
        sort: params.sort,
      },
    };
  }
}
