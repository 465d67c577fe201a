// HarborUser: a local Harbor user (db_auth) with profile, admin flag and a password from a Secret or
// generated into one the resource owns.
import { harborUser } from "../../api/user.ts";
import { defineKind } from "../shared/kinds.ts";
import { userExporter } from "./export.ts";
import { userExternal } from "./external.ts";

export const userKind = defineKind({
  def: harborUser,
  watches: {
    secrets: (spec) => [spec.passwordSecretRef?.name, spec.generatedSecretName],
  },
  ownsSecrets: true,
  exporter: userExporter,
  external: ({ ctx }) => userExternal({ secrets: ctx.secretUses, writer: ctx.secrets }),
});
