// HarborProject: a Harbor project with its settings, CVE allowlist, quota and proxy cache. A proxy-
// cache project references a HarborRegistry (and queues it when it goes, since Harbor keeps a
// registry while a proxy project uses it); a project may name its scanner, a
// HarborScannerRegistration.
import { harborProject } from "../../api/project.ts";
import { defineKind } from "../shared/kinds.ts";
import { projectExporter } from "./export.ts";
import { projectExternal } from "./external.ts";
import { PROJECT_RELEASE_FIELDS } from "./mapping.ts";

export const projectKind = defineKind({
  def: harborProject,
  exporter: projectExporter,
  releaseFields: PROJECT_RELEASE_FIELDS,
  watches: {
    references: {
      HarborRegistry: (spec) => spec.proxyCache?.registryRef.name,
      HarborScannerRegistration: (spec) => spec.scanner?.registrationRef?.name,
    },
  },
  external: (deps) =>
    projectExternal({
      registries: deps.informer("HarborRegistry"),
      scanners: deps.informer("HarborScannerRegistration"),
      fresh: deps.fresh,
    }),
});
