// HarborRobot: a robot account and the Kubernetes Secret(s) that deliver its credentials.
import { z } from "zod";
import { AccessEffect, RobotLevel } from "../harbor/model/enums.ts";
import {
  celFormat,
  celString,
  freeText,
  HARBOR_NAME_DESCRIPTION,
  HARBOR_NAME_PATTERN,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  k8sName,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  optionalImmutable,
} from "./common.ts";

/**
 * Harbor's rule for the name the spec gives a robot. A project robot is stored as
 * "<project>+<name>" in a column of 255 characters, which the operator checks once it knows the
 * project.
 */
export const ROBOT_NAME: HarborNameRule = {
  what: "robot",
  pattern: HARBOR_NAME_PATTERN,
  maxLength: 255,
  description: HARBOR_NAME_DESCRIPTION,
};

/**
 * The (resource, action) pairs Harbor 2.12 accepts in robot permissions, per scope (its policy map
 * plus the robot, member, user and SBOM permissions added in 2.12).
 * The CRD checks permissions against these lists, so a typo fails at `kubectl apply`.
 */
export const ROBOT_PERMISSIONS: Record<"system" | "project", Record<string, readonly string[]>> = {
  system: {
    "audit-log": ["list"],
    "preheat-instance": ["read", "create", "delete", "list", "update"],
    project: ["list", "create"],
    "replication-policy": ["read", "create", "delete", "list", "update"],
    replication: ["read", "create", "list"],
    "replication-adapter": ["list"],
    registry: ["read", "create", "delete", "list", "update"],
    "scan-all": ["read", "update", "stop", "create"],
    "system-volumes": ["read"],
    "garbage-collection": ["read", "create", "list", "update", "stop"],
    "purge-audit": ["read", "create", "list", "update", "stop"],
    "jobservice-monitor": ["list", "stop"],
    scanner: ["read", "create", "delete", "list", "update"],
    label: ["read", "create", "delete", "update"],
    "security-hub": ["read", "list"],
    catalog: ["read"],
    quota: ["read", "list", "update"],
    robot: ["create", "read", "delete", "list"],
    user: ["create", "read", "update", "delete", "list"],
    "user-group": ["create", "read", "update", "delete", "list"],
    "ldap-user": ["create", "list"],
    "export-cve": ["create", "read"],
  },
  project: {
    log: ["list"],
    project: ["read", "delete", "update"],
    metadata: ["read", "create", "delete", "list", "update"],
    repository: ["read", "update", "delete", "list", "pull", "push"],
    artifact: ["read", "create", "list", "delete"],
    scan: ["create", "read", "stop"],
    sbom: ["create", "read", "stop"],
    tag: ["create", "list", "delete"],
    accessory: ["list"],
    "artifact-addition": ["read"],
    "artifact-label": ["create", "delete"],
    scanner: ["create", "read"],
    "preheat-policy": ["read", "create", "delete", "list", "update"],
    "immutable-tag": ["create", "delete", "list", "update"],
    "notification-policy": ["read", "create", "delete", "list", "update"],
    "tag-retention": ["read", "create", "delete", "list", "update"],
    label: ["read", "create", "delete", "list", "update"],
    quota: ["read"],
    robot: ["create", "read", "delete", "list"],
    member: ["create", "read", "update", "delete", "list"],
  },
};

/** The scope's allowed pairs as a CEL map literal: resource → its actions. */
function celPairs(scope: "system" | "project"): string {
  const entries = Object.entries(ROBOT_PERMISSIONS[scope]).map(
    ([r, actions]) => `'${r}': [${actions.map((a) => `'${a}'`).join(", ")}]`,
  );
  return `{${entries.join(", ")}}`;
}

/** The same as words for messages: resource → "repository allows read, update, …". */
function celPairsText(scope: "system" | "project"): string {
  const entries = Object.entries(ROBOT_PERMISSIONS[scope]).map(
    ([r, actions]) => `'${r}': ${celString(`${r} allows ${actions.join(", ")}`)}`,
  );
  return `{${entries.join(", ")}}`;
}

