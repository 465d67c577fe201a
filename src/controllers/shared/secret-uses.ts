// Secrets whose value the operator sends to a place the resource names — a webhook target's auth
// header, a remote registry's credential, later a scanner's. Without a check, anyone who may create
// such a resource could have Harbor send any Secret of the namespace, the connection's admin login
// included, to an address of their choosing. So a Secret is used that way only when its annotation
// harborconfig.io/usable-as names the use, and a connection's credentials Secret never is. A refusal
// is a wait (Ready=False, SecretNotAllowed), not Stalled: annotating the Secret fixes it, and the
// resource then turns Ready by itself. Messages name the Secret and the use, never a value.
import { SECRET_USES, type SecretUse, USABLE_AS_ANNOTATION } from "../../api/common.ts";
import type { SecretWriter } from "../../kube/secrets.ts";
import { NotReady } from "../../runtime/external-client.ts";

export const SECRET_NOT_ALLOWED = "SecretNotAllowed";

const KNOWN: readonly string[] = Object.values(SECRET_USES);

const PHRASE: Record<SecretUse, string> = {
  "webhook-auth-header": "a webhook auth header",
  "registry-credential": "a registry credential",
  "scanner-credential": "a scanner credential",
  "ldap-bind-password": "an LDAP bind password",
  "oidc-client-secret": "an OIDC client secret",
  "harbor-user-password": "a Harbor user's password",
  "preheat-credential": "a preheat provider credential",
  "harbor-connection": "a Harbor connection's credentials",
};

/** The known uses the annotation names, in its order (spaces around commas allowed). */
export function allowedUses(annotations: Record<string, string> | undefined): SecretUse[] {
  const value = annotations?.[USABLE_AS_ANNOTATION] ?? "";
  return [
    ...new Set(
      value
        .split(",")
        .map((s) => s.trim())
        .filter((s): s is SecretUse => KNOWN.includes(s)),
    ),
  ];
}

/** What the decision looks at; never the Secret's values. */
export interface SecretFacts {
  name: string;
  /** Given when the Secret is not in the resource's own namespace: the command then names it. */
  namespace?: string | undefined;
  /** It is the credentials Secret of a HarborConnection or a ClusterHarborConnection. */
  connectionCredentials: boolean;
  annotations?: Record<string, string> | undefined;
}

/** Why the Secret may not be used for `use` (a condition message), or undefined when it may. */
export function refusal(facts: SecretFacts, use: SecretUse): string | undefined {
  const as = PHRASE[use];
  if (facts.connectionCredentials) {
    return `Secret ${facts.name} holds the credentials of a Harbor connection, and a connection's credentials can never be used as ${as}. Put the value in a Secret of its own and annotate that one ${USABLE_AS_ANNOTATION}=${use}`;
  }
  const uses = allowedUses(facts.annotations);
  if (uses.includes(use)) return undefined;
  const annotated = facts.annotations?.[USABLE_AS_ANNOTATION] !== undefined;
  const why = annotated
    ? `its ${USABLE_AS_ANNOTATION} annotation does not name ${use}`
    : `it does not opt in with the ${USABLE_AS_ANNOTATION} annotation`;
  const where = facts.namespace ? ` -n ${facts.namespace}` : "";
  const command = `kubectl annotate${where} ${annotated ? "--overwrite " : ""}secret ${facts.name} ${USABLE_AS_ANNOTATION}=${[...uses, use].join(",")}`;
  const named = facts.namespace ? `${facts.namespace}/${facts.name}` : facts.name;
  return `Secret ${named} is not allowed as ${as}: ${why}. To allow it: ${command}`;
}

type ReadSecret = NonNullable<Awaited<ReturnType<SecretWriter["read"]>>>;

/** The only way kinds read a Secret whose value they send to a place the resource names. */
export interface SecretUses {
  /**
   * The Secret's values for this use, or undefined when it does not exist. Throws NotReady with
   * reason SecretNotAllowed when the Secret may not be used so (a connection's Secret unread).
   */
  read(namespace: string, name: string, use: SecretUse): Promise<ReadSecret | undefined>;
}

export interface SecretUsesDeps {
  secrets: Pick<SecretWriter, "read">;
  /** From the connection informers' caches: no API call. */
  connections: { isCredentialsSecret(namespace: string, name: string): boolean };
}

export function secretUses(deps: SecretUsesDeps): SecretUses {
  const check = (facts: SecretFacts, use: SecretUse) => {
    const refused = refusal(facts, use);
    if (refused) throw new NotReady(SECRET_NOT_ALLOWED, refused);
  };
  return {
    async read(namespace, name, use) {
      const connectionCredentials = () => deps.connections.isCredentialsSecret(namespace, name);
      if (connectionCredentials()) check({ name, connectionCredentials: true }, use);
      const secret = await deps.secrets.read(namespace, name);
      if (!secret) return undefined;
      // Asked again: a connection may have been pointed at this Secret while it was read.
      check(
        {
          name,
          connectionCredentials: connectionCredentials(),
          annotations: secret.object.metadata.annotations,
        },
        use,
      );
      return secret;
    },
  };
}
