package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.AdmissionException;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvcache review}: the admission answer to one request, offline, from files. */
@Command(
    name = "review",
    mixinStandardHelpOptions = true,
    description = {
      "Answers an admission request offline, exactly as the webhook would, and prints the"
          + " AdmissionReview response as JSON.",
      "REQUEST is an AdmissionReview (JSON or YAML) or a bare object; a bare object is reviewed as"
          + " --operation (CREATE, or UPDATE when --old is given). The -f files hold the Bindings,"
          + " Pools, Backends, ModelDeployments and Settings the handlers may read (absent Settings"
          + " read as their defaults).",
      "Exit codes: 0 allowed; 1 denied; 2 unreadable input."
    })
final class ReviewCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(
      names = {"-f", "--filename"},
      description = "Cluster state: files or directories of manifests.")
  List<Path> files = new ArrayList<>();

  @Option(names = "--operation", description = "CREATE or UPDATE, for a bare object.")
  String operation;

  @Option(names = "--old", description = "The stored object, for an UPDATE of a bare object.")
  Path old;

  @Option(names = "--patched", description = "Also print the object an allowed mutation produces.")
  boolean patched;

  @Parameters(paramLabel = "REQUEST", description = "An AdmissionReview or a bare object.")
  Path request;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      JsonNode review = review();
      Request parsed = Admission.parse(review);
      Route route =
          Route.forKind(parsed.kind(), parsed.operation())
              .orElseThrow(
                  () ->
                      new AdmissionException(
                          400,
                          "no admission route takes "
                              + parsed.operation()
                              + " of "
                              + parsed.kind()));
      Admission admission =
          new Admission(
              Engines.load(spec.commandLine()), MemoryClusterView.of(Manifests.objects(files)));
      Decision decision = admission.decide(route, parsed);
      out.println(
          JSON.writerWithDefaultPrettyPrinter()
              .writeValueAsString(Admission.respond(parsed.uid(), decision)));
      if (patched && decision.patch().isPresent()) {
        out.println(
            JSON.writerWithDefaultPrettyPrinter()
                .writeValueAsString(
                    JsonPatch.apply(decision.patch().get().operations(), parsed.object())));
      }
      out.flush();
      return decision.allowed() ? 0 : 1;
    } catch (Manifests.UnreadableManifest | AdmissionException e) {
      err.println("kvcache review: " + e.getMessage());
      return 2;
    }
  }

  private JsonNode review() {
    JsonNode doc = only(request);
    if ("AdmissionReview".equals(doc.path("kind").asText())) {
      if (old != null || operation != null) {
        throw new AdmissionException(
            400,
            "--old and --operation are for a bare object; " + request + " is an AdmissionReview");
      }
      return doc;
    }
    String op = operation != null ? operation : old != null ? "UPDATE" : "CREATE";
    if (!op.equals("CREATE") && !op.equals("UPDATE")) {
      throw new AdmissionException(400, "--operation is CREATE or UPDATE, not " + op);
    }
    if (op.equals("UPDATE") && old == null) {
      throw new AdmissionException(400, "an UPDATE needs the stored object: --old FILE");
    }
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode r = review.putObject("request");
    r.put("uid", "kvcache-review");
    String apiVersion = doc.path("apiVersion").asText("");
    ObjectNode kind = r.putObject("kind");
    kind.put(
            "group",
            apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "")
        .put(
            "version",
            apiVersion.contains("/")
                ? apiVersion.substring(apiVersion.indexOf('/') + 1)
                : apiVersion)
        .put("kind", doc.path("kind").asText(""));
    r.put("operation", op);
    r.put("name", doc.path("metadata").path("name").asText(""));
    r.put("namespace", doc.path("metadata").path("namespace").asText("default"));
    r.set("object", doc);
    if (old != null) {
      r.set("oldObject", only(old));
    }
    return review;
  }

  private static JsonNode only(Path file) {
    List<JsonNode> docs = Manifests.documents(List.of(file));
    if (docs.size() != 1) {
      throw new Manifests.UnreadableManifest(
          file + ": holds " + docs.size() + " objects; a request is one", null);
    }
    return docs.get(0);
  }
}
