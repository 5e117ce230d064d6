#!/usr/bin/env bash
# Starts a real control plane on 127.0.0.1 with kwokctl's binary runtime and the binaries build.sh
# made: etcd, kube-apiserver (secure port, --authorization-mode=Node,RBAC, the default admission
# plugins), kube-controller-manager (garbage collector, ReplicaSet, Deployment, namespace and
# service account token controllers among its defaults), kube-scheduler, and KWOK with three GPU
# nodes. Prints `kubeconfig: <path>` last, once every component is healthy and the nodes are Ready.
#   tools/control-plane/up.sh [--name N] [-- KWOKCTL_FLAGS...]   (default name: kvcache)
# Flags after -- go to `kwokctl create cluster` as they are: the operator benchmark adds its KWOK
# stages (--config), --kube-audit-policy and --disable-qps-limits.
set -euo pipefail
name=kvcache
more=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --name) name=${2:?--name needs a value}; shift 2 ;;
    --) shift; more=("$@"); break ;;
    *) echo "up.sh: unknown argument $1 (usage: up.sh [--name N] [-- KWOKCTL_FLAGS...])" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/versions.sh"
"$here/build.sh" | grep -v '^bin: '

kubeconfig=$KWOK_WORKDIR/clusters/$name/kubeconfig.yaml
if "$BIN/kwokctl" get clusters 2> /dev/null | grep -qx "$name"; then
  echo "up.sh: a cluster named $name runs already; tools/control-plane/down.sh --name $name stops it" >&2
  exit 1
fi
start=$SECONDS
"$BIN/kwokctl" --v=WARN --config "$here/kwokctl.yaml" create cluster --name "$name" --runtime binary \
  --secure-port --kube-authorization --kube-admission \
  --etcd-binary "$BIN/etcd" \
  --kube-apiserver-binary "$BIN/kube-apiserver" \
  --kube-controller-manager-binary "$BIN/kube-controller-manager" \
  --kube-scheduler-binary "$BIN/kube-scheduler" \
  --kwok-controller-binary "$BIN/kwok" \
  --kubeconfig "" --wait 5m --quiet-pull "${more[@]}"
kubectl --kubeconfig "$kubeconfig" apply -f "$here/nodes.yaml" > /dev/null
kubectl --kubeconfig "$kubeconfig" wait --for=condition=Ready node --all --timeout=120s > /dev/null
# The token controller has made the default ServiceAccount: Pods can be admitted.
until kubectl --kubeconfig "$kubeconfig" get serviceaccount default -n default > /dev/null 2>&1; do
  sleep 0.5
done
echo "up in $((SECONDS - start)) s: Kubernetes $KUBERNETES, etcd $ETCD, KWOK $KWOK, $(kubectl --kubeconfig "$kubeconfig" get nodes --no-headers | wc -l) nodes"
echo "kubeconfig: $kubeconfig"
