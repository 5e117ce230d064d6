#!/usr/bin/env bash
# Stops a cluster up.sh started and removes its files (etcd data, certificates, logs, kubeconfig).
#   tools/control-plane/down.sh [--name N]    (default name: kvcache)
set -euo pipefail
name=kvcache
while [[ $# -gt 0 ]]; do
  case $1 in
    --name) name=${2:?--name needs a value}; shift 2 ;;
    *) echo "down.sh: unknown argument $1 (usage: down.sh [--name N])" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/versions.sh"
if [[ ! -x $BIN/kwokctl ]]; then
  echo "down.sh: no control plane was built ($BIN); nothing to stop" >&2
  exit 0
fi
"$BIN/kwokctl" --v=ERROR delete cluster --name "$name"
rm -rf "$KWOK_WORKDIR/clusters/$name"
echo "down: $name"
