// HarborProjectMember: a user or user group with a role in a project. It waits for its HarborProject
// and, by groupRef, its HarborUserGroup; it references a HarborUserGroup also by an inline identity
// (an LDAP DN, an HTTP or OIDC name) from any namespace, so that a group whose deletion waits for its
// members is queued when the last of them goes.
import { harborProjectMember } from "../../api/member.ts";
import { defineKind } from "../shared/kinds.ts";
import { memberExporter } from "./export.ts";
import { memberExternal } from "./external.ts";
import { grants } from "./mapping.ts";

export const memberKind = defineKind({
  def: harborProjectMember,
  exporter: memberExporter,
  watches: {
    references: {
      HarborProject: (spec) => spec.projectRef.name,
      HarborUserGroup: { matches: (spec, namespace, group) => grants(spec, namespace, group) },
    },
  },
  external: ({ informer, fresh }) =>
    memberExternal({ projects: informer("HarborProject"), groups: informer("HarborUserGroup"), fresh }),
});
