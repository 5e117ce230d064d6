#!/usr/bin/env python3
"""Writes the field numbers the sandbox decodes Kubernetes protobuf bodies with.

kubectl's typed clients (kubectl create configmap, secret, deployment, namespace, ...; auth can-i)
send built-in objects as protobuf. The sandbox reads them with these tables, taken from the
generated.proto files of k8s.io/api and k8s.io/apimachinery at the tag given (the messages the
sandbox's built-in kinds reach, and nothing else).

  python3 sandbox/src/build/protobuf-schema.py API_GIT_DIR APIMACHINERY_GIT_DIR v0.32.0 \
      > sandbox/src/main/resources/protobuf/kubernetes.json
"""
import json
import re
import subprocess
import sys

API, MACHINERY, TAG = sys.argv[1], sys.argv[2], sys.argv[3]
FILES = [(API, f"{g}/generated.proto") for g in [
    "core/v1", "apps/v1", "batch/v1", "rbac/v1", "policy/v1", "coordination/v1", "events/v1",
    "authorization/v1", "autoscaling/v1"]] + [(MACHINERY, f"pkg/{p}/generated.proto") for p in [
    "apis/meta/v1", "api/resource", "util/intstr", "runtime"]]
# The kinds the sandbox serves, as apiVersion/kind -> message.
ROOTS = {
    "v1": ["Pod", "Namespace", "Event", "ConfigMap", "Secret", "Service", "ServiceAccount"],
    "apps/v1": ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"],
    "batch/v1": ["Job", "CronJob"],
    "events.k8s.io/v1": ["Event"],
    "coordination.k8s.io/v1": ["Lease"],
    "policy/v1": ["PodDisruptionBudget"],
    "rbac.authorization.k8s.io/v1": ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"],
    "authorization.k8s.io/v1": ["SelfSubjectAccessReview", "SelfSubjectRulesReview"],
    "autoscaling/v1": ["Scale"],
}
PACKAGES = {
    "v1": "k8s.io.api.core.v1", "apps/v1": "k8s.io.api.apps.v1", "batch/v1": "k8s.io.api.batch.v1",
    "events.k8s.io/v1": "k8s.io.api.events.v1", "coordination.k8s.io/v1": "k8s.io.api.coordination.v1",
    "policy/v1": "k8s.io.api.policy.v1", "rbac.authorization.k8s.io/v1": "k8s.io.api.rbac.v1",
    "authorization.k8s.io/v1": "k8s.io.api.authorization.v1", "autoscaling/v1": "k8s.io.api.autoscaling.v1",
}
SCALARS = {"string", "bytes", "bool", "int32", "int64", "double", "float"}
FIELD = re.compile(r"^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;")
MAP = re.compile(r"^\s*map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")

messages = {}
for repo, path in FILES:
    text = subprocess.run(["git", "--git-dir", repo, "show", f"{TAG}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
    current = None
    for line in text.splitlines():
        m = re.match(r"^message (\w+) \{", line)
        if m:
            current = f"{package}.{m.group(1)}"
            messages[current] = {}
            continue
        if line.startswith("}"):
            current = None
            continue
        if current is None:
            continue
        def qualified(t):
            return t if t in SCALARS else t.lstrip(".") if t.startswith(".") else f"{package}.{t}"
        m = MAP.match(line)
        if m:
            messages[current][m.group(4)] = [m.group(3), "map", qualified(m.group(2))]
            continue
        m = FIELD.match(line)
        if m:
            messages[current][m.group(4)] = [m.group(3), m.group(1), qualified(m.group(2))]

kinds, needed, todo = {}, {}, []
for api_version, names in ROOTS.items():
    for name in names:
        message = f"{PACKAGES[api_version]}.{name}"
        kinds[f"{api_version}/{name}"] = message
        todo.append(message)
while todo:
    message = todo.pop()
    if message in needed:
        continue
    needed[message] = messages[message]
    todo.extend(t for _, _, t in messages[message].values() if t not in SCALARS)
print(json.dumps({
    "source": f"k8s.io/api and k8s.io/apimachinery {TAG}, generated.proto; regenerate with"
              " sandbox/src/build/protobuf-schema.py",
    "kinds": kinds,
    "messages": dict(sorted(needed.items())),
}, indent=1, sort_keys=False))
