// HarborUser's exporter (see shared/export.ts): every local user but admin, in one list, keyed by
// name. Outside db_auth Harbor's users arrive by login or LDAP import, and none is exported.
import type { HarborUserSpec } from "../../api/user.ts";
import type { PersistedUser } from "../../harbor/users.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, specFromUser } from "./mapping.ts";

export const userExporter: KindExporter<HarborUserSpec> = {
  async read(ctx) {
    const config = await ctx.harbor.system.getConfigurations({ signal: ctx.signal });
    if ((config.auth_mode?.value ?? "db_auth") !== "db_auth") return [];
    const users = await ctx.harbor.users.list({}, { signal: ctx.signal });
    // admin is Harbor's built-in administrator, never a HarborUser.
    return users.filter((u) => u.user_id !== 1).map(view);
  },
  keyOf: (_spec, harborName) => harborName,
};

function view(user: PersistedUser): HarborObjectView<HarborUserSpec> {
  return {
    identity: {
      id: user.user_id,
      key: user.username,
      harborName: user.username,
      suggestedName: user.username,
      projects: [],
    },
    spec: () => specFromUser(user),
    // A folder holds no password: only the profile and the admin flag are compared.
    diff: (spec, harborName) => diff(spec, harborName, user, "", {}, {}),
  };
}
