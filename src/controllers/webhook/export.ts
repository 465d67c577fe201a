// HarborWebhookPolicy's exporter (see shared/export.ts): one policy list per project (Harbor has no
// list across projects). Auth headers become Secret stubs; comparing a folder with Harbor checks
// that a header is there where the spec has one, and its value only when the folder's Secret holds one.
import type { HarborWebhookPolicySpec } from "../../api/webhook.ts";
import type { PersistedWebhookPolicy } from "../../harbor/webhooks.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, specFromPolicy } from "./mapping.ts";

export const webhookExporter: KindExporter<HarborWebhookPolicySpec> = {
  async read(ctx) {
    const projects = (await ctx.projects()).filter((p) => ctx.includes(p.name ?? ""));
    let done = 0;
    const lists = await ctx.each(projects, async (p) => {
      const policies = await ctx.harbor.webhooks.listPolicies(p.project_id, undefined, {
        signal: ctx.signal,
      });
      ctx.progress("webhook policies", ++done, projects.length);
      return policies.map((policy) => view(policy, { id: p.project_id, name: p.name ?? "" }));
    });
    return lists.flat();
  },
  keyOf(spec, harborName, refs) {
    const project = refs.resolve("HarborProject", spec.projectRef.name);
    return project ? `${project.harborName}/${harborName}` : undefined;
  },
  secretField: (field) => /\.authHeader$/.test(field),
};

function view(
  policy: PersistedWebhookPolicy,
  project: { id: number; name: string },
): HarborObjectView<HarborWebhookPolicySpec> {
  const name = policy.name ?? "";
  return {
    identity: {
      id: policy.id,
      key: `${project.name}/${name}`,
      harborName: name,
      suggestedName: `${project.name}.${name}`,
      projects: [project.name],
    },
    spec: (names) => specFromPolicy(policy, names.nameOf("HarborProject", project.id), names.self),
    diff(spec, harborName, refs) {
      // What the operator would send: the folder's value when it holds one, else whether Harbor has one.
      const authHeaders = spec.targets.map((t, i) => {
        if (!t.authHeaderSecretRef) return "";
        const folder = refs.secret(t.authHeaderSecretRef.name)?.[t.authHeaderSecretRef.key]?.trim();
        return folder || policy.targets?.[i]?.auth_header || "(a header from a Secret)";
      });
      return diff(spec, harborName, { authHeaders }, policy);
    },
  };
}
