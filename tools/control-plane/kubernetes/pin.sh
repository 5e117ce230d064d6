#!/usr/bin/env bash
# Pins the control plane to one Kubernetes release: writes go.mod in FOLDER (beside this script
# when none is named: the newest minor we claim; ../kubernetes-oldest holds the oldest) with
# k8s.io/kubernetes at that release and each k8s.io staging module the release's own go.mod replaces
# with a directory (./staging/src/k8s.io/...) replaced instead by the published v0.<minor>.<patch>
# of that module, then resolves go.sum. Every k8s.io module ends at the one release.
#   tools/control-plane/kubernetes/pin.sh v1.36.3
#   tools/control-plane/kubernetes/pin.sh v1.33.13 tools/control-plane/kubernetes-oldest
set -euo pipefail
release=${1:?usage: pin.sh v1.X.Y [FOLDER]}
[[ $release =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "pin.sh: $release is not a release tag like v1.36.3" >&2; exit 2; }
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
tools=$(cd "$(dirname "$0")" && pwd)/tools.go
folder=${2:-$(dirname "$0")}
mkdir -p "$folder"
cd "$folder"
[[ -e tools.go ]] || cp "$tools" tools.go
mod=$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
next=$(mktemp)
trap 'rm -f "$next"' EXIT
{
  echo "// Written by pin.sh: Kubernetes $release, its staging modules at $staging."
  echo "module kvcache.local/control-plane/kubernetes"
  echo
  echo "go $(sed -n 's/^go //p' "$mod")"
  echo
  echo "require k8s.io/kubernetes $release"
  echo
  echo "replace ("
  sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*#\1#p' "$mod" | while read -r module; do
    # Examples nothing here imports are not always published; a replace of an unpublished
    # version would fail the build, so only published ones are named.
    if (cd / && GOFLAGS=-mod=mod go list -m "$module@$staging" > /dev/null 2>&1); then
      printf '\t%s => %s %s\n' "$module" "$module" "$staging"
    fi
  done
  echo ")"
} > "$next"
mv "$next" go.mod
rm -f go.sum
go mod tidy
echo "pinned: k8s.io/kubernetes $release, staging $staging"
