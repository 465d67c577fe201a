// HarborUserGroup: an LDAP, HTTP or OIDC user group. A group that HarborProjectMembers grant is not
// deleted while they do; the member kind declares that reference, so a member's going queues the
// group. LDAP groups wait (retried) until Harbor's directory and auth mode let Harbor create them.
import { harborUserGroup } from "../../api/user-group.ts";
import { defineKind } from "../shared/kinds.ts";
import { userGroupExporter } from "./export.ts";
import { userGroupExternal } from "./external.ts";

export const userGroupKind = defineKind({
  def: harborUserGroup,
  exporter: userGroupExporter,
  external: ({ ctx, informer }) =>
    userGroupExternal({ members: informer("HarborProjectMember"), connections: ctx.connections }),
});
