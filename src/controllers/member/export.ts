// HarborProjectMember's exporter (see shared/export.ts): each project's members in one list per
// project (Harbor lists members only by project), and the user groups in one list, for the identity
// of group members (Harbor's member list names a group only by its id and name).
import type { HarborProjectMemberSpec } from "../../api/member.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { PersistedProjectMember } from "../../harbor/members.ts";
import type { UserGroup } from "../../harbor/user-group.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { identityOfGroup } from "../user-group/mapping.ts";
import { diff, inlineGroup, memberKey, specFromMember } from "./mapping.ts";

export const memberExporter: KindExporter<HarborProjectMemberSpec> = {
  async read(ctx) {
    let groups: UserGroup[] = [];
    try {
      groups = await ctx.harbor.userGroups.list({}, { signal: ctx.signal });
    } catch (e) {
      // Without the user-group permission, group members are said to be unreadable, users still go.
      if (!isHarborError(e, "forbidden")) throw e;
    }
    const byId = new Map(groups.filter((g) => g.id !== undefined).map((g) => [g.id as number, g]));
    const projects = (await ctx.projects()).filter((p) => ctx.includes(p.name ?? ""));
    let done = 0;
    const lists = await ctx.each(projects, async (p) => {
      const members = await ctx.harbor.members.list(p.project_id, {}, { signal: ctx.signal });
      ctx.progress("project members", ++done, projects.length);
      return members.map((m) =>
        view(
          m,
          { id: p.project_id, name: p.name ?? "" },
          m.entity_type === "g" ? byId.get(m.entity_id ?? -1) : undefined,
        ),
      );
    });
    return lists.flat();
  },
  keyOf(spec, _harborName, refs) {
    const project = refs.resolve("HarborProject", spec.projectRef.name);
    if (!project) return undefined;
    if (spec.user) return memberKey(project.harborName, { user: spec.user.name });
    const inline = inlineGroup(spec);
    if (inline) return memberKey(project.harborName, { group: inline });
    const group = spec.group?.groupRef && refs.resolve("HarborUserGroup", spec.group.groupRef.name);
    return group?.key === undefined ? undefined : `${project.harborName}/group:${group.key}`;
  },
};

function view(
  member: PersistedProjectMember,
  project: { id: number; name: string },
  group: UserGroup | undefined,
): HarborObjectView<HarborProjectMemberSpec> {
  const name = member.entity_name ?? "";
  const identity = group && identityOfGroup(group);
  const key =
    member.entity_type === "u"
      ? memberKey(project.name, { user: name })
      : identity
        ? memberKey(project.name, { group: identity })
        : `${project.name}/group#${member.entity_id}`;
  return {
    identity: {
      id: member.id,
      key,
      harborName: name,
      suggestedName: `${project.name}.${name}`,
      projects: [project.name],
    },
    spec(names) {
      const groupRef =
        member.entity_type === "g" && names.exports("HarborUserGroup")
          ? names.nameOf("HarborUserGroup", member.entity_id ?? -1)
          : undefined;
      const out = specFromMember(member, names.nameOf("HarborProject", project.id), group, groupRef);
      return "skip" in out || groupRef === undefined
        ? out
        : { ...out, references: [["HarborUserGroup", groupRef]] };
    },
    diff: (spec) => diff(spec, member),
  };
}
