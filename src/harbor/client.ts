// HarborClient: one typed method per Harbor operation, grouped by API area. It owns nothing but a
// transport; the transport shares connection pool, rate limiter and concurrency cap per base URL.

import { PurgeApi } from "./audit-log-purge.ts";
import { AuditLogsApi } from "./audit-logs.ts";
import { GcApi } from "./garbage-collection.ts";
import { ImmutableApi } from "./immutable-tag-rule.ts";
import { JobServiceApi } from "./job-service.ts";
import { LabelsApi } from "./labels.ts";
import { LdapApi } from "./ldap.ts";
import { MembersApi } from "./members.ts";
import { PreheatApi } from "./preheat.ts";
import { ProjectsApi } from "./projects.ts";
import { QuotasApi } from "./quotas.ts";
import { RegistriesApi } from "./registries.ts";
import { ReplicationApi } from "./replication.ts";
import { RetentionApi } from "./retention.ts";
import { RobotsApi, RobotsV1Api } from "./robots.ts";
import { ScanAllApi } from "./scan-all.ts";
import { ScannersApi } from "./scanners.ts";
import { SystemApi } from "./system.ts";
import { HarborTransport, type TransportOptions } from "./transport.ts";
import { UserGroupsApi } from "./user-group.ts";
import { UsersApi } from "./users.ts";
import { WebhooksApi } from "./webhooks.ts";

export type HarborClientOptions = TransportOptions;

export class HarborClient {
  readonly transport: HarborTransport;
  readonly labels: LabelsApi;
  readonly projects: ProjectsApi;
  readonly members: MembersApi;
  readonly quotas: QuotasApi;
  readonly robots: RobotsApi;
  readonly robotsV1: RobotsV1Api;
  readonly scanners: ScannersApi;
  readonly registries: RegistriesApi;
  readonly replication: ReplicationApi;
  readonly jobService: JobServiceApi;
  readonly ldap: LdapApi;
  readonly userGroups: UserGroupsApi;
  readonly users: UsersApi;
  readonly gc: GcApi;
  readonly purge: PurgeApi;
  readonly auditLogs: AuditLogsApi;
  readonly webhooks: WebhooksApi;
  readonly system: SystemApi;
  readonly retention: RetentionApi;
  readonly immutable: ImmutableApi;
  readonly scanAll: ScanAllApi;
  readonly preheat: PreheatApi;

  constructor(options: HarborClientOptions) {
    const t = new HarborTransport(options);
    this.transport = t;
    this.labels = new LabelsApi(t);
    this.projects = new ProjectsApi(t);
    this.members = new MembersApi(t);
    this.quotas = new QuotasApi(t);
    this.robots = new RobotsApi(t);
    this.robotsV1 = new RobotsV1Api(t);
    this.scanners = new ScannersApi(t);
    this.registries = new RegistriesApi(t);
    this.replication = new ReplicationApi(t);
    this.jobService = new JobServiceApi(t);
    this.ldap = new LdapApi(t);
    this.userGroups = new UserGroupsApi(t);
    this.users = new UsersApi(t);
    this.gc = new GcApi(t);
    this.purge = new PurgeApi(t);
    this.auditLogs = new AuditLogsApi(t);
    this.webhooks = new WebhooksApi(t);
    this.system = new SystemApi(t);
    this.retention = new RetentionApi(t);
    this.immutable = new ImmutableApi(t);
    this.scanAll = new ScanAllApi(t);
    this.preheat = new PreheatApi(t);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
