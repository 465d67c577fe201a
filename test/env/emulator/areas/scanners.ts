// Scanner registrations, the system default scanner and per-project scanners.
//
// The simulated world holds scanner adapters by URL, and only those: as in Harbor, which pings the
// adapter before it registers it, a URL where no adapter answers makes create and ping fail with a
// 500. Tests put an adapter at a URL through the control API (`addAdapter`: a healthy Trivy unless
// told otherwise; `setAdapter`: its own metadata, or unreachable). The emulator starts like a Harbor
// installed without Trivy, so the first registration a client creates becomes the default;
// `installTrivy` adds Harbor's immutable built-in registration (and its adapter).
//
// `capabilities` (2.12 on) always carries both flags, read from the adapter's metadata; it is null
// where Harbor has no metadata at hand (an unreachable adapter, the registration DELETE returns).
//
// From 2.14.4 (2.15.1 on the 2.15 line) `access_credential` is always answered as "", and an update
// whose access_credential is empty or absent keeps the stored one while `auth` still needs one.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { projectAccess, requireSystem } from "../auth.ts";
import {
  badRequest,
  conflict,
  failureList,
  forbidden,
  internal,
  notFound,
  unprocessable,
} from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { applyQ, type Fields, page, parseQ, type QValue } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import { normalizeUrl } from "./registries.ts";

export interface ScannerRecord {
  uuid: string;
  name: string;
  description: string;
  url: string;
  disabled: boolean;
  is_default: boolean;
  auth: string;
  access_credential: string;
  skip_certVerify: boolean;
  use_internal_addr: boolean;
  /** Harbor's built-in registration: cannot be updated or deleted. */
  immutable: boolean;
  create_time: string;
  update_time: string;
  /** Insertion order, to break create_time ties the way a database sequence would. */
  seq: number;
}

export interface ScannerAdapterMetadata {
  scanner: { name: string; vendor: string; version: string };
  capabilities: Array<{ type: string; consumes_mime_types: string[]; produces_mime_types: string[] }>;
  properties: Record<string, string>;
}

interface AdapterState {
  reachable: boolean;
  metadata: ScannerAdapterMetadata;
}

const MANIFEST_TYPES = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
];

/** What an adapter nobody configured answers: a current Trivy adapter. */
export const DEFAULT_ADAPTER_METADATA: ScannerAdapterMetadata = {
  scanner: { name: "Trivy", vendor: "Aqua Security", version: "v0.56.1" },
  capabilities: [
    {
      type: "vulnerability",
      consumes_mime_types: MANIFEST_TYPES,
      produces_mime_types: [
        "application/vnd.security.vulnerability.report; version=1.1",
        "application/vnd.scanner.adapter.vuln.report.harbor+json; version=1.0",
      ],
    },
    {
      type: "sbom",
      consumes_mime_types: MANIFEST_TYPES,
      produces_mime_types: ["application/vnd.security.sbom.report+json; version=1.0"],
    },
  ],
  properties: {
    "harbor.scanner-adapter/scanner-type": "os-package-vulnerability",
    "harbor.scanner-adapter/registry-authorization-type": "Bearer",
  },
};

const RESERVED_NAMES = ["Trivy"];
const AUTH_TYPES = ["Basic", "Bearer", "APIKey"];
const TRIVY_URL = "http://trivy-adapter:8080";

export type ScannerInput = Pick<
  ScannerRecord,
  | "name"
  | "description"
  | "url"
  | "disabled"
  | "auth"
  | "access_credential"
  | "skip_certVerify"
  | "use_internal_addr"
>;

export class ScannerStore {
  readonly #world: World;
  readonly #scanners = new Map<string, ScannerRecord>();
  readonly #adapters = new Map<string, AdapterState>();
  /** project id → the uuid of its own scanner (Harbor keeps it in project metadata). */
  readonly #projectScanner = new Map<number, string>();
  #seq = 0;

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  get(uuid: string): ScannerRecord | undefined {
    return this.#scanners.get(uuid);
  }

  /** Harbor's order, whatever the caller asks for: the default first, then the newest. */
  all(): ScannerRecord[] {
    return [...this.#scanners.values()].sort(
      (a, b) =>
        Number(b.is_default) - Number(a.is_default) ||
        b.create_time.localeCompare(a.create_time) ||
        b.seq - a.seq,
    );
  }

