package ai.gpustack.kvcache.operator.certs;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the webhook's self-issued certificate: the CA and serving pair live in the Secret {@value
 * #SECRET} (created by whichever replica gets there first, renewed before it ends), every replica
 * serves the pair from {@code dir}, and both webhook configurations carry the CA as their {@code
 * caBundle}. Each pass is idempotent; it runs at start and every {@link #PERIOD}.
 */
public final class CertificateKeeper implements AutoCloseable {
  public static final String SECRET = "kvcache-webhook-tls";
  static final Duration PERIOD = Duration.ofMinutes(1);
  private static final Logger LOG = LoggerFactory.getLogger(CertificateKeeper.class);

  /** The names the API server may use for the webhook Service. */
  public static final List<String> DNS_NAMES =
      List.of(
          WebhookConfigurations.SERVICE + "." + Settings.NAMESPACE + ".svc",
          WebhookConfigurations.SERVICE + "." + Settings.NAMESPACE + ".svc.cluster.local",
          WebhookConfigurations.SERVICE + "." + Settings.NAMESPACE,
          WebhookConfigurations.SERVICE);

  private final KubernetesClient client;
  private final List<String> names;
  private final Path dir;
  private final Clock clock;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "kvcache-certificates");
            t.setDaemon(true);
            return t;
          });

  private CertificateKeeper(KubernetesClient client, List<String> names, Path dir, Clock clock) {
    this.client = client;
    this.names = names;
    this.dir = dir;
    this.clock = clock;
  }

  /**
   * Makes sure a certificate naming the Service ({@link #DNS_NAMES}) and {@code alsoNames} exists
   * and is served from {@code dir}, then keeps it so.
   */
  public static CertificateKeeper start(
      KubernetesClient client, List<String> alsoNames, Path dir, Clock clock) {
    List<String> names = new ArrayList<>(DNS_NAMES);
    alsoNames.stream().filter(n -> !names.contains(n)).forEach(names::add);
    CertificateKeeper keeper = new CertificateKeeper(client, List.copyOf(names), dir, clock);
    keeper.pass();
    keeper.scheduler.scheduleWithFixedDelay(
        keeper::passQuietly, PERIOD.toSeconds(), PERIOD.toSeconds(), TimeUnit.SECONDS);
    return keeper;
  }

  public Path certFile() {
    return dir.resolve("tls.crt");
  }

  public Path keyFile() {
    return dir.resolve("tls.key");
  }

  private void passQuietly() {
    try {
      pass();
    } catch (RuntimeException e) {
      LOG.warn("keeping the webhook certificate failed; retrying in {}: {}", PERIOD, e.toString());
    }
  }

  /** One pass: the Secret current, the files equal to it, the caBundles equal to its CA. */
  void pass() {
    WebhookCertificate certificate = current();
    write(certificate);
    String bundle =
        Base64.getEncoder().encodeToString(certificate.caCert().getBytes(StandardCharsets.UTF_8));
    caBundle(MutatingWebhookConfiguration.class, bundle);
    caBundle(ValidatingWebhookConfiguration.class, bundle);
  }

  private WebhookCertificate current() {
    for (int attempt = 0; ; attempt++) {
      Secret secret = client.secrets().inNamespace(Settings.NAMESPACE).withName(SECRET).get();
      try {
        if (secret == null) {
          WebhookCertificate issued = WebhookCertificate.issue(names, clock.instant());
          client.resource(secret(issued, null)).create();
          LOG.info("issued the webhook certificate into Secret {}/{}", Settings.NAMESPACE, SECRET);
          return issued;
        }
        WebhookCertificate stored = read(secret);
        if (!stored.needsRenewal(clock.instant()) && stored.covers(names)) {
          return stored;
        }
        WebhookCertificate renewed =
            stored.caKey().isEmpty() || stored.caCert().isEmpty()
                ? WebhookCertificate.issue(names, clock.instant())
                : stored.renew(names, clock.instant());
        client.resource(secret(renewed, secret.getMetadata().getResourceVersion())).update();
        LOG.info("renewed the webhook certificate in Secret {}/{}", Settings.NAMESPACE, SECRET);
        return renewed;
      } catch (KubernetesClientException e) {
        // Another replica created or renewed it first: read theirs.
        if ((e.getCode() != 409) || attempt >= 3) {
          throw e;
        }
      }
    }
  }

  private static WebhookCertificate read(Secret secret) {
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    return new WebhookCertificate(
        decode(data.get("ca.crt")),
        decode(data.get("ca.key")),
        decode(data.get("tls.crt")),
        decode(data.get("tls.key")));
  }

  private static String decode(String value) {
    return value == null
        ? ""
        : new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
  }

  private static Secret secret(WebhookCertificate c, String resourceVersion) {
    Base64.Encoder b64 = Base64.getEncoder();
    return new SecretBuilder()
        .withNewMetadata()
        .withName(SECRET)
        .withNamespace(Settings.NAMESPACE)
        .withResourceVersion(resourceVersion)
        .addToLabels("app.kubernetes.io/managed-by", "kvcache-operator")
        .endMetadata()
        .withType("kubernetes.io/tls")
        .addToData("ca.crt", b64.encodeToString(c.caCert().getBytes(StandardCharsets.UTF_8)))
        .addToData("ca.key", b64.encodeToString(c.caKey().getBytes(StandardCharsets.UTF_8)))
        .addToData("tls.crt", b64.encodeToString(c.tlsCert().getBytes(StandardCharsets.UTF_8)))
        .addToData("tls.key", b64.encodeToString(c.tlsKey().getBytes(StandardCharsets.UTF_8)))
        .build();
  }

  /** Writes the pair when it differs; each file is replaced whole, so a reader never sees half. */
  private void write(WebhookCertificate c) {
    try {
      Files.createDirectories(dir);
      replace(keyFile(), c.tlsKey());
      replace(certFile(), c.tlsCert());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the webhook certificate under " + dir, e);
    }
  }

  private static void replace(Path file, String content) throws IOException {
    if (Files.exists(file) && Files.readString(file).equals(content)) {
      return;
    }
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, content);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Sets every webhook's caBundle in the configuration of {@code type} to {@code bundle}. */
  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> void caBundle(
      Class<T> type, String bundle) {
    T configuration = client.resources(type).withName(WebhookConfigurations.NAME).get();
    if (configuration == null) {
      return; // not installed (yet); the next pass tries again
    }
    List<String> current =
        configuration instanceof MutatingWebhookConfiguration m
            ? m.getWebhooks().stream().map(w -> w.getClientConfig().getCaBundle()).toList()
            : ((ValidatingWebhookConfiguration) configuration)
                .getWebhooks().stream().map(w -> w.getClientConfig().getCaBundle()).toList();
    if (current.stream().allMatch(b -> Objects.equals(b, bundle))) {
      return;
    }
    StringBuilder patch = new StringBuilder("[");
    for (int i = 0; i < current.size(); i++) {
      patch
          .append(i == 0 ? "" : ",")
          .append("{\"op\":\"add\",\"path\":\"/webhooks/")
          .append(i)
          .append("/clientConfig/caBundle\",\"value\":\"")
          .append(bundle)
          .append("\"}");
    }
    patch.append("]");
    client
        .resources(type)
        .withName(WebhookConfigurations.NAME)
        .patch(PatchContext.of(PatchType.JSON), patch.toString());
    LOG.info("set the caBundle of {} {}", type.getSimpleName(), WebhookConfigurations.NAME);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
