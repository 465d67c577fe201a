// HarborUserGroup's exporter (see shared/export.ts): every user group in one list. A group is keyed
// by its identity (an LDAP group's DN, an HTTP or OIDC group's type and name), as the operator
// finds it in Harbor.
import type { HarborUserGroupSpec } from "../../api/user-group.ts";
import type { UserGroup } from "../../harbor/user-group.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, identityKey, identityOf, identityOfGroup, specFromGroup } from "./mapping.ts";

export const userGroupExporter: KindExporter<HarborUserGroupSpec> = {
  async read(ctx) {
    const groups = await ctx.harbor.userGroups.list({}, { signal: ctx.signal });
    return groups.filter((g) => g.id !== undefined).map(view);
  },
  keyOf: (spec, harborName) => identityKey(identityOf(spec, harborName)),
};

function view(group: UserGroup): HarborObjectView<HarborUserGroupSpec> {
  const name = group.group_name ?? "";
  const identity = identityOfGroup(group);
  return {
    identity: {
      id: group.id ?? 0,
      key: identity ? identityKey(identity) : `type ${group.group_type}:${name}`,
      harborName: name,
      suggestedName: name,
      projects: [],
    },
    spec: () => specFromGroup(group),
    diff: (spec, harborName) => diff(spec, harborName, group),
  };
}