/**
 * A scope's rule on a permission's access list, with a message that names the first pair Harbor
 * does not allow and what it allows instead (a typo such as "pul" shows the actions of its
 * resource). CEL's cost estimate allows no join of a list in a message (nor cel.bind): one pair is named.
 */
function pairRule(scope: "system" | "project") {
  const m = celPairs(scope);
  const bad = `self.access.filter(a, !(a.resource in ${m} && a.action in ${m}[a.resource]))`;
  const resources = Object.keys(ROBOT_PERMISSIONS[scope]).join(", ");
  return {
    rule: `self.kind != '${scope}' || self.access.all(a, a.resource in ${m} && a.action in ${m}[a.resource])`,
    message: `a ${scope} permission names a resource/action pair Harbor does not allow for robots`,
    messageExpression: celFormat(
      `"%s:%s" is not a resource/action pair Harbor 2.12 allows in a ${scope} permission of a robot: %s%s`,
      `${bad}[0].resource`,
      `${bad}[0].action`,
      `${bad}[0].resource in ${celPairsText(scope)} ? ${celPairsText(scope)}[${bad}[0].resource] : ${celString(`there is no ${scope} resource of that name (there are ${resources})`)}`,
      `size(${bad}) > 1 ? ${celFormat("; %d more pair(s) of this permission are not allowed either", `size(${bad}) - 1`)} : ''`,
    ),
    fieldPath: ".access",
  };
}

const Access = z.object({
  resource: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z-]+$/)
    .describe("e.g. repository, artifact, tag, scan."),
  action: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[a-z-]+$/)
    .describe("e.g. pull, push, read, list, create."),
  effect: AccessEffect.default("allow").describe(
    "allow (the default) grants the action; deny withholds it even where another entry allows it.",
  ),
});

const Permission = z
  .object({
    kind: RobotLevel.default("project").describe(
      "project: the access applies in the project(s) named by namespace. system: system-wide access (system-level robots only).",
    ),
    namespace: z
      .string()
      .min(1)
      .max(255)
      .regex(/^(\*|\/|[a-z0-9]+(?:[._-][a-z0-9]+)*)$/)
      .optional()
      .describe(
        'For kind project: a project name or "*" (all projects); omit for project-level robots, whose permission is always on their own project. For kind system: "/" (the default).',
      ),
    access: z
      .array(Access)
      .min(1)
      .max(64)
      .describe(
        "What the robot may do: resource/action pairs Harbor 2.12 allows for this kind (checked at apply).",
      ),
  })
  .meta({
    "x-kubernetes-validations": [
      pairRule("system"),
      pairRule("project"),
      {
        rule: "self.kind != 'system' || !has(self.namespace) || self.namespace == '/'",
        message: 'the namespace of a system permission is "/"',
        messageExpression: celFormat(
          'the namespace of a system permission is "/", not "%s"',
          "self.namespace",
        ),
        fieldPath: ".namespace",
      },
    ],
  });

const LabelSelector = z.object({
  matchLabels: z
    .record(z.string(), z.string())
    .optional()
    .describe("Labels a namespace must have, each with exactly this value."),
  matchExpressions: z
    .array(
      z
        .object({
          key: z.string().min(1).max(317).describe("The label key the requirement is about."),
          operator: z
            .enum(["In", "NotIn", "Exists", "DoesNotExist"])
            .describe(
              "In / NotIn: the label's value is / is not one of values. Exists / DoesNotExist: the key is / is not set.",
            ),
          values: z
            .array(z.string().max(63))
            .max(64)
            .optional()
            .describe("The values for In and NotIn (at least one); none for Exists and DoesNotExist."),
        })
        .meta({
          "x-kubernetes-validations": [
            {
              rule: "(self.operator in ['In', 'NotIn']) == (has(self.values) && size(self.values) > 0)",
              message: "In and NotIn need values; Exists and DoesNotExist take none",
              messageExpression: celFormat(
                "In and NotIn need values; Exists and DoesNotExist take none, and the operator is %s",
                "self.operator",
              ),
              fieldPath: ".values",
            },
          ],
        }),
    )
    .max(16)
    .optional()
    .describe("Label requirements a namespace must meet, all of them."),
});
export type LabelSelector = z.output<typeof LabelSelector>;

