package ai.gpustack.kvcache.operator.docs;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.cluster.CachedClusterView;
import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.webhook.ReloadingKeyManager;
import ai.gpustack.kvcache.webhook.TestCertificates;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/embedding.md as a consumer reads it: every Java snippet compiles against the published
 * modules, each one with a {@code main} prints exactly the output shown under it, the embedded
 * webhook snippet serves an injection over HTTPS with a plain {@code SimpleMeterRegistry}, and the
 * version table is the one kvcache-dependencies manages.
 */
class EmbeddingDocTest {
  private static final Path DOC = ReferenceDocsTest.DOCS.resolve("embedding.md");
  private static final Pattern BLOCK = Pattern.compile("(?ms)^```(java|text|xml)\\n(.*?)^```$");
  private static final Pattern CLASS = Pattern.compile("(?m)^public class (\\w+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void every_snippet_compiles_and_prints_what_the_page_shows() throws Exception {
    Map<String, String> outputs = new LinkedHashMap<>();
    List<Path> sources = new ArrayList<>();
    String last = null;
    Matcher block = BLOCK.matcher(Files.readString(DOC, StandardCharsets.UTF_8));
    while (block.find()) {
      if (block.group(1).equals("java")) {
        Matcher name = CLASS.matcher(block.group(2));
        assertThat(name.find()).as("a public class in%n%s", block.group(2)).isTrue();
        last = name.group(1);
        Path file = dir.resolve("src/com/example/embedding/" + last + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, block.group(2));
        sources.add(file);
      } else if (block.group(1).equals("text") && last != null) {
        outputs.put(last, block.group(2).strip());
      }
    }
    assertThat(sources).hasSizeGreaterThanOrEqualTo(4);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    assertThat(compile(sources, classes)).isEmpty();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      assertThat(outputs).isNotEmpty();
      for (Map.Entry<String, String> shown : outputs.entrySet()) {
        Method main =
            loader
                .loadClass("com.example.embedding." + shown.getKey())
                .getMethod("main", String[].class);
        assertThat(run(main)).as("what %s prints", shown.getKey()).isEqualTo(shown.getValue());
      }
      servesInjection(loader.loadClass("com.example.embedding.EmbeddedWebhook"));
    }
  }

  @Test
  void the_version_table_is_what_kvcache_dependencies_manages() throws Exception {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    String dependencies = Files.readString(Path.of("..", "dependencies", "pom.xml"));
    String parent = Files.readString(Path.of("..", "pom.xml"));
    Map<String, String> rows =
        Map.of(
            "fabric8 kubernetes-client", "fabric8.version",
            "Jackson", "jackson.version",
            "Netty", "netty.version",
            "Micrometer", "micrometer.version",
            "Java Operator SDK", "josdk.version",
            "SLF4J API", "slf4j.version");
    for (Map.Entry<String, String> row : rows.entrySet()) {
      String version = property(dependencies, row.getValue());
      assertThat(property(parent, row.getValue()))
          .as("%s in pom.xml and dependencies/pom.xml", row.getValue())
          .isEqualTo(version);
      assertThat(doc).contains("| " + row.getKey() + " | " + version);
    }
  }

  private static String property(String pom, String name) {
    Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
    assertThat(m.find()).as(name).isTrue();
    return m.group(1);
  }

  /** The snippet's webhook answers a Pod's injection review over HTTPS from the caches given. */
  private void servesInjection(Class<?> snippet) throws Exception {
    TestCertificates.Pair pair = TestCertificates.write(dir, "localhost", "EC");
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(new KeyManager[] {new ReloadingKeyManager(pair.cert(), pair.key())}, null, null);
    List<HasMetadata> cluster = TestObjects.objects(TestObjects.store("team-a", "chat"));
    CachedClusterView.Caches caches = kind -> cluster.stream().filter(kind::isInstance).toList();
    Method start =
        snippet.getMethod(
            "start",
            SSLContext.class,
            CachedClusterView.Caches.class,
            MeterRegistry.class,
            int.class);
    try (AutoCloseable server =
        (AutoCloseable) start.invoke(null, tls, caches, new SimpleMeterRegistry(), 0)) {
      int port =
          ((java.net.InetSocketAddress) server.getClass().getMethod("address").invoke(server))
              .getPort();
      HttpClient client = TestCertificates.client(List.of(pair.certificate()));
      String review =
          """
          {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",
           "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"team-a",
           "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team-a",
             "labels":{"kvcache.gpustack.ai/inject":"true"},
             "annotations":{"kvcache.gpustack.ai/binding":"%s","kvcache.gpustack.ai/engine":"vLLM"}},
             "spec":{"containers":[{"name":"main","command":["vllm"],"args":["serve","m"]}]}}}}
          """
              .formatted("chat");
      HttpResponse<String> answer =
          client.send(
              HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/mutate/pods"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(review))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode response = JSON.readTree(answer.body()).get("response");
      assertThat(response.get("allowed").asBoolean()).as(answer.body()).isTrue();
      assertThat(response.has("patch")).isTrue();
      HttpResponse<String> metrics =
          client.send(
              HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).as("/metrics without a Prometheus registry").isEqualTo(404);
      HttpResponse<String> notServed =
          client.send(
              HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/validate/settings"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(notServed.statusCode()).as("a route not served").isEqualTo(404);
    }
  }

  private static String run(Method main) throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(out);
    }
    return captured.toString(StandardCharsets.UTF_8).strip();
  }

  private static String compile(Collection<Path> sources, Path classes) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter out = new StringWriter();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
      boolean ok =
          javac
              .getTask(
                  out,
                  files,
                  null,
                  List.of(
                      "-proc:none",
                      "-Xlint:all",
                      "-Werror",
                      "--release",
                      "17",
                      "-classpath",
                      System.getProperty("java.class.path"),
                      "-d",
                      classes.toString()),
                  null,
                  files.getJavaFileObjectsFromPaths(sources))
              .call();
      return ok ? out.toString() : "failed:\n" + out;
    }
  }
}
