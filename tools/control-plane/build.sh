#!/usr/bin/env bash
# Builds the real control plane the end-to-end suites run against, from the Go module proxy and
# nothing else: kube-apiserver, kube-controller-manager and kube-scheduler from k8s.io/kubernetes
# (kubernetes/go.mod), etcd from its server module (etcd/go.mod), and KWOK's kwok and kwokctl.
# Cached by version outside the work tree: a second run builds nothing. A cold build (module downloads
# included) took 9 min on 2 cores (downloads included; see docs/operating.md's support matrix). Prints `bin: <folder>` last.
set -euo pipefail
source "$(dirname "$0")/versions.sh"
require_go

if [[ -x $BIN/kube-apiserver && -x $BIN/etcd && -x $BIN/kwokctl ]]; then
  echo "cached: Kubernetes $KUBERNETES, etcd $ETCD, KWOK $KWOK"
  echo "bin: $BIN"
  exit 0
fi

start=$SECONDS
partial=$BIN.partial
rm -rf "$partial"
mkdir -p "$partial"

# The version the binaries report (kwokctl reads it to choose their flags), as Kubernetes' own
# release build stamps it (hack/lib/version.sh): the tag, its minor, the tag's commit time.
released=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES" | sed -n 's/^\t"Time": "\(.*\)",$/\1/p')
minor=$(echo "$KUBERNETES" | cut -d. -f2)
stamp=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp+=" -X $pkg.gitVersion=$KUBERNETES -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  stamp+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$released"
done

echo "building Kubernetes $KUBERNETES (kube-apiserver, kube-controller-manager, kube-scheduler)"
(cd "$PIN" && go build -ldflags "-s -w$stamp" -o "$partial/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler)
echo "building etcd $ETCD"
(cd "$here/etcd" && go build -ldflags "-s -w" -o "$partial/etcd" .)
echo "building KWOK $KWOK (kwok, kwokctl)"
GOBIN=$partial GOFLAGS="-buildvcs=false -trimpath" go install -ldflags "-s -w" \
  "sigs.k8s.io/kwok/cmd/kwok@$KWOK" "sigs.k8s.io/kwok/cmd/kwokctl@$KWOK"

rm -rf "$BIN"
mv "$partial" "$BIN"
echo "built in $((SECONDS - start)) s:"
"$BIN/kube-apiserver" --version
etcd_version=$("$BIN/etcd" --version)
echo "${etcd_version%%$'\n'*}"
"$BIN/kwokctl" --version
echo "bin: $BIN"