export const HarborRobotSpec = z.object({
  ...managedSpec,
  name: immutableName(ROBOT_NAME).optional(),
  level: RobotLevel.default("project").describe("A project robot or a system robot. Immutable."),
  projectRef: LocalObjectReference.optional().describe(
    "The HarborProject of a project-level robot. Immutable.",
  ),
  description: freeText().optional().describe("Shown in Harbor's robot list. Unset: left as Harbor has it."),
  durationDays: z
    .number()
    .int()
    .min(-1)
    .max(36500)
    .default(30)
    .meta({
      "x-kubernetes-validations": [
        { rule: "self == -1 || self >= 1", message: "durationDays is -1 (never expires) or at least 1" },
      ],
    })
    .describe(
      "How long the robot's credential lives, in days; -1 never expires. A change applies at once: the expiry moves to this many days from the change. Each rotation renews it to this many days from the rotation (Harbor counts whole days from the robot's creation, so up to a day more).",
    ),
  disabled: z
    .boolean()
    .default(false)
    .describe("A disabled robot cannot log in; its Secret stays. Default false."),
  permissions: z
    .array(Permission)
    .min(1)
    .max(32)
    .describe(
      'What the robot may do. A project-level robot has exactly one permission, of kind project, without namespace (its own project). A system-level robot may have several: kind system, or kind project with a project name or "*" as namespace.',
    ),
  secret: z
    .object({
      deliver: z
        .boolean()
        .default(true)
        .describe(
          "false: the operator manages the robot in Harbor (description, disabled, permissions, expiry) but never issues it a secret and writes no Secret, so whoever holds the robot's current secret keeps using it; a Secret delivered earlier is removed, and rotation and copies are not allowed. This adopts an existing robot without replacing its secret (what `kubectl harbor export` writes). Turned to true, the operator issues a new secret at once (the previous one stops working) and delivers it. Default true.",
        ),
      name: k8sName.optional().describe("The Secret to write. Defaults to metadata.name."),
      type: z
        .enum(["kubernetes.io/dockerconfigjson", "Opaque"])
        .default("kubernetes.io/dockerconfigjson")
        .describe(
          "dockerconfigjson (an image pull secret) or Opaque; both also carry username and password keys.",
        ),
      extraRegistryHosts: z
        .array(
          z
            .string()
            .max(253)
            .regex(/^[a-zA-Z0-9.-]+(:\d+)?$/),
        )
        .max(16)
        .default([])
        .describe("More registry hosts to put in the pull secret besides the connection's."),
      copies: z
        .object({
          namespaceSelector: LabelSelector.describe(
            "Namespaces that get a copy of the Secret (matchLabels and matchExpressions, all must hold; an empty selector matches every namespace), among those that accept copies from this namespace: the Namespace's annotation harborconfig.io/accept-pull-secrets-from lists this namespace or \"*\" (others are named in status.copiesRefused and nothing is written there). The robot's own namespace already holds the Secret.",
          ),
          serviceAccounts: z
            .array(k8sName)
            .max(16)
            .default([])
            .describe("ServiceAccounts in those namespaces whose imagePullSecrets list the copy."),
        })
        .optional()
        .describe(
          "Copies of the Secret in other namespaces, kept equal to it and removed with the robot or when a namespace stops matching. An existing Secret of that name that the operator did not write is never overwritten.",
        ),
    })
    .default({ deliver: true, type: "kubernetes.io/dockerconfigjson", extraRegistryHosts: [] })
    .describe(
      "The Kubernetes Secret that delivers the robot's credentials (keys username and password, plus .dockerconfigjson for the pull-secret type), owned by this resource.",
    ),
  rotation: z
    .object({
      intervalDays: z
        .number()
        .int()
        .min(1)
        .max(36500)
        .optional()
        .describe("Issue a new secret (and renew the expiry) this many days after the last one."),
      beforeExpiryDays: z
        .number()
        .int()
        .min(0)
        .max(36500)
        .optional()
        .describe(
          "Issue a new secret and renew the expiry this many days before the robot expires. Default: 7, or half of durationDays when that is shorter. Must be smaller than durationDays.",
        ),
    })
    .default({})
    .describe(
      "When the operator issues a new secret on its own. A rotation refreshes the secret in place (same robot, same id) and renews the expiry; the old secret stops working at once.",
    ),
});
export type HarborRobotSpec = z.output<typeof HarborRobotSpec>;

