#!/usr/bin/env bash
# Whole-process time of the kvcache commands that need no cluster (engines, render, review,
# preflight -f), warm, with hyperfine: as `java -jar`, and through the shipped kubectl-kvcache
# launcher (client compiler, serial collector, and the class-data-sharing archive it writes on
# its first run of a jar).
#
# usage: operator-runtime/src/bench/startup.sh
#   after ./mvnw -B -q install -DskipTests -DskipITs; needs hyperfine (sudo apt-get install -y hyperfine)
set -euo pipefail
cd "$(dirname "$0")/../../.."
jar=operator-runtime/target/kvcache.jar
out=operator-runtime/target/startup
mkdir -p "$out"
command -v hyperfine > /dev/null || { echo "hyperfine is not installed: sudo apt-get install -y hyperfine" >&2; exit 2; }

commands=(
  "engines"
  "render -f examples/sandbox/00-backend.yaml -f examples/sandbox/01-pool.yaml -f examples/sandbox/02-bindings.yaml -f examples/sandbox/03-deployments.yaml"
  "review -f examples/sandbox/00-backend.yaml -f examples/sandbox/01-pool.yaml -f examples/sandbox/02-bindings.yaml examples/sandbox/07-format-refused.yaml"
  "preflight -f examples/sandbox"
)

# The launcher keeps its archive under $XDG_CACHE_HOME/kvcache: here, beside the results.
export XDG_CACHE_HOME="$out/cache"
launcher=operator-runtime/target/kubectl-kvcache
"$launcher" engines > /dev/null

args=()
for c in "${commands[@]}"; do
  args+=(-n "kvcache $c" "java -jar $jar $c")
  args+=(-n "kubectl-kvcache $c" "$launcher $c")
done
# Exit codes are the commands' verdicts (preflight and review refuse on purpose): -i keeps them.
hyperfine -N -i --warmup 3 --runs 15 --export-markdown "$out/startup.md" "${args[@]}"
echo "table: $out/startup.md"
