package ai.gpustack.kvcache.operator.e2e;

import ai.gpustack.kvcache.operator.Shell;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Everyday kubectl commands as steps, each with the shape of its answer that must be the same on
 * any API server: the exit code, the error text and the output with what differs by nature (ages,
 * UIDs, times, IPs, resource versions, generated name suffixes, column padding) written as
 * placeholders. Run in order from a folder {@link #prepare} filled, in namespace {@code fid}.
 */
final class KubectlSteps {
  /** The heading of docs/sandbox.md's table of the steps that differ. */
  static final String DOC_HEADING = "## Where it answers differently from a real API server";

  private KubectlSteps() {}

  /** One command line and how its answer is compared. */
  record Step(String id, String command, Function<Shell.Run, String> shape) {
    String shape(Shell.Run run) {
      return shape.apply(run);
    }
  }

  static Step step(String id, String command) {
    return new Step(id, command, KubectlSteps::whole);
  }

  static Step step(String id, String command, Function<Shell.Run, String> shape) {
    return new Step(id, command, shape);
  }

  /** Exit code, error and output, normalized. */
  static String whole(Shell.Run run) {
    return "exit "
        + run.exit()
        + "\nerr: "
        + normalize(run.err())
        + "\nout: "
        + normalize(run.out());
  }

  /** Exit code and error only: the output's form is the step's own business. */
  static String outcome(Shell.Run run) {
    return "exit " + run.exit() + "\nerr: " + normalize(run.err());
  }

  /** Exit code, error, and the keys the output's lines start with ({@code Name:}, {@code uid:}). */
  static String keys(Shell.Run run) {
    return outcome(run)
        + "\nkeys: "
        + run.out()
            .lines()
            .filter(l -> l.matches("^\\s*[A-Za-z][A-Za-z0-9 .-]*:.*"))
            .map(l -> l.replaceFirst(":.*", ":"))
            .distinct()
            .sorted()
            .collect(Collectors.joining(" "));
  }

  static String normalize(String text) {
    return text.replaceAll(
            "(?m)^[EWI]\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d+\\s+\\d+ [^]]+\\] ", "<log> ")
        .replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uid>")
        .replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z", "<time>")
        .replaceAll("\\b\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}(:\\d+)?\\b", "<ip>")
        .replaceAll("(resourceVersion|generation)(\"?:\\s*\"?)\\d+", "$1$2<n>")
        .replaceAll("-[a-z0-9]{8,10}-[a-z0-9]{5}\\b", "-<rs>-<pod>")
        .replaceAll("\\b(\\d+[smhd])+\\b", "<age>")
        .replaceAll("[ \\t]+", " ")
        .replaceAll("(?m) +$", "")
        .strip();
  }

  /** The files the steps read, written into {@code shell}'s folder, and namespace fid. */
  static void prepare(Shell shell) {
    write(
        shell,
        "fid.yaml",
        """
        apiVersion: v1
        kind: Namespace
        metadata: {name: fid}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCacheBackend
        metadata: {name: fid}
        spec: {connection: {external: {clientEndpoint: "fid-master.kvcache.svc:50051"}}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePool
        metadata: {name: fid}
        spec: {backends: [fid], quota: {total: 100Gi}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: chat, namespace: fid}
        spec: {poolRef: {name: fid}, domain: {name: fid-chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 10Gi}}
        """);
    write(
        shell,
        "md-a.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-a, namespace: fid, labels: {suite: fidelity}}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, image: "vllm/vllm-openai:v0.11.0"}]
        """);
    write(
        shell,
        "md-b.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-b, namespace: fid, labels: {suite: fidelity, stage: first}}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: SGLang}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, image: "lmsysorg/sglang:v0.5.4", kind: Server, replicas: 1, extraArgs: ["--mem-fraction-static", "0.8"]}]
        """);
    write(
        shell,
        "md-b-edited.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-b, namespace: fid, labels: {suite: fidelity, tier: gold}}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: SGLang}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, image: "lmsysorg/sglang:v0.5.4", kind: Server, replicas: 2, extraArgs: ["--mem-fraction-static", "0.7"]}]
        """);
    write(
        shell,
        "md-unknown-field.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-c, namespace: fid}
        spec:
          model: {name: qwen/qwen3-8b, revision: main}
          engine: {name: vLLM}
          roles: [{name: server, image: "vllm/vllm-openai:v0.11.0"}]
        """);
    write(
        shell,
        "md-ssa.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-ssa, namespace: fid}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM}
          roles: [{name: server, image: "vllm/vllm-openai:v0.11.0"}]
        """);
    write(
        shell,
        "pod.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: fid-pod, namespace: fid}
        spec:
          containers:
            - name: web
              image: nginx:1.27
              env: [{name: A, value: "1"}, {name: B, value: "2"}]
        """);
    write(
        shell,
        "web.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: fid-env, namespace: fid}
        spec:
          replicas: 0
          selector: {matchLabels: {app: fid-env}}
          template:
            metadata: {labels: {app: fid-env}}
            spec:
              containers:
                - name: web
                  image: nginx:1.27
                  env: [{name: A, value: "1"}, {name: B, value: "2"}]
        """);
    write(shell, "editor.sh", "#!/bin/sh\nsed -i 's/replicas: 3/replicas: 1/' \"$1\"\n");
    shell.home().resolve("editor.sh").toFile().setExecutable(true);
  }

  private static void write(Shell shell, String name, String text) {
    try {
      Files.writeString(shell.home().resolve(name), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static final List<Step> STEPS =
      List.of(
          step("namespace-and-binding", "kubectl apply -f fid.yaml"),
          step("api-versions", "kubectl api-versions | grep -E 'gpustack|^apps/v1$|^v1$'"),
          step("api-resources", "kubectl api-resources --api-group=worker.gpustack.ai"),
          step("create", "kubectl create -f md-a.yaml"),
          step("create-exists", "kubectl create -f md-a.yaml"),
          step("create-unknown-field", "kubectl create -f md-unknown-field.yaml"),
          step(
              "create-unknown-field-warn",
              "kubectl create --validate=warn -f md-unknown-field.yaml"
                  + " && kubectl get md fid-c -n fid -o jsonpath={.spec.model}"
                  + " && kubectl delete md fid-c -n fid"),
          step("apply-new", "kubectl apply -f md-b.yaml"),
          step("apply-unchanged", "kubectl apply -f md-b.yaml"),
          step("apply-edited", "kubectl apply -f md-b-edited.yaml"),
          step("apply-dry-run-server", "kubectl apply --dry-run=server -f md-a.yaml"),
          step("explain", "kubectl explain modeldeployments.spec.kvCache"),
          step("explain-recursive", "kubectl explain modeldeployments --recursive"),
          step(
              "wait-condition",
              "kubectl wait --for=condition=DtypeAccepted md/fid-a -n fid --timeout=60s"),
          step("get-jsonpath", "kubectl get md fid-a -n fid -o jsonpath={.spec.engine.name}"),
          step(
              "get-custom-columns",
              "kubectl get md -n fid -l suite=fidelity -o custom-columns=NAME:.metadata.name,ENGINE:.spec.engine.name"),
          step("get-table", "kubectl get md -n fid", KubectlSteps::header),
          step("get-yaml", "kubectl get md fid-a -n fid -o yaml", KubectlSteps::keys),
          step("get-missing", "kubectl get md nope -n fid"),
          step("label", "kubectl label md fid-a -n fid tier=silver"),
          step("annotate", "kubectl annotate md fid-a -n fid note=hello"),
          step(
              "patch-merge",
              "kubectl patch md fid-a -n fid --type merge -p '{\"metadata\":{\"labels\":{\"m\":\"1\"}}}'"),
          step(
              "patch-json",
              "kubectl patch md fid-a -n fid --type json -p '[{\"op\":\"add\",\"path\":\"/metadata/labels/j\",\"value\":\"2\"}]'"),
          step(
              "patch-strategic-custom-kind",
              "kubectl patch md fid-a -n fid -p '{\"metadata\":{\"labels\":{\"s\":\"1\"}}}'"),
          step("create-pod", "kubectl create -f pod.yaml"),
          step(
              "patch-pod-spec",
              "kubectl patch pod fid-pod -n fid -p '{\"spec\":{\"containers\":[{\"name\":\"web\",\"env\":[{\"name\":\"B\",\"value\":\"3\"}]}]}}'",
              KubectlSteps::firstLines),
          step(
              "patch-strategic-deployment",
              "kubectl apply -f web.yaml > /dev/null && kubectl patch deploy fid-env -n fid"
                  + " -p '{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"env\":[{\"name\":\"B\",\"value\":\"3\"}]}]}}}}'"
                  + " && kubectl get deploy fid-env -n fid -o jsonpath={.spec.template.spec.containers[0].env}"),
          step(
              "replace",
              "kubectl get md fid-a -n fid -o yaml | sed 's/replicas: 1/replicas: 3/' > replaced.yaml"
                  + " && kubectl replace -f replaced.yaml"),
          step("edit", "EDITOR=./editor.sh kubectl edit md fid-a -n fid"),
          step("describe", "kubectl describe md fid-a -n fid", KubectlSteps::keys),
          step("diff-same", "kubectl diff -f md-b-edited.yaml"),
          step(
              "diff-changed",
              "kubectl diff -f md-b.yaml | grep -E '^[-+] ' | grep -vE 'generation|resourceVersion'"),
          step(
              "watch",
              "(timeout 6 kubectl get md fid-a -n fid -w > w.out 2> w.err &); sleep 3;"
                  + " kubectl label md fid-a -n fid watched=yes > /dev/null; sleep 4;"
                  + " head -1 w.out; test $(grep -c '^fid-a' w.out) -ge 2 && echo rows; cat w.err >&2"),
          step("auth-can-i", "kubectl auth can-i create modeldeployments -n fid"),
          step(
              "auth-can-i-as",
              "kubectl auth can-i create pods -n fid --as=system:serviceaccount:fid:default"),
          step(
              "events",
              "kubectl get events -n team-a --field-selector reason=FailedCreate",
              KubectlSteps::header),
          step("delete-finalizer", "kubectl delete md fid-b -n fid --timeout=60s"),
          step(
              "wait-delete",
              "(kubectl wait --for=delete md/fid-a -n fid --timeout=60s > wait.out 2> wait.err;"
                  + " echo $? > wait.rc) & sleep 2; kubectl delete md fid-a -n fid --wait=false > /dev/null;"
                  + " wait; cat wait.out; cat wait.err >&2; exit $(cat wait.rc)"),
          step(
              "create-deployment",
              "kubectl create deployment fid-web -n fid --image=nginx:1.27 --replicas=1"),
          step("scale", "kubectl scale deploy/fid-web -n fid --replicas=2"),
          step(
              "rollout-status",
              "kubectl rollout status deploy/fid-web -n fid --timeout=60s | tail -1"),
          step("get-deployment", "kubectl get deploy fid-web -n fid"),
          step("replicasets", "kubectl get replicasets -n fid -o name | wc -l"),
          step("rollout-history", "kubectl rollout history deploy/fid-web -n fid"),
          step(
              "create-builtins",
              "kubectl create configmap fid-cm -n fid --from-literal=mode=fast"
                  + " && kubectl create secret generic fid-secret -n fid --from-literal=token=abc"
                  + " && kubectl get secret fid-secret -n fid -o jsonpath={.data.token}"),
          step("logs", "kubectl logs deploy/fid-web -n fid", KubectlSteps::outcome),
          step(
              "pod-proxy",
              "kubectl get --raw /api/v1/namespaces/team-a/pods/chat-sglang-server-0:30000/proxy/server_info",
              KubectlSteps::outcome),
          step("apply-server-side", "kubectl apply --server-side -f md-ssa.yaml"),
          step("get-nodes", "kubectl get nodes -o name | wc -l"),
          step("explain-built-in", "kubectl explain pods.spec.containers.image"),
          step("top", "kubectl top pods -n fid"),
          step(
              "delete-namespace",
              "kubectl create namespace fid-gone > /dev/null && kubectl create configmap c -n fid-gone"
                  + " --from-literal=a=b > /dev/null && kubectl delete namespace fid-gone --timeout=60s"
                  + " && kubectl get configmap c -n fid-gone -o name"));

  /** Exit code and the first line of the error and of the output. */
  static String firstLines(Shell.Run run) {
    return "exit "
        + run.exit()
        + "\nerr: "
        + normalize(run.err().lines().findFirst().orElse(""))
        + "\nout: "
        + normalize(run.out().lines().findFirst().orElse(""));
  }

  /** Exit code, error and the output's header line. */
  static String header(Shell.Run run) {
    return outcome(run) + "\nheader: " + normalize(run.out().lines().findFirst().orElse(""));
  }
}