/** How many copy failures status lists at most (Ready's message counts them all). */
export const MAX_COPY_FAILURES = 20;

export const HarborRobotStatus = z.object({
  ...managedStatus,
  fullName: z
    .string()
    .optional()
    .describe("The name Harbor gives the robot, with its prefix; the pull username."),
  expiresAt: z.string().optional().describe('When the robot expires (RFC 3339), or "never".'),
  durationDays: z
    .number()
    .int()
    .optional()
    .describe("The durationDays the expiry was last set for; another value in the spec is applied next."),
  lastRotation: z
    .string()
    .optional()
    .describe(
      "When the secret was last issued (RFC 3339): at creation, rotation, or when a lost Secret was restored.",
    ),
  nextRotation: z
    .string()
    .optional()
    .describe(
      "When the operator issues the next secret (RFC 3339), by rotation.beforeExpiryDays or intervalDays; absent when no rotation is due ever.",
    ),
  secretName: z.string().optional().describe("The Secret in this namespace that holds the credentials."),
  copiedTo: z.array(z.string()).optional().describe("Namespaces holding a copy of the Secret."),
  copiesRefused: z
    .array(z.string())
    .max(MAX_COPY_FAILURES)
    .optional()
    .describe(
      "Namespaces selected by copies.namespaceSelector that do not accept pull secrets from this namespace (annotation harborconfig.io/accept-pull-secrets-from on the Namespace): nothing is written there (the first 20 by name; a Warning Event CopyRefused names them when they change). Ready is not affected.",
    ),
  copiesWithoutConsent: z
    .array(z.string())
    .max(MAX_COPY_FAILURES)
    .optional()
    .describe(
      "Namespaces holding a copy although they do not accept pull secrets from this namespace (copies made before namespaces had to accept them): kept current so that image pulls there go on working while the operator runs with --copies-without-consent=keep (its default), removed with remove. Annotate the Namespace to keep the copy for good. The first 20 by name; a Warning Event CopyWithoutConsent names them when they change.",
    ),
  copyFailures: z
    .array(
      z.object({
        namespace: z.string().describe("The namespace the copy was for."),
        reason: z
          .enum(["SecretConflict", "Forbidden"])
          .describe(
            "SecretConflict: a Secret of that name exists there and belongs to someone else (it is left alone). Forbidden: the apiserver refused the write (RBAC, an admission policy, a namespace being deleted).",
          ),
        message: z.string().describe("What the apiserver or the owner check said."),
      }),
    )
    .max(MAX_COPY_FAILURES)
    .optional()
    .describe(
      "Namespaces selected by copies.namespaceSelector where the Secret or a ServiceAccount entry could not be written (the first 20 by name; Ready's message counts them all). While any remain, Ready is False with reason SecretCopyFailed (and Stalled past --dependency-timeout); absent once every copy is delivered.",
    ),
});
export type HarborRobotStatus = z.output<typeof HarborRobotStatus>;

