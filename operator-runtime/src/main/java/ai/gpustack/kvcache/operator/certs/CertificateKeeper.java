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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the webhook's self-issued certificate: the serving pair and the CAs to trust live in the
 * Secret {@value #SECRET} (created by whichever replica gets there first), no CA key anywhere (each
 * pair has a CA of its own, forgotten once it signed), every replica serves the pair from {@code
 * dir}, and both webhook configurations carry the trusted CAs as their {@code caBundle}. A month
 * before the pair ends a new one is staged, trusted beside the old, and served two passes later.
 * Each pass is idempotent; it runs at start and every {@link #PERIOD}.
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

  /** One pass: the Secret current, the files equal to what it serves, the caBundles to its CAs. */
  void pass() {
    Stored stored = current();
    write(stored.serving());
    String bundle =
        Base64.getEncoder().encodeToString(stored.trusted().getBytes(StandardCharsets.UTF_8));
    caBundle(MutatingWebhookConfiguration.class, bundle);
    caBundle(ValidatingWebhookConfiguration.class, bundle);
  }

  /**
   * What the Secret holds: the pair served, the CAs the API server is to trust (the served pair's,
   * and while they change places the next pair's or the previous one's), and the next pair, staged
   * and already trusted, until it is served.
   */
  record Stored(
      WebhookCertificate serving,
      String trusted,
      Optional<WebhookCertificate> next,
      Optional<Instant> since) {}

  /**
   * The Secret brought one step on, then read back. A renewal never serves a certificate the API
   * server does not trust yet: the next pair is staged with its CA added to the trusted ones,
   * served {@link #PROMOTE_AFTER} later (every replica has published the wider bundle by then), and
   * the old CA is dropped {@link #RETIRE_AFTER} after that (every replica serves the new pair).
   */
  private Stored current() {
    for (int attempt = 0; ; attempt++) {
      Secret secret = client.secrets().inNamespace(Settings.NAMESPACE).withName(SECRET).get();
      try {
        Instant now = clock.instant();
        if (secret == null) {
          WebhookCertificate issued = WebhookCertificate.issue(names, now);
          Stored fresh = new Stored(issued, issued.caCert(), Optional.empty(), Optional.empty());
          client.resource(secret(fresh, null)).create();
          LOG.info("issued the webhook certificate into Secret {}/{}", Settings.NAMESPACE, SECRET);
          return fresh;
        }
        Stored stored = read(secret);
        Stored next = step(stored, now);
        boolean oldFormat = secret.getData() != null && secret.getData().containsKey("ca.key");
        if (next.equals(stored) && !oldFormat) {
          return stored;
        }
        client.resource(secret(next, secret.getMetadata().getResourceVersion())).update();
        LOG.info("moved the webhook certificate on in Secret {}/{}", Settings.NAMESPACE, SECRET);
        return next;
      } catch (KubernetesClientException e) {
        // Another replica wrote it first: read theirs.
        if ((e.getCode() != 409) || attempt >= 3) {
          throw e;
        }
      }
    }
  }

  /** How long a staged pair is trusted before it is served. */
  static final Duration PROMOTE_AFTER = PERIOD.multipliedBy(2);

  /** How long the previous CA stays trusted after its pair stopped being served. */
  static final Duration RETIRE_AFTER = Duration.ofHours(1);

  /** The one step {@code stored} takes at {@code now}, or {@code stored} when none is due. */
  private Stored step(Stored stored, Instant now) {
    WebhookCertificate serving = stored.serving();
    if (stored.next().isPresent()) {
      WebhookCertificate next = stored.next().get();
      boolean due = stored.since().map(t -> !now.isBefore(t.plus(PROMOTE_AFTER))).orElse(true);
      return due || serving.expired(now)
          ? new Stored(next, stored.trusted(), Optional.empty(), Optional.of(now))
          : stored;
    }
    if (serving.expired(now)) {
      // Nothing can be served meanwhile anyway: replace it at once.
      WebhookCertificate issued = WebhookCertificate.issue(names, now);
      return new Stored(issued, issued.caCert(), Optional.empty(), Optional.empty());
    }
    if (serving.needsRenewal(now) || !serving.covers(names)) {
      WebhookCertificate next = WebhookCertificate.issue(names, now);
      return new Stored(
          serving, serving.caCert() + next.caCert(), Optional.of(next), Optional.of(now));
    }
    boolean retired = stored.since().map(t -> !now.isBefore(t.plus(RETIRE_AFTER))).orElse(false);
    if (retired || (stored.since().isEmpty() && !stored.trusted().equals(serving.caCert()))) {
      return new Stored(serving, serving.caCert(), Optional.empty(), Optional.empty());
    }
    return stored;
  }

  private static Stored read(Secret secret) {
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    String ca = decode(data.get("ca.crt"));
    WebhookCertificate serving =
        new WebhookCertificate(
            decode(data.get(SERVING_CA)).isEmpty() ? ca : decode(data.get(SERVING_CA)),
            decode(data.get("tls.crt")),
            decode(data.get("tls.key")));
    Optional<WebhookCertificate> next =
        data.containsKey("next.crt")
            ? Optional.of(
                new WebhookCertificate(
                    decode(data.get(NEXT_CA)),
                    decode(data.get("next.crt")),
                    decode(data.get("next.key"))))
            : Optional.empty();
    Optional<Instant> since =
        Optional.ofNullable(secret.getMetadata().getAnnotations())
            .map(a -> a.get(SINCE))
            .map(Instant::parse);
    return new Stored(serving, ca, next, since);
  }

  /** The served pair's own CA (ca.crt may hold two while they change places). */
  private static final String SERVING_CA = "tls-ca.crt";

  private static final String NEXT_CA = "next-ca.crt";

  /** When the last step was taken: a pair staged, or served. */
  private static final String SINCE = "kvcache.gpustack.ai/certificate-step";

  private static String decode(String value) {
    return value == null
        ? ""
        : new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
  }

  private static Secret secret(Stored s, String resourceVersion) {
    Base64.Encoder b64 = Base64.getEncoder();
    SecretBuilder secret =
        new SecretBuilder()
            .withNewMetadata()
            .withName(SECRET)
            .withNamespace(Settings.NAMESPACE)
            .withResourceVersion(resourceVersion)
            .addToLabels("app.kubernetes.io/managed-by", "kvcache-operator")
            .endMetadata()
            .withType("kubernetes.io/tls")
            .addToData("ca.crt", b64.encodeToString(s.trusted().getBytes(StandardCharsets.UTF_8)))
            .addToData(
                SERVING_CA,
                b64.encodeToString(s.serving().caCert().getBytes(StandardCharsets.UTF_8)))
            .addToData(
                "tls.crt",
                b64.encodeToString(s.serving().tlsCert().getBytes(StandardCharsets.UTF_8)))
            .addToData(
                "tls.key",
                b64.encodeToString(s.serving().tlsKey().getBytes(StandardCharsets.UTF_8)));
    s.next()
        .ifPresent(
            n ->
                secret
                    .addToData(
                        NEXT_CA, b64.encodeToString(n.caCert().getBytes(StandardCharsets.UTF_8)))
                    .addToData(
                        "next.crt",
                        b64.encodeToString(n.tlsCert().getBytes(StandardCharsets.UTF_8)))
                    .addToData(
                        "next.key",
                        b64.encodeToString(n.tlsKey().getBytes(StandardCharsets.UTF_8))));
    s.since()
        .ifPresent(t -> secret.editMetadata().addToAnnotations(SINCE, t.toString()).endMetadata());
    return secret.build();
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
