#!/usr/bin/env bash
# Packages deploy/helm/kvcache-operator as the OCI artifact `helm push` makes, with no registry
# beyond loopback: helm package, helm push to crane's in-memory registry on 127.0.0.1, then crane
# pull of that artifact into an OCI image layout tarball. Writes, under operator-runtime/target,
# kvcache-operator-<version>.tgz, kvcache-operator-chart.tar and kvcache-operator-chart.digest,
# and prints `chart digest: sha256:…` last (the digest a registry would serve it under).
# Reproducible: helm package stamps each file with its mtime and helm push stamps the artifact
# with the .tgz's (Helm v4.3.2 pkg/chart/v2/loader/directory.go:115, pkg/pusher/ocipusher.go:93),
# so both are set to the time of the last commit that changed the chart (or SOURCE_DATE_EPOCH):
# the same chart gives the same digest on every clone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$("$root/tools/helm/build.sh" | sed -n 's/^bin: //p')
out=$root/operator-runtime/target
mkdir -p "$out"
work=$(mktemp -d)
registry=
cleanup() {
  [[ -n $registry ]] && kill "$registry" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct -- deploy/helm/kvcache-operator)}
if [[ -z $epoch ]]; then
  echo "package.sh: no commit changed deploy/helm/kvcache-operator here; set SOURCE_DATE_EPOCH" >&2
  exit 2
fi
cp -r "$root/deploy/helm/kvcache-operator" "$work/chart"
find "$work/chart" -exec touch -h -d "@$epoch" {} +
"$bin/helm" package "$work/chart" -d "$out" > "$work/package.log"
tgz=$(sed -n 's/^Successfully packaged chart and saved it to: //p' "$work/package.log")
touch -d "@$epoch" "$tgz"
version=$(basename "$tgz" .tgz | sed 's/^kvcache-operator-//')

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/crane" registry serve --address "127.0.0.1:$port" > "$work/registry.log" 2>&1 &
registry=$!
for _ in $(seq 50); do
  curl -fs "http://127.0.0.1:$port/v2/" > /dev/null && break
  sleep 0.1
done
"$bin/helm" push "$tgz" "oci://127.0.0.1:$port/charts" --plain-http > "$work/push.log" 2>&1
digest=$(sed -n 's/^Digest: //p' "$work/push.log")
ref=127.0.0.1:$port/charts/kvcache-operator:$version
"$bin/crane" pull --insecure --format=oci "$ref" "$work/layout"
tar -C "$work/layout" -cf "$out/kvcache-operator-chart.tar" .
test "$("$bin/crane" digest --insecure "$ref")" = "$digest"
echo "$digest" > "$out/kvcache-operator-chart.digest"
echo "chart: $tgz ($(wc -c < "$tgz") bytes)"
echo "chart digest: $digest"
