# benchcard in a container, for the Kubernetes manifests of `benchcard k8s` (docs/scale.md).
# Debian, Node.js 20, bubblewrap for the sandbox, pytest for Python oracles, and benchcard.
# node:20-bookworm-slim is Debian 12 with Node.js 20 (Debian's own nodejs is 18).
FROM node:20-bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      bubblewrap python3 python3-pytest git ca-certificates util-linux \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/benchcard
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY schema ./schema
COPY examples ./examples
RUN npm ci && npm prune --omit=dev && ln -s /opt/benchcard/bin/benchcard.js /usr/local/bin/benchcard
# The harness runs as root inside the pod and drops every agent and oracle to uid 65534.
ENTRYPOINT ["benchcard"]
