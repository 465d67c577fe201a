# syntax=docker/dockerfile:1
#
# The operator's image. Node 24 runs the TypeScript sources directly (it strips the types; the code
# keeps to erasable syntax and .ts import paths for exactly this), so there is no build step and no
# compiler or dev dependency anywhere near the final image, and stack traces name the real lines.
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

ARG NODE_VERSION=24

# 1. Production dependencies, exactly as package-lock.json pins them.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: no production dependency needs one. Type declarations and source maps are
# never loaded at run time; dropping them roughly halves node_modules.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete

# 2. The runtime.
FROM gcr.io/distroless/nodejs24-debian12:nonroot
LABEL org.opencontainers.image.title="harbor-config-operator" \
      org.opencontainers.image.description="Keeps a Harbor registry's configuration equal to Kubernetes custom resources" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /app
# HOME points at the only place that may be writable (an emptyDir in the Deployment); nothing is
# written there today, but a library that wants a home directory then never touches the image.
ENV NODE_ENV=production \
    HOME=/tmp
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
USER 65532:65532
# 8080: /metrics; 8081: /healthz and /readyz.
EXPOSE 8080 8081
ENTRYPOINT ["/nodejs/bin/node", "src/main.ts"]
