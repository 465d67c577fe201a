// HarborConfiguration's ExternalClient: the system configuration settings a spec sets and the
// system CVE allowlist, one resource per Harbor. Choices where Harbor leaves room:
// - The configuration is part of every Harbor; what a resource owns is the settings it sets. It
//   "exists" when Harbor holds one of them at other than Harbor's default: a first reconcile that
//   finds none so applies the spec (Create); one that finds some refuses under creationPolicy
//   Create (AlreadyExists, naming them) and takes them over under Adopt or CreateOrAdopt.
// - No id (status.harborId is 0) and the constant claim "configuration": a second resource for the
//   same Harbor gets Conflict.
// - Only settings that differ are sent, in one PUT. A differing setting Harbor reports as not
//   editable (the configuration fixed by the environment; the auth mode once users other than
//   admin exist) is Stalled with Harbor's reason before anything is sent.
// - Secret-held settings (the LDAP bind password, the OIDC client secret) are never shown by
//   Harbor: they are sent when the Secret's value is new to the resource (a hash in status says
//   which value was written), not reverted when changed in Harbor.
// - deletionPolicy Delete puts the system settings the spec sets back to Harbor's defaults and
//   empties the system CVE allowlist when the spec sets it; authentication settings stay as they
//   are (resetting them could lock every user out). Orphan leaves everything.
//
// Harbor requests: observing costs two reads (configurations, allowlist); a change at most one PUT
// of each and the two reads again; the drift sweep two reads per Harbor and interval.
import { SECRET_USES } from "../../api/common.ts";
import type { HarborConfigurationSpec, HarborConfigurationStatus } from "../../api/configuration.ts";
import type { HarborClient } from "../../harbor/client.ts";
import { type ExternalClient, NotReady, Stalled } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { SecretUses } from "../shared/secret-uses.ts";
import { requireSystemSettings } from "../shared/tenancy.ts";
import {
  allowlistDiffers,
  type ConfigurationSecrets,
  changedSecrets,
  changedSettings,
  describe,
  diff,
  expirySeconds,
  heldSettings,
  notEditable,
  type ObservedConfiguration,
  resetChange,
  type SecretSetting,
  status,
} from "./mapping.ts";

/** Stalled reason: a setting the spec changes is fixed in Harbor (editable: false). */
export const SETTING_NOT_EDITABLE = "SettingNotEditable";
/** Stalled reason: Harbor refuses to change the auth mode (users other than admin exist). */
export const AUTH_MODE_NOT_EDITABLE = "AuthModeNotEditable";

type Client = ExternalClient<
  HarborConfigurationSpec,
  ObservedConfiguration,
  HarborConnectionHandle,
  ConfigurationSecrets,
  HarborConfigurationStatus
>;

const SETTING_ID = 0;

