// Labels (/labels): global (scope "g") or per project (scope "p").
import { z } from "zod";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const LabelScope = z.enum(["g", "p"]);

export const Label = z.object({
  id: z.number().int().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  color: z.string().optional(),
  scope: z.string().optional(),
  project_id: z.number().int().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type Label = z.output<typeof Label>;

export const LabelCreate = z.object({
  name: z.string(),
  description: z.string().optional(),
  color: z.string().optional(),
  scope: LabelScope,
  /** Required for scope "p"; forced to 0 by Harbor for scope "g". */
  project_id: z.number().int().optional(),
});
export type LabelCreate = z.input<typeof LabelCreate>;

/** Only name, description and color change on update. */
export const LabelUpdate = z.object({
  name: z.string(),
  description: z.string().optional(),
  color: z.string().optional(),
});
export type LabelUpdate = z.input<typeof LabelUpdate>;

export interface LabelListParams extends ListFilter {
  /** Harbor requires a scope in practice: "g", or "p" with projectId. */
  scope: z.infer<typeof LabelScope>;
  projectId?: number;
  /** Fuzzy match on the name. */
  name?: string;
}

export class LabelsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** CreateLabel: returns the new label's id. */
  async create(label: LabelCreate, opts?: CallOptions): Promise<number> {
    const body = LabelCreate.parse(label);
    return Number(
      await this.#t.created({ ...opts, operation: "CreateLabel", method: "POST", path: "/labels", body }),
    );
  }

  /** ListLabels: every page. */
  list(params: LabelListParams, opts?: CallOptions): Promise<Label[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListLabels",
        method: "GET",
        path: "/labels",
        query: {
          scope: params.scope,
          project_id: params.projectId,
          name: params.name,
          ...listQuery(params),
        },
      },
      Label,
    );
  }

  /** GetLabelByID */
  get(id: number, opts?: CallOptions): Promise<Label> {
    return this.#t.json(
      { ...opts, operation: "GetLabelByID", method: "GET", path: path`/labels/${id}` },
      Label,
    );
  }

  /** UpdateLabel */
  update(id: number, label: LabelUpdate, opts?: CallOptions): Promise<void> {
    const body = LabelUpdate.parse(label);
    return this.#t.noContent({
      ...opts,
      operation: "UpdateLabel",
      method: "PUT",
      path: path`/labels/${id}`,
      body,
    });
  }

  /** DeleteLabel */
  delete(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeleteLabel",
      method: "DELETE",
      path: path`/labels/${id}`,
    });
  }
}
