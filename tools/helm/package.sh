#!/usr/bin/env bash
# Packages deploy/helm/kvcache-operator as the OCI artifact `helm push` makes, with no registry
# beyond loopback: helm package, helm push to crane's in-memory registry on 127.0.0.1, then crane
# pull of that artifact into an OCI image layout tarball. Writes, under operator-runtime/target,
# kvcache-operator-<version>.tgz, kvcache-operator-chart.tar and kvcache-operator-chart.digest,
# and prints `chart digest: sha256:…` last (the digest a registry would serve it under).
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

"$bin/helm" package "$root/deploy/helm/kvcache-operator" -d "$out" > "$work/package.log"
tgz=$(sed -n 's/^Successfully packaged chart and saved it to: //p' "$work/package.log")
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