export function configurationExternal(deps: { secrets: SecretUses }): Client {
  const observeAll = async (client: HarborClient, signal: AbortSignal): Promise<ObservedConfiguration> => {
    const [config, allowlist] = await Promise.all([
      client.system.getConfigurations({ signal }),
      client.system.getCveAllowlist({ signal }),
    ]);
    return { config, allowlist };
  };

  const secretValue = async (
    namespace: string,
    ref: { name: string; key: string },
    use: (typeof SECRET_USES)[keyof typeof SECRET_USES],
  ): Promise<SecretSetting> => {
    const secret = await deps.secrets.read(namespace, ref.name, use);
    if (!secret) throw new NotReady("SecretNotFound", `Secret ${ref.name} does not exist`);
    const value = secret.values[ref.key];
    if (!value) throw new NotReady("SecretNotFound", `Secret ${ref.name} has no value for key ${ref.key}`);
    return { value, version: secret.object.metadata.resourceVersion ?? "" };
  };

  const apply = async (
    input: Parameters<Client["update"]>[0],
    observed: ObservedConfiguration,
  ): Promise<ObservedConfiguration> => {
    const { conn, spec, extra, resource, signal } = input;
    const changed = changedSettings(spec, observed);
    const fixed = notEditable(changed, observed);
    const mode = fixed.find((s) => s.key === "auth_mode");
    if (mode) {
      throw new Stalled(
        AUTH_MODE_NOT_EDITABLE,
        `auth.mode: Harbor keeps the auth mode ${observed.config.auth_mode?.value ?? ""}: the auth mode cannot be modified as new users have been inserted into database (only while no user but admin exists)`,
      );
    }
    if (fixed.length) {
      throw new Stalled(
        SETTING_NOT_EDITABLE,
        `${fixed.map((s) => s.field).join(", ")}: Harbor reports ${fixed.length > 1 ? "these settings" : "this setting"} as not editable (its configuration is fixed by its environment, CONFIG_OVERWRITE_JSON)`,
      );
    }
    const uid = resource.metadata.uid ?? "";
    const body: Record<string, string | number | boolean> = Object.fromEntries(
      changed.map((s) => [s.key, s.value]),
    );
    for (const s of changedSecrets(
      uid,
      extra,
      resource.status?.writtenSecrets as Record<string, string> | undefined,
    ))
      body[s.key] = s.value;
    if (Object.keys(body).length) await conn.client.system.updateConfigurations(body, { signal });
    const want = spec.cveAllowlist;
    if (want && allowlistDiffers(spec, observed)) {
      const expiresAt = expirySeconds(want.expiresAt);
      await conn.client.system.putCveAllowlist(
        { items: [...new Set(want.items)], ...(expiresAt === undefined ? {} : { expiresAt }) },
        { signal },
      );
    }
    return observeAll(conn.client, signal);
  };

  const referenced = (spec: HarborConfigurationSpec) =>
    new Set([
      ...(spec.auth?.ldap?.bindPasswordSecretRef ? ["ldapBindPassword"] : []),
      ...(spec.auth?.oidc?.clientSecretSecretRef ? ["oidcClientSecret"] : []),
    ]);

  return {
    async prepare({ conn, spec, resource }) {
      requireSystemSettings(conn, "the system configuration");
      if (resource.metadata.deletionTimestamp) return {};
      const namespace = resource.metadata.namespace ?? "";
      const out: ConfigurationSecrets = {};
      const ldap = spec.auth?.ldap?.bindPasswordSecretRef;
      if (ldap) out.ldapBindPassword = await secretValue(namespace, ldap, SECRET_USES.ldapBindPassword);
      const oidc = spec.auth?.oidc?.clientSecretSecretRef;
      if (oidc) out.oidcClientSecret = await secretValue(namespace, oidc, SECRET_USES.oidcClientSecret);
      return out;
    },

    async observe({ conn, spec, knownId, signal }) {
      const observed = await observeAll(conn.client, signal);
      if (knownId === undefined && heldSettings(spec, observed).length === 0) return undefined;
      return observed;
    },

    async create(input) {
      return apply(input, await observeAll(input.conn.client, input.signal));
    },

    async update(input, current) {
      return apply(input, current);
    },

    async delete({ conn, spec, signal }) {
      const reset = resetChange(spec);
      if (Object.keys(reset).length) await conn.client.system.updateConfigurations(reset, { signal });
      if (spec.cveAllowlist) await conn.client.system.putCveAllowlist({ items: [] }, { signal });
    },

    diff: ({ spec, resource, extra }, observed) =>
      diff(
        spec,
        observed,
        resource.metadata.uid ?? "",
        extra,
        resource.status?.writtenSecrets as Record<string, string> | undefined,
      ),
    id: () => SETTING_ID,
    describe,
    status: ({ spec, resource, extra }, observed) =>
      status(
        observed,
        extra ?? {},
        resource.status?.writtenSecrets as Record<string, string> | undefined,
        referenced(spec),
      ),

    async observeMany(conn, inputs) {
      if (inputs.length === 0) return new Map();
      const signal = inputs[0]?.signal ?? new AbortController().signal;
      return new Map([[SETTING_ID, await observeAll(conn.client, signal)]]);
    },

    claim: () => "configuration",
  };
}
