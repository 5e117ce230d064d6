#!/usr/bin/env bash
# The previous release, built from this repository's own history at the commit pinned below: its
# kvcache.jar and the deploy/ tree (CRDs, kustomize overlays, Helm chart) and examples/ it shipped.
# UpgradeE2E installs it, then upgrades to the work tree's build. Cached outside the work tree
# under ~/.cache/kvcache/release/<commit>: a second run builds nothing. A cold build took about
# 100 s on 2 cores, beside a Maven build. Prints `release: <folder>` last.
#
# On a release, move PREVIOUS to the commit that was released, and the upgrade guide's notes with it.
# With a commit as its argument it builds that one instead (UpgradeE2E's upgrade across the
# restricted Pod Security change starts from the commit before it).
set -euo pipefail
PREVIOUS=${1:-4e9f701d8dea5e3b4817ddf45de9346f500363c1} # 2026-12-03, the first commit with the chart
CACHE=${KVCACHE_CACHE:-$HOME/.cache/kvcache}
OUT=$CACHE/release/$PREVIOUS
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [[ -s $OUT/kvcache.jar ]]; then
  echo "cached: $PREVIOUS"
  echo "release: $OUT"
  exit 0
fi
if ! git -C "$repo" cat-file -e "$PREVIOUS^{commit}" 2> /dev/null; then
  echo "commit $PREVIOUS is not in this clone: fetch the whole history (git fetch --unshallow)" >&2
  exit 3
fi
start=$SECONDS
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git -C "$repo" archive "$PREVIOUS" | tar -x -C "$src"
echo "building $PREVIOUS"
(cd "$src" && ./mvnw -B -q package -pl operator-runtime -am -DskipTests -DskipITs -Dspotless.check.skip=true)
partial=$OUT.partial
rm -rf "$partial"
mkdir -p "$partial"
cp "$src/operator-runtime/target/kvcache.jar" "$partial/"
cp -r "$src/deploy" "$src/examples" "$partial/"
rm -rf "$OUT"
mv "$partial" "$OUT"
echo "built in $((SECONDS - start)) s"
echo "release: $OUT"
