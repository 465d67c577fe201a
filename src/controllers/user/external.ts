// HarborUser's ExternalClient: a local user (db_auth) by name. Choices where Harbor leaves room:
// - Users can be created only in db_auth mode; in another mode the resource is Stalled
//   (NotDatabaseAuth): users arrive by login or LDAP import there. The mode is read before each
//   create or update (not by the drift sweep, which only reads).
// - The password comes from the user's Secret (opted in with harborconfig.io/usable-as:
//   harbor-user-password) or is generated and written into a Secret owned by the resource before
//   the user is created; a Secret of that name the resource did not write is neither read for its
//   password nor overwritten (SecretConflict). Harbor never shows a password: the status records
//   the resourceVersion of the Secret it was set from, and another version (a changed Secret, a
//   deleted generated one, which gets a new password) is set again (Harbor's "identical" refusal
//   of an unchanged one counts as set).
// - managePassword false leaves the password alone (an adopted user keeps its own; the export
//   writes it so, since Harbor never shows a password): nothing is read, set or compared.
// - The profile PUT replaces email, realname and comment together; the admin flag has its own call.
// - admin (user id 1) is never managed: the name is refused at admission and again here, and a
//   delete never reaches it.
// - deletionPolicy Delete deletes the user (Harbor removes its project memberships).
//
// Harbor requests: observing costs one read (by id, or a list filtered by name); a change one read
// of /configurations and one call per part that differs; the drift sweep one list per Harbor.
import { MANAGED_BY, MANAGED_BY_LABEL, SECRET_USES, WATCH_LABEL } from "../../api/common.ts";
import type { HarborUserSpec, HarborUserStatus } from "../../api/user.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { type PersistedUser, passwordProblem } from "../../harbor/users.ts";
import {
  OWNER_ANNOTATION,
  ownerIdentity,
  SecretConflictError,
  type SecretWriter,
} from "../../kube/secrets.ts";
import { type ExternalClient, NotReady, Stalled } from "../../runtime/external-client.ts";
import { INVALID_SPEC } from "../../runtime/invalid-spec.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { SecretUses } from "../shared/secret-uses.ts";
import { requireSystemSettings } from "../shared/tenancy.ts";
import {
  diff,
  generatePassword,
  passwordChanged,
  profile,
  profileDiffers,
  status,
  type UserPassword,
} from "./mapping.ts";

/** Stalled reason: Harbor's auth mode is not db_auth, so it has no local users to manage. */
export const NOT_DATABASE_AUTH = "NotDatabaseAuth";

type Client = ExternalClient<
  HarborUserSpec,
  PersistedUser,
  HarborConnectionHandle,
  UserPassword,
  HarborUserStatus
>;

