# syntax=docker/dockerfile:1
#
# The operator's image. The TypeScript sources become JavaScript by having their types stripped
# with Node's own stripper (src/build.ts; the code keeps to erasable syntax for exactly this), so no
# compiler or dev dependency is anywhere near the image, stack traces name the same lines and
# columns (of main.js rather than main.ts), and the process does not load Node's TypeScript support
# at every start (about 29 MiB of resident memory, see docs/performance.md).
#
#   docker build -t ghcr.io/harbor-config-operator/harbor-config-operator:0.1.0 .
#
# The final stage holds Node and nothing else (no shell, no npm), runs as an unprivileged numeric
# user (so that the kubelet can verify runAsNonRoot) and writes no file: it runs unchanged with a
# read-only root filesystem. Node is PID 1 and that is enough: the operator handles SIGTERM itself
# (graceful shutdown, Lease released) and starts no child processes, so no init is needed to
# forward signals or reap zombies.
#
# No container engine on the test machines: test/e2e/image.test.ts follows these steps without one
# (test/env/image.ts reads this file and refuses any instruction it cannot reproduce) and proves that
# what they assemble starts, serves its probes and metrics, and reconciles.

# Base images by digest, so that a rebuild takes exactly the bytes that were reviewed; the tags say
# which line each digest belongs to (update both together, e.g. with Renovate or Dependabot).

# 1. Production dependencies, exactly as package-lock.json pins them, and their SBOM.
FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: no production dependency needs one. Type declarations and source maps are
# never loaded at run time; dropping them roughly halves node_modules. The SBOM (CycloneDX) lists
# every package installed; npm reads it from node_modules once this stage's package.json no longer
# names the dev dependencies it did not install (the image takes package.json from the context).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete \
 && npm pkg delete devDependencies \
 && npm sbom --omit=dev --sbom-format=cyclonedx --sbom-type=application > sbom.cdx.json

# 2. The operator as JavaScript, written by Node alone.
FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d AS build
WORKDIR /app
COPY src ./src
RUN node --disable-warning=ExperimentalWarning src/build.ts dist

# 3. The runtime.
FROM gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a
LABEL org.opencontainers.image.title="harbor-config-operator" \
      org.opencontainers.image.description="Keeps a Harbor registry's configuration equal to Kubernetes custom resources" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /app
# HOME points at the only place that may be writable (an emptyDir in the Deployment); nothing is
# written there today, but a library that wants a home directory then never touches the image.
ENV NODE_ENV=production \
    HOME=/tmp
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/sbom.cdx.json ./
COPY package.json ./
COPY --from=build /app/dist/src ./src
USER 65532:65532
# 8080: /metrics; 8081: /healthz and /readyz.
EXPOSE 8080 8081
ENTRYPOINT ["/nodejs/bin/node", "src/main.js"]