export const harborRobot: KindDefinition<HarborRobotSpec, HarborRobotStatus> = {
  kind: "HarborRobot",
  plural: "harborrobots",
  singular: "harborrobot",
  shortNames: ["hrobot"],
  scope: "Namespaced",
  spec: HarborRobotSpec,
  status: HarborRobotStatus,
  harborName: ROBOT_NAME,
  specValidations: [
    optionalImmutable("name", ""),
    optionalImmutable("projectRef", ".name"),
    {
      rule: "self.level == oldSelf.level",
      message: "level is immutable",
      messageExpression: celFormat("level is immutable: it stays %s", "oldSelf.level"),
      fieldPath: ".level",
    },
    {
      rule: "self.level != 'project' || has(self.projectRef)",
      message: "a project-level robot needs projectRef",
      fieldPath: ".projectRef",
      reason: "FieldValueRequired",
    },
    {
      rule: "self.level != 'system' || !has(self.projectRef)",
      message: "a system-level robot has no projectRef",
      fieldPath: ".projectRef",
      reason: "FieldValueForbidden",
    },
    {
      rule: "self.level != 'project' || (size(self.permissions) == 1 && self.permissions[0].kind == 'project' && !has(self.permissions[0].namespace))",
      message: "a project-level robot has exactly one permission, of kind project, without namespace",
      messageExpression: celFormat(
        "a project-level robot has exactly one permission, of kind project, without namespace (its own project); this one has %d, the first of kind %s%s",
        "size(self.permissions)",
        "self.permissions[0].kind",
        `has(self.permissions[0].namespace) ? ${celFormat(' with namespace "%s"', "self.permissions[0].namespace")} : ''`,
      ),
      fieldPath: ".permissions",
    },
    {
      rule: "self.level != 'system' || self.permissions.all(p, p.kind != 'project' || has(p.namespace))",
      message: 'a project permission of a system-level robot needs a namespace: a project name or "*"',
      fieldPath: ".permissions",
      reason: "FieldValueRequired",
    },
    {
      rule: "!has(self.secret) || !has(self.secret.deliver) || self.secret.deliver || !has(self.secret.copies)",
      message:
        "secret.copies needs secret.deliver: true (a robot whose secret is not delivered has nothing to copy)",
      fieldPath: ".secret.copies",
      reason: "FieldValueForbidden",
    },
    {
      rule: "!has(self.secret) || !has(self.secret.deliver) || self.secret.deliver || !has(self.rotation) || (!has(self.rotation.intervalDays) && !has(self.rotation.beforeExpiryDays))",
      message:
        "rotation needs secret.deliver: true (the operator issues new secrets only when it delivers them)",
      fieldPath: ".rotation",
      reason: "FieldValueForbidden",
    },
    {
      rule: "self.durationDays == -1 || !has(self.rotation) || !has(self.rotation.beforeExpiryDays) || self.rotation.beforeExpiryDays < self.durationDays",
      message:
        "rotation.beforeExpiryDays must be smaller than durationDays, or every renewed robot would be due for rotation again at once",
      messageExpression: celFormat(
        "rotation.beforeExpiryDays (%d) must be smaller than durationDays (%d), or every renewed robot would be due for rotation again at once",
        "self.rotation.beforeExpiryDays",
        "self.durationDays",
      ),
      fieldPath: ".rotation.beforeExpiryDays",
    },
  ],
  columns: [
    { name: "Robot", type: "string", jsonPath: ".status.fullName" },
    { name: "Expires", type: "string", jsonPath: ".status.expiresAt", priority: 1 },
    { name: "Secret", type: "string", jsonPath: ".status.secretName", priority: 1 },
  ],
  description:
    "A Harbor robot account whose credentials the operator delivers as a Kubernetes Secret (an image pull secret by default), rotates before expiry, and copies to chosen namespaces.",
};