export function userExternal(deps: { secrets: SecretUses; writer: SecretWriter }): Client {
  const recorded = (resource: { status?: unknown }) =>
    (resource.status as Partial<HarborUserStatus> | undefined) ?? {};

  const fromSecret = async (namespace: string, ref: { name: string; key: string }): Promise<UserPassword> => {
    const secret = await deps.secrets.read(namespace, ref.name, SECRET_USES.harborUserPassword);
    if (!secret) throw new NotReady("SecretNotFound", `Secret ${ref.name} does not exist`);
    const password = secret.values[ref.key];
    if (!password) throw new NotReady("SecretNotFound", `Secret ${ref.name} has no value for key ${ref.key}`);
    const problem = passwordProblem(password);
    if (problem) throw new NotReady("SecretInvalid", `Secret ${ref.name} key ${ref.key}: ${problem}`);
    return { password, secretName: ref.name, version: secret.object.metadata.resourceVersion ?? "" };
  };

  /** Harbor has local users only in db_auth: read before any write (one read, only when writing). */
  const requireDbAuth = async (conn: HarborConnectionHandle, signal: AbortSignal) => {
    const config = await conn.client.system.getConfigurations({ signal });
    const mode = config.auth_mode?.value ?? "db_auth";
    if (mode !== "db_auth") {
      throw new Stalled(
        NOT_DATABASE_AUTH,
        `Harbor's auth mode is ${mode}: local users exist only in db_auth; in ${mode} users arrive by logging in (or by LDAP import)`,
      );
    }
  };

  return {
    async prepare({ conn, spec, resource, harborName }) {
      if (harborName === "admin") {
        throw new Stalled(
          INVALID_SPEC,
          "admin is Harbor's built-in administrator: it is not managed as a HarborUser",
        );
      }
      // Users are Harbor-wide: a tenant needs the system settings permission.
      requireSystemSettings(conn, "Harbor's users");
      if (resource.metadata.deletionTimestamp || !spec.managePassword) return {};
      const namespace = resource.metadata.namespace ?? "";
      if (spec.passwordSecretRef) return fromSecret(namespace, spec.passwordSecretRef);
      const name = spec.generatedSecretName ?? `${resource.metadata.name}-harbor-user`;
      const found = await deps.writer.read(namespace, name);
      // Only a Secret this resource wrote: another one's password is never taken (nor overwritten).
      if (found && found.object.metadata.annotations?.[OWNER_ANNOTATION] !== ownerIdentity(resource)) {
        throw new SecretConflictError(
          `Secret ${namespace}/${name} exists and was not written by this resource; set spec.generatedSecretName to another name, or remove that Secret`,
        );
      }
      const password = found?.values.password;
      if (password && !passwordProblem(password) && found?.values.username === harborName)
        return { password, secretName: name, version: found.object.metadata.resourceVersion ?? "" };
      // Written before the user is created or changed, so the password is never lost.
      const fresh = generatePassword();
      await deps.writer.apply(resource, {
        namespace,
        name,
        type: "Opaque",
        data: { username: harborName, password: fresh },
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [WATCH_LABEL]: "true" },
      });
      const written = await deps.writer.read(namespace, name);
      return { password: fresh, secretName: name, version: written?.object.metadata.resourceVersion ?? "" };
    },

    async observe({ conn, harborName, knownId, signal }) {
      if (knownId !== undefined) {
        try {
          return await conn.client.users.get(knownId, { signal });
        } catch (e) {
          if (!isHarborError(e, "notFound")) throw e;
        }
      }
      return conn.client.users.byName(harborName, { signal });
    },

    async create({ conn, spec, harborName, extra, signal }) {
      await requireDbAuth(conn, signal);
      const id = await conn.client.users.create(
        {
          username: harborName,
          ...profile(spec, harborName),
          password: extra.password ?? generatePassword(),
        },
        { signal },
      );
      if (spec.admin) await conn.client.users.setSysAdmin(id, true, { signal });
      return conn.client.users.get(id, { signal });
    },

    async update({ conn, spec, harborName, extra, resource, signal }, current) {
      const id = current.user_id;
      if (id === 1) throw new Stalled(INVALID_SPEC, "admin is not managed as a HarborUser");
      await requireDbAuth(conn, signal);
      if (profileDiffers(spec, harborName, current))
        await conn.client.users.updateProfile(id, profile(spec, harborName), { signal });
      if ((current.sysadmin_flag ?? false) !== spec.admin)
        await conn.client.users.setSysAdmin(id, spec.admin, { signal });
      if (extra.password && passwordChanged(resource.metadata.uid ?? "", extra, recorded(resource))) {
        try {
          await conn.client.users.setPassword(id, extra.password, { signal });
        } catch (e) {
          // Harbor refuses a password equal to the current one: it is set already.
          if (!isHarborError(e, "invalid") || !/identical/i.test(e.harborMessage ?? "")) throw e;
        }
      }
      return conn.client.users.get(id, { signal });
    },

    async delete({ conn, signal }, current) {
      if (current.user_id === 1 || current.username === "admin") return;
      try {
        await conn.client.users.delete(current.user_id, { signal });
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
      }
    },

    diff: ({ spec, harborName, resource, extra }, observed) =>
      diff(spec, harborName, observed, resource.metadata.uid ?? "", extra ?? {}, recorded(resource)),
    id: (observed) => observed.user_id,
    identifies: ({ harborName }, observed) => observed.username === harborName,
    describe: (observed) => observed.username,
    status: ({ resource, extra }, observed) => status(observed, extra ?? {}, recorded(resource)),

    async observeMany(conn, inputs) {
      if (inputs.length === 0) return new Map();
      const signal = inputs[0]?.signal ?? new AbortController().signal;
      const users = await conn.client.users.list({}, { signal });
      return new Map(users.map((u) => [u.user_id, u]));
    },

    claim: (_spec, harborName) => `user:${harborName}`,
  };
}