  defaultRegistration(): ScannerRecord | undefined {
    for (const s of this.#scanners.values()) if (s.is_default) return s;
    return undefined;
  }

  /**
   * Puts an adapter at `url` (or changes the one there): reachable unless told otherwise, with the
   * metadata of a current Trivy adapter unless given its own.
   */
  setAdapter(url: string, state: { reachable?: boolean; metadata?: ScannerAdapterMetadata }): void {
    const key = normalizeUrl(url);
    const cur = this.#adapters.get(key);
    this.#adapters.set(key, {
      reachable: state.reachable ?? cur?.reachable ?? true,
      metadata: state.metadata ?? cur?.metadata ?? DEFAULT_ADAPTER_METADATA,
    });
  }

  /** GET <url>/api/v1/metadata. An unreachable adapter is a plain error in Harbor: 500. */
  ping(r: { url: string }): ScannerAdapterMetadata {
    const adapter = this.#adapter(r.url);
    if (!adapter.reachable) {
      throw internal(
        `scanner controller: ping: Get "${r.url}/api/v1/metadata": dial tcp: connection refused`,
      );
    }
    return adapter.metadata;
  }

  /** Like `ping`, for the read paths where a failure is only logged. */
  tryPing(r: { url: string }): ScannerAdapterMetadata | undefined {
    const adapter = this.#adapter(r.url);
    return adapter.reachable ? adapter.metadata : undefined;
  }

  create(input: ScannerInput): ScannerRecord {
    const r = validate(input);
    if (RESERVED_NAMES.includes(r.name)) throw reserved(r.name);
    this.ping(r);
    this.#checkUnique(r, "");
    const now = this.#world.nowText();
    const rec: ScannerRecord = {
      ...r,
      uuid: randomUUID(),
      // The first registration becomes the default.
      is_default: this.#scanners.size === 0,
      immutable: false,
      create_time: now,
      update_time: now,
      seq: ++this.#seq,
    };
    this.#scanners.set(rec.uuid, rec);
    return rec;
  }

  update(rec: ScannerRecord, input: ScannerInput): void {
    if (rec.immutable) throw immutable(rec.name, "update");
    const r = validate(input);
    if (rec.is_default && r.disabled) {
      // A plain error in Harbor, hence a 500.
      throw internal(`default registration ${rec.uuid} can not be marked to deactivated`);
    }
    if (RESERVED_NAMES.includes(r.name)) throw reserved(r.name);
    this.#checkUnique(r, rec.uuid);
    Object.assign(rec, r, { update_time: this.#world.nowText() });
  }

  delete(rec: ScannerRecord): void {
    if (rec.immutable) throw immutable(rec.name, "delete");
    this.#scanners.delete(rec.uuid);
  }

  /** Makes an enabled registration the only default. */
  setDefault(uuid: string): void {
    const target = this.#scanners.get(uuid);
    if (!target || target.disabled) throw notFound(`registration ${uuid} not found`);
    for (const s of this.#scanners.values()) s.is_default = s === target;
  }

  /** Adds Harbor's built-in, immutable Trivy registration and makes it the default. */
  installTrivy(): ScannerRecord {
    const existing = [...this.#scanners.values()].find((s) => s.immutable);
    if (existing) return existing;
    const now = this.#world.nowText();
    const rec: ScannerRecord = {
      uuid: randomUUID(),
      name: "Trivy",
      description: "The Trivy scanner adapter",
      url: TRIVY_URL,
      disabled: false,
      is_default: false,
      auth: "",
      access_credential: "",
      skip_certVerify: false,
      use_internal_addr: true,
      immutable: true,
      create_time: now,
      update_time: now,
      seq: ++this.#seq,
    };
    this.#scanners.set(rec.uuid, rec);
    this.setDefault(rec.uuid);
    if (!this.#adapters.has(TRIVY_URL)) this.setAdapter(TRIVY_URL, {});
    return rec;
  }

  setForProject(projectId: number, uuid: string): void {
    this.#projectScanner.set(projectId, uuid);
  }

  /** The project's own scanner if it still exists (a dangling reference is cleared), else the default. */
  forProject(projectId: number): ScannerRecord | undefined {
    const uuid = this.#projectScanner.get(projectId);
    const own = uuid === undefined ? undefined : this.#scanners.get(uuid);
    if (uuid !== undefined && !own) this.#projectScanner.delete(projectId);
    return own ?? this.defaultRegistration();
  }

  /** Nothing answers at a URL where no adapter was put. */
  #adapter(url: string): AdapterState {
    return this.#adapters.get(url) ?? { reachable: false, metadata: DEFAULT_ADAPTER_METADATA };
  }

  #checkUnique(r: { name: string; url: string }, exceptUuid: string): void {
    for (const s of this.#scanners.values()) {
      if (s.uuid !== exceptUuid && (s.name === r.name || s.url === r.url)) {
        throw conflict("registration name or url already exists");
      }
    }
  }
}

/** Registration.Validate: name, URL (normalised), auth type and its credential. */
function validate(r: ScannerInput): ScannerInput {
  if (r.name === "") throw badRequest("missing registration name");
  let url: string;
  try {
    url = normalizeUrl(r.url);
  } catch (e) {
    throw badRequest(`scanner registration validate: ${(e as Error).message}`);
  }
  if (r.auth !== "" && !AUTH_TYPES.includes(r.auth)) throw badRequest(`auth type ${r.auth} is not supported`);
  if (r.auth !== "" && r.access_credential === "") {
    throw badRequest(`access_credential is required for auth type ${r.auth}`);
  }
  return { ...r, url };
}

const reserved = (name: string) => badRequest(`name "${name}" is reserved, please try a different name`);
const immutable = (name: string, action: "update" | "delete") =>
  forbidden(`registration ${name} is not allowed to ${action} as it is immutable: scanner API: ${action}`);

/**
 * ScannerRegistration as Harbor renders it; `extra` adds capabilities or the project-path health.
 * With `world`, as that release answers (2.14.4 on: without the credential); without, as stored.
 */
function render(
  s: ScannerRecord,
  extra: Record<string, unknown> = {},
  world?: World,
): Record<string, unknown> {
  const hidden = world?.version.has("credentialsKept") ?? false;
  return omitEmpty(
    {
      uuid: s.uuid,
      name: s.name,
      description: s.description,
      url: s.url,
      disabled: s.disabled,
      is_default: s.is_default,
      auth: s.auth,
      access_credential: hidden ? "" : s.access_credential,
      skip_certVerify: s.skip_certVerify,
      use_internal_addr: s.use_internal_addr,
      create_time: s.create_time,
      update_time: s.update_time,
      ...extra,
    },
    [
      "description",
      "disabled",
      "is_default",
      "auth",
      "access_credential",
      "skip_certVerify",
      "use_internal_addr",
      // A null map is sent as null; an absent one (before 2.12) stays absent.
      "capabilities",
    ],
  );
}

/**
 * Both flags, always: a capability without a type is a vulnerability scanner (adapters from before
 * SBOM support declare none).
 */
function capabilities(m: ScannerAdapterMetadata): { support_vulnerability: boolean; support_sbom: boolean } {
  const types = m.capabilities.map((c) => c.type || "vulnerability");
  return { support_vulnerability: types.includes("vulnerability"), support_sbom: types.includes("sbom") };
}

/**
 * GET, list and the project scanner ping each adapter to fill `capabilities` (2.12 on; before, the
 * field does not exist); a failed ping is only logged and leaves it null.
 */
function withCapabilities(world: World, s: ScannerRecord, meta = world.scanners.tryPing(s)) {
  if (!world.version.has("scannerCapabilities")) return {};
  return { capabilities: meta ? capabilities(meta) : null };
}

function renderWithCapabilities(world: World, s: ScannerRecord): Record<string, unknown> {
  return render(s, withCapabilities(world, s), world);
}

const fields: Fields<ScannerRecord> = {
  uuid: (s) => s.uuid,
  name: (s) => s.name,
  description: (s) => s.description,
  url: (s) => s.url,
  disabled: (s) => s.disabled,
  is_default: (s) => s.is_default,
  auth: (s) => s.auth,
  skip_cert_verify: (s) => s.skip_certVerify,
  use_internal_addr: (s) => s.use_internal_addr,
  immutable: (s) => s.immutable,
  create_time: (s) => s.create_time,
  update_time: (s) => s.update_time,
};

/** q plus, for listScanners, the raw `name`/`description`/`url` (fuzzy) and `ex_name`/`ex_url` (exact). */
function listScannersReply(ctx: Ctx, raw: boolean) {
  const keywords = parseQ(ctx.rawQuery.get("q") ?? undefined);
  if (raw) {
    for (const k of ["name", "description", "url"]) {
      const v = ctx.rawQuery.get(k);
      if (v) keywords.set(k, { kind: "fuzzy", value: v } satisfies QValue);
    }
    for (const k of ["ex_name", "ex_url"]) {
      const v = ctx.rawQuery.get(k);
      if (v) keywords.set(k.slice(3), { kind: "exact", value: v } satisfies QValue);
    }
  }
  // The DAO orders by is_default desc, create_time desc whatever `sort` says.
  const items = applyQ(ctx.world.scanners.all(), keywords, fields);
  return page(
    ctx,
    items.map((s) => renderWithCapabilities(ctx.world, s)),
  );
}

const ScannerReq = z
  .object({
    name: z.string(),
    url: z.string(),
    description: z.string().nullish(),
    auth: z.string().nullish(),
    access_credential: z.string().nullish(),
    skip_certVerify: z.boolean().nullish(),
    use_internal_addr: z.boolean().nullish(),
    disabled: z.boolean().nullish(),
  })
  .meta({ goType: "ScannerRegistrationReq" });
const ScannerSettings = ScannerReq.pick({ name: true, url: true, auth: true, access_credential: true });
const IsDefault = z.object({ is_default: z.boolean().nullish() }).meta({ goType: "IsDefault" });
const ProjectScanner = z.object({ uuid: z.string() }).meta({ goType: "ProjectScanner" });

function input(b: z.output<typeof ScannerReq>): ScannerInput {
  return {
    name: b.name,
    url: b.url,
    description: b.description ?? "",
    auth: b.auth ?? "",
    access_credential: b.access_credential ?? "",
    skip_certVerify: b.skip_certVerify ?? false,
    use_internal_addr: b.use_internal_addr ?? false,
    disabled: b.disabled ?? false,
  };
}

function existing(ctx: Ctx): ScannerRecord {
  const uuid = ctx.params.registration_id as string;
  const s = ctx.world.scanners.get(uuid);
  if (!s) throw notFound(`scanner ${uuid} not found`);
  return s;
}

const audit = (ctx: Ctx, name: string, operation: "create" | "update" | "delete", projectId = 0) =>
  auditWrite(ctx, { project_id: projectId, resource: name, resource_type: "scanner", operation });

const projectHeaders = { "X-Is-Resource-Name": { type: "bool" as const } };

const routes: RouteSpec[] = [
  {
    op: "listScanners",
    method: "GET",
    path: "/scanners",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "scanner", "list");
      return listScannersReply(ctx, true);
    },
  },
  {
    op: "createScanner",
    method: "POST",
    path: "/scanners",
    body: { name: "registration", schema: ScannerReq },
    handle(ctx) {
      requireSystem(ctx, "scanner", "create");
      const rec = ctx.world.scanners.create(input(ctx.body as z.output<typeof ScannerReq>));
      audit(ctx, rec.name, "create");
      return createdAt(ctx, rec.uuid);
    },
  },
  {
    op: "pingScanner",
    method: "POST",
    path: "/scanners/ping",
    body: { name: "settings", schema: ScannerSettings },
    handle(ctx) {
      requireSystem(ctx, "scanner", "read");
      const b = ctx.body as z.output<typeof ScannerSettings>;
      const r = validate(input(b));
      ctx.world.scanners.ping(r);
      return ok();
    },
  },
  {
    op: "getScanner",
    method: "GET",
    path: "/scanners/{registration_id}",
    handle(ctx) {
      requireSystem(ctx, "scanner", "read");
      return ok(renderWithCapabilities(ctx.world, existing(ctx)));
    },
  },
  {
    op: "updateScanner",
    method: "PUT",
    path: "/scanners/{registration_id}",
    body: { name: "registration", schema: ScannerReq },
    handle(ctx) {
      requireSystem(ctx, "scanner", "update");
      const rec = existing(ctx);
      const change = input(ctx.body as z.output<typeof ScannerReq>);
      // 2.14.4 on: no credential in the request keeps the stored one while the auth type needs one.
      if (ctx.world.version.has("credentialsKept") && change.auth !== "" && change.access_credential === "") {
        change.access_credential = rec.access_credential;
      }
      ctx.world.scanners.update(rec, change);
      audit(ctx, rec.name, "update");
      return ok();
    },
  },
  {
    op: "deleteScanner",
    method: "DELETE",
    path: "/scanners/{registration_id}",
    handle(ctx) {
      requireSystem(ctx, "scanner", "delete");
      const rec = existing(ctx);
      ctx.world.scanners.delete(rec);
      audit(ctx, rec.name, "delete");
      // The deleted registration comes back in the response, without its adapter's metadata.
      return ok(
        render(rec, ctx.world.version.has("scannerCapabilities") ? { capabilities: null } : {}, ctx.world),
      );
    },
  },
  {
    op: "setScannerAsDefault",
    method: "PATCH",
    path: "/scanners/{registration_id}",
    body: { name: "payload", schema: IsDefault },
    handle(ctx) {
      requireSystem(ctx, "scanner", "update");
      const b = ctx.body as z.output<typeof IsDefault>;
      // is_default false is accepted and changes nothing.
      if (b.is_default) {
        const uuid = ctx.params.registration_id as string;
        ctx.world.scanners.setDefault(uuid);
        audit(ctx, ctx.world.scanners.get(uuid)?.name ?? uuid, "update");
      }
      return ok();
    },
  },
  {
    op: "getScannerMetadata",
    method: "GET",
    path: "/scanners/{registration_id}/metadata",
    handle(ctx) {
      requireSystem(ctx, "scanner", "read");
      const uuid = ctx.params.registration_id as string;
      const rec = ctx.world.scanners.get(uuid);
      if (!rec) throw notFound(`registration ${uuid} not found`);
      return ok(ctx.world.scanners.ping(rec));
    },
  },
  {
    op: "getScannerOfProject",
    method: "GET",
    path: "/projects/{project_name_or_id}/scanner",
    headers: projectHeaders,
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "scanner", "read");
      const rec = ctx.world.scanners.forProject(project.project_id);
      // No scanner at all: 200 with an empty body.
      if (!rec) return { status: 200 };
      const meta = ctx.world.scanners.tryPing(rec);
      const extra = meta
        ? {
            health: "healthy",
            adapter: meta.scanner.name,
            vendor: meta.scanner.vendor,
            version: meta.scanner.version,
          }
        : { health: "unhealthy" };
      return ok(render(rec, { ...extra, ...withCapabilities(ctx.world, rec, meta) }, ctx.world));
    },
  },
  {
    op: "setScannerOfProject",
    method: "PUT",
    path: "/projects/{project_name_or_id}/scanner",
    headers: projectHeaders,
    body: { name: "payload", schema: ProjectScanner },
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "scanner", "create");
      const { uuid } = ctx.body as z.output<typeof ProjectScanner>;
      // go-swagger's required check rejects an empty string too.
      if (uuid === "") throw unprocessable([failureList(["payload.uuid in body is required"])]);
      // Harbor stores the reference without checking it; GET falls back when it dangles.
      ctx.world.scanners.setForProject(project.project_id, uuid);
      audit(ctx, project.name, "update", project.project_id);
      return ok();
    },
  },
  {
    op: "listScannerCandidatesOfProject",
    method: "GET",
    path: "/projects/{project_name_or_id}/scanner/candidates",
    headers: projectHeaders,
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      projectAccess(ctx, ctx.params.project_name_or_id as string, "scanner", "create");
      return listScannersReply(ctx, false);
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Every registration as stored (credentials included), rendered as 2.12 – 2.14.3 do, in Harbor's order. */
    list: () => world.scanners.all().map((s) => render(s)),
    /** Adds Harbor's built-in immutable "Trivy" registration (as the default); returns its uuid. */
    installTrivy: (): string => world.scanners.installTrivy().uuid,
    /**
     * Puts a healthy scanner adapter at `url` (a current Trivy, unless `metadata` says otherwise).
     * Without one, creating or pinging a registration of that URL fails as Harbor's does (500).
     */
    addAdapter: (url: string, metadata?: ScannerAdapterMetadata): void =>
      world.scanners.setAdapter(url, { reachable: true, ...(metadata ? { metadata } : {}) }),
    /**
     * Sets what the scanner adapter at `url` answers: its metadata (GET /api/v1/metadata) and
     * whether it is reachable (an adapter put there for the first time is, unless told otherwise).
     */
    setAdapter: (url: string, state: { reachable?: boolean; metadata?: ScannerAdapterMetadata }): void =>
      world.scanners.setAdapter(url, state),
    /** Shortcut: makes the adapter at `url` reachable or unreachable. */
    setAdapterReachable: (url: string, reachable: boolean): void =>
      world.scanners.setAdapter(url, { reachable }),
  }),
});
