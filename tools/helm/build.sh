#!/usr/bin/env bash
# Builds Helm from its Go module (helm.sh/helm/v4, cmd/helm) through the module proxy, at the
# version pinned here, stamped with it as Helm's release build stamps it, and crane
# (github.com/google/go-containerregistry/cmd/crane), whose loopback registry package.sh pushes
# the chart to. Cached outside the work tree beside the control plane: a second run builds
# nothing. A cold build took 8 min 26 s for Helm and 39 s for crane on 2 cores (module downloads
# included, beside a Maven build). Prints `bin: <folder>` last.
set -euo pipefail
HELM=v4.3.2
CRANE=v0.22.1
CACHE=${KVCACHE_CACHE:-$HOME/.cache/kvcache}
BIN=$CACHE/helm/$HELM-crane-$CRANE/bin
if ! command -v go > /dev/null; then
  echo "go is missing: install Go 1.26 or newer to build Helm" >&2
  exit 3
fi
if [[ -x $BIN/helm && -x $BIN/crane ]]; then
  echo "cached: Helm $HELM, crane $CRANE"
  echo "bin: $BIN"
  exit 0
fi
start=$SECONDS
partial=$BIN.partial
rm -rf "$partial"
mkdir -p "$partial"
echo "building Helm $HELM"
# helm.sh/helm/v4/internal/version reads these, as Helm v4.3.2 Makefile:46-57 sets them.
GOBIN=$partial CGO_ENABLED=0 GOFLAGS="-buildvcs=false -trimpath" go install \
  -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
  "helm.sh/helm/v4/cmd/helm@$HELM"
echo "building crane $CRANE"
GOBIN=$partial CGO_ENABLED=0 GOFLAGS="-buildvcs=false -trimpath" go install -ldflags "-s -w" \
  "github.com/google/go-containerregistry/cmd/crane@$CRANE"
rm -rf "$BIN"
mv "$partial" "$BIN"
echo "built in $((SECONDS - start)) s"
"$BIN/helm" version --short
echo "bin: $BIN"
