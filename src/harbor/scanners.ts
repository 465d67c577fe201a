// Scanner registrations (/scanners), the default scanner, and per-project scanners
// (/projects/{project_name_or_id}/scanner…). Registrations are addressed by UUID.
import { z } from "zod";
import { nullAsAbsent, type ProjectRef, projectHeaders } from "./common.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const ScannerRegistration = z.object({
  uuid: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  url: z.string().optional(),
  disabled: z.boolean().nullish(),
  is_default: z.boolean().nullish(),
  auth: z.string().optional(),
  access_credential: z.string().optional(),
  skip_certVerify: z.boolean().nullish(),
  use_internal_addr: z.boolean().nullish(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  adapter: z.string().optional(),
  vendor: z.string().optional(),
  version: z.string().optional(),
  /** "healthy" or "unhealthy"; filled on the project-scanner path only. */
  health: z.string().optional(),
  /** e.g. { support_vulnerability: true, support_sbom: true } (Harbor 2.12). */
  capabilities: nullAsAbsent(z.record(z.string(), z.unknown())),
});
export type ScannerRegistration = z.output<typeof ScannerRegistration>;

/** "" (none), Basic, Bearer or APIKey; every value but "" needs access_credential. */
export const ScannerAuth = z.enum(["", "Basic", "Bearer", "APIKey"]);

export const ScannerRegistrationReq = z.object({
  name: z.string(),
  /** The adapter's base URL, e.g. http://harbor-scanner-trivy:8080. */
  url: z.string(),
  description: z.string().optional(),
  auth: ScannerAuth.optional(),
  access_credential: z.string().optional(),
  skip_certVerify: z.boolean().optional(),
  use_internal_addr: z.boolean().optional(),
  disabled: z.boolean().optional(),
});
export type ScannerRegistrationReq = z.input<typeof ScannerRegistrationReq>;

export const ScannerRegistrationSettings = ScannerRegistrationReq.pick({
  name: true,
  url: true,
  auth: true,
  access_credential: true,
});
export type ScannerRegistrationSettings = z.input<typeof ScannerRegistrationSettings>;

export const ScannerAdapterMetadata = z.object({
  scanner: nullAsAbsent(
    z.object({ name: z.string().optional(), vendor: z.string().optional(), version: z.string().optional() }),
  ),
  capabilities: nullAsAbsent(
    z.array(
      z.object({
        type: z.string().optional(),
        consumes_mime_types: nullAsAbsent(z.array(z.string())),
        produces_mime_types: nullAsAbsent(z.array(z.string())),
      }),
    ),
  ),
  properties: nullAsAbsent(z.record(z.string(), z.string())),
});
export type ScannerAdapterMetadata = z.output<typeof ScannerAdapterMetadata>;

/** A project's own scanner, by registration UUID. */
export const ProjectScanner = z.object({ uuid: z.string().min(1) });
export type ProjectScanner = z.input<typeof ProjectScanner>;

export interface ScannerListParams extends ListFilter {
  /** Fuzzy matches. */
  name?: string;
  description?: string;
  url?: string;
  /** Exact matches. */
  exName?: string;
  exUrl?: string;
}

export class ScannersApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** listScanners: every page, the default first, then the newest (Harbor ignores `sort` here). */
  list(params: ScannerListParams = {}, opts?: CallOptions): Promise<ScannerRegistration[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listScanners",
        method: "GET",
        path: "/scanners",
        query: {
          name: params.name,
          description: params.description,
          url: params.url,
          ex_name: params.exName,
          ex_url: params.exUrl,
          ...listQuery(params),
        },
      },
      ScannerRegistration,
    );
  }

  /** createScanner: returns the new registration's UUID. Harbor pings the adapter first. */
  create(registration: ScannerRegistrationReq, opts?: CallOptions): Promise<string> {
    const body = ScannerRegistrationReq.parse(registration);
    return this.#t.created({ ...opts, operation: "createScanner", method: "POST", path: "/scanners", body });
  }

  /** getScanner */
  get(uuid: string, opts?: CallOptions): Promise<ScannerRegistration> {
    return this.#t.json(
      { ...opts, operation: "getScanner", method: "GET", path: path`/scanners/${uuid}` },
      ScannerRegistration,
    );
  }

  /** updateScanner: replaces the registration's settings. */
  update(uuid: string, registration: ScannerRegistrationReq, opts?: CallOptions): Promise<void> {
    const body = ScannerRegistrationReq.parse(registration);
    return this.#t.noContent({
      ...opts,
      operation: "updateScanner",
      method: "PUT",
      path: path`/scanners/${uuid}`,
      body,
    });
  }

  /** deleteScanner: returns the deleted registration. */
  delete(uuid: string, opts?: CallOptions): Promise<ScannerRegistration> {
    return this.#t.json(
      { ...opts, operation: "deleteScanner", method: "DELETE", path: path`/scanners/${uuid}` },
      ScannerRegistration,
    );
  }

  /** setScannerAsDefault: makes an enabled registration the system default. */
  setDefault(uuid: string, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "setScannerAsDefault",
      method: "PATCH",
      path: path`/scanners/${uuid}`,
      body: { is_default: true },
      // Setting the same default twice is harmless.
      idempotent: true,
    });
  }

  /** getScannerMetadata: what the adapter reports about itself. */
  getMetadata(uuid: string, opts?: CallOptions): Promise<ScannerAdapterMetadata> {
    return this.#t.json(
      { ...opts, operation: "getScannerMetadata", method: "GET", path: path`/scanners/${uuid}/metadata` },
      ScannerAdapterMetadata,
    );
  }

  /** pingScanner: checks settings against the adapter without registering anything. */
  ping(settings: ScannerRegistrationSettings, opts?: CallOptions): Promise<void> {
    const body = ScannerRegistrationSettings.parse(settings);
    return this.#t.noContent({
      ...opts,
      operation: "pingScanner",
      method: "POST",
      path: "/scanners/ping",
      body,
      idempotent: true,
    });
  }

  /**
   * getScannerOfProject: the project's own scanner, else the system default (with health, adapter,
   * vendor and version filled); undefined when there is no scanner at all.
   */
  getOfProject(project: ProjectRef, opts?: CallOptions): Promise<ScannerRegistration | undefined> {
    return this.#t.jsonOrEmpty(
      {
        ...opts,
        operation: "getScannerOfProject",
        method: "GET",
        path: path`/projects/${project}/scanner`,
        headers: projectHeaders(project),
      },
      ScannerRegistration,
    );
  }

  /** setScannerOfProject */
  setOfProject(project: ProjectRef, uuid: string, opts?: CallOptions): Promise<void> {
    const body = ProjectScanner.parse({ uuid });
    return this.#t.noContent({
      ...opts,
      operation: "setScannerOfProject",
      method: "PUT",
      path: path`/projects/${project}/scanner`,
      headers: projectHeaders(project),
      body,
    });
  }

  /** listScannerCandidatesOfProject: every page of the registrations the project may choose. */
  listCandidatesOfProject(
    project: ProjectRef,
    filter: ListFilter = {},
    opts?: CallOptions,
  ): Promise<ScannerRegistration[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listScannerCandidatesOfProject",
        method: "GET",
        path: path`/projects/${project}/scanner/candidates`,
        headers: projectHeaders(project),
        query: listQuery(filter),
      },
      ScannerRegistration,
    );
  }
}
