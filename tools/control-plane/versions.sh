# Sourced by build.sh, up.sh and down.sh: the pinned releases and where their binaries are cached.
# Kubernetes is pinned in kubernetes/go.mod and kubernetes-oldest/go.mod (both written by
# kubernetes/pin.sh), etcd in etcd/go.mod, KWOK here. The cache is keyed by all three, outside the
# work tree.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The newest Kubernetes minor we claim (kubernetes/), or with KVCACHE_KUBERNETES=oldest the oldest
# (kubernetes-oldest/); docs/operating.md's support matrix names both.
case ${KVCACHE_KUBERNETES:-newest} in
  newest) PIN=$here/kubernetes ;;
  oldest) PIN=$here/kubernetes-oldest ;;
  *)
    echo "KVCACHE_KUBERNETES=$KVCACHE_KUBERNETES: name newest (the default) or oldest" >&2
    exit 2
    ;;
esac
KUBERNETES=$(sed -n 's/^require k8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$PIN/go.mod")
ETCD=$(sed -n 's/^require go.etcd.io\/etcd\/server\/v3 \(v[0-9.]*\)$/\1/p' "$here/etcd/go.mod")
KWOK=v0.8.0
CACHE=${KVCACHE_CACHE:-$HOME/.cache/kvcache}
BIN=$CACHE/control-plane/$KUBERNETES-etcd-$ETCD-kwok-$KWOK/bin
# Clusters live here, one folder each, removed by down.sh.
export KWOK_WORKDIR=$CACHE/kwok
export CGO_ENABLED=0
export GOFLAGS="-buildvcs=false -mod=readonly -trimpath"

require_go() {
  if ! command -v go > /dev/null; then
    echo "go is missing: install Go 1.26 or newer (https://go.dev/dl, or the machine's package) to build the control plane" >&2
    exit 3
  fi
}
