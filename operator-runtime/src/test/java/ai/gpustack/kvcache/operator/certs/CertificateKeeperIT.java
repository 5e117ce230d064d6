package ai.gpustack.kvcache.operator.certs;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The self-issued webhook certificate: one Secret shared by the replicas, caBundles kept equal. */
@SuppressWarnings("try") // a keeper only has to run while the test reads what it kept
class CertificateKeeperIT {
  @TempDir Path dir;
  SandboxServer server;
  KubernetesClient client;

  @BeforeEach
  void start() {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    client = server.client();
    WebhookConfigurations.Target target = WebhookConfigurations.Target.service(null);
    client.resource(WebhookConfigurations.mutating(target, Map.of())).create();
    client.resource(WebhookConfigurations.validating(target, Map.of())).create();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Secret secret() {
    return client
        .secrets()
        .inNamespace(Settings.NAMESPACE)
        .withName(CertificateKeeper.SECRET)
        .get();
  }

  static String decode(Secret s, String key) {
    return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
  }

  static Clock at(Instant instant) {
    return Clock.fixed(instant, ZoneOffset.UTC);
  }

  @Test
  void replicas_share_one_ca_that_both_webhook_configurations_trust() throws Exception {
    Instant now = Instant.parse("2026-11-30T00:00:00Z");
    try (CertificateKeeper first =
            CertificateKeeper.start(client, List.of(), dir.resolve("a"), at(now));
        CertificateKeeper second =
            CertificateKeeper.start(client, List.of(), dir.resolve("b"), at(now))) {
      Secret secret = secret();
      assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
      assertThat(secret.getData())
          .as("no CA key is kept anywhere")
          .containsOnlyKeys("ca.crt", "tls-ca.crt", "tls.crt", "tls.key");
      assertThat(Files.readString(first.certFile())).isEqualTo(decode(secret, "tls.crt"));
      assertThat(Files.readString(second.certFile())).isEqualTo(Files.readString(first.certFile()));
      assertThat(Files.readString(second.keyFile())).isEqualTo(decode(secret, "tls.key"));

      X509Certificate ca = WebhookCertificate.certificate(decode(secret, "ca.crt"));
      X509Certificate serving = WebhookCertificate.certificate(decode(secret, "tls.crt"));
      serving.verify(ca.getPublicKey());
      assertThat(serving.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))))
          .contains("kvcache-webhook.gpustack-system.svc");
      assertThat(serving.getNotAfter().toInstant()).isAfter(now.plus(Duration.ofDays(360)));

      String bundle =
          Base64.getEncoder()
              .encodeToString(decode(secret, "ca.crt").getBytes(StandardCharsets.UTF_8));
      assertThat(
              client
                  .resources(MutatingWebhookConfiguration.class)
                  .withName(WebhookConfigurations.NAME)
                  .get()
                  .getWebhooks())
          .allSatisfy(w -> assertThat(w.getClientConfig().getCaBundle()).isEqualTo(bundle));
      List<String> validating =
          client
              .resources(ValidatingWebhookConfiguration.class)
              .withName(WebhookConfigurations.NAME)
              .get()
              .getWebhooks()
              .stream()
              .map(w -> w.getClientConfig().getCaBundle())
              .toList();
      assertThat(validating).hasSizeGreaterThan(1).containsOnly(bundle);
    }
  }

  /** The CAs a caBundle or the Secret's ca.crt trusts, one PEM certificate each. */
  static List<X509Certificate> trusted(String pems) {
    List<X509Certificate> out = new java.util.ArrayList<>();
    for (String pem : pems.split("(?<=-----END CERTIFICATE-----\n)")) {
      if (!pem.isBlank()) {
        out.add(WebhookCertificate.certificate(pem));
      }
    }
    return out;
  }

  String caBundle() {
    return new String(
        Base64.getDecoder()
            .decode(
                client
                    .resources(MutatingWebhookConfiguration.class)
                    .withName(WebhookConfigurations.NAME)
                    .get()
                    .getWebhooks()
                    .get(0)
                    .getClientConfig()
                    .getCaBundle()),
        StandardCharsets.UTF_8);
  }

  /** Whether {@code pem} verifies against one of the CAs the API server is given. */
  boolean trustedByTheApiServer(String pem) {
    X509Certificate served = WebhookCertificate.certificate(pem);
    return trusted(caBundle()).stream()
        .anyMatch(
            ca -> {
              try {
                served.verify(ca.getPublicKey());
                return true;
              } catch (Exception e) {
                return false;
              }
            });
  }

  @Test
  void a_renewal_never_serves_a_certificate_the_api_server_does_not_trust_yet_and_drops_the_old_ca()
      throws Exception {
    Instant issued = Instant.parse("2026-11-30T00:00:00Z");
    String first;
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(issued))) {
      first = decode(secret(), "tls.crt");
      assertThat(trusted(caBundle())).hasSize(1);
    }
    // A month before the end: the next pair is staged and its CA trusted, the old pair served.
    Instant staged = issued.plus(Duration.ofDays(340));
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(staged))) {
      assertThat(Files.readString(keeper.certFile())).isEqualTo(first);
      assertThat(secret().getData()).containsKeys("next.crt", "next.key");
      assertThat(trusted(caBundle())).hasSize(2);
      assertThat(trustedByTheApiServer(decode(secret(), "next.crt"))).isTrue();
      assertThat(trustedByTheApiServer(first)).isTrue();
    }
    // Two passes on: the next pair is served, both CAs still trusted.
    Instant promoted = staged.plus(CertificateKeeper.PROMOTE_AFTER);
    String second;
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(promoted))) {
      second = Files.readString(keeper.certFile());
      assertThat(second).isNotEqualTo(first).isEqualTo(decode(secret(), "tls.crt"));
      assertThat(secret().getData()).doesNotContainKeys("next.crt", "next.key");
      assertThat(trustedByTheApiServer(second)).isTrue();
      assertThat(trustedByTheApiServer(first)).as("a replica not yet reloaded").isTrue();
      assertThat(WebhookCertificate.certificate(second).getNotAfter().toInstant())
          .isAfter(promoted.plus(Duration.ofDays(360)));
    }
    // An hour on: the old CA is no longer trusted, and nothing moves again until next year.
    Instant retired = promoted.plus(CertificateKeeper.RETIRE_AFTER);
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(retired))) {
      assertThat(trusted(caBundle())).hasSize(1);
      assertThat(trustedByTheApiServer(second)).isTrue();
      assertThat(trustedByTheApiServer(first)).isFalse();
      String version = secret().getMetadata().getResourceVersion();
      keeper.pass();
      assertThat(secret().getMetadata().getResourceVersion())
          .as("a quiet pass writes nothing")
          .isEqualTo(version);
    }
  }

  @Test
  void a_secret_a_previous_release_wrote_loses_its_ca_key_and_keeps_serving() throws Exception {
    Instant now = Instant.parse("2026-11-30T00:00:00Z");
    String served;
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(now))) {
      served = decode(secret(), "tls.crt");
    }
    Secret old = secret();
    old.getData()
        .put(
            "ca.key",
            Base64.getEncoder()
                .encodeToString("-----BEGIN PRIVATE KEY-----".getBytes(StandardCharsets.UTF_8)));
    old.getData().remove("tls-ca.crt");
    client.resource(old).update();
    try (CertificateKeeper keeper =
        CertificateKeeper.start(client, List.of(), dir, at(now.plusSeconds(60)))) {
      assertThat(secret().getData()).doesNotContainKey("ca.key");
      assertThat(decode(secret(), "tls.crt")).isEqualTo(served);
      assertThat(trustedByTheApiServer(served)).isTrue();
    }
  }

  @Test
  void a_missing_webhook_configuration_is_waited_for_not_an_error() throws Exception {
    client
        .resources(MutatingWebhookConfiguration.class)
        .withName(WebhookConfigurations.NAME)
        .delete();
    try (CertificateKeeper keeper =
        CertificateKeeper.start(
            client, List.of(), dir, at(Instant.parse("2026-11-30T00:00:00Z")))) {
      assertThat(Files.exists(keeper.certFile())).isTrue();
      assertThat(secret()).isNotNull();
    }
  }

  @Test
  void a_webhook_on_a_loopback_address_gets_it_named_and_a_stored_certificate_without_it_renewed()
      throws Exception {
    Instant now = Instant.parse("2026-11-30T00:00:00Z");
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(now))) {
      assertThat(
              WebhookCertificate.certificate(decode(secret(), "tls.crt"))
                  .getSubjectAlternativeNames())
          .extracting(entry -> String.valueOf(entry.get(1)))
          .doesNotContain("127.0.0.1");
    }
    CertificateKeeper.start(client, List.of("127.0.0.1"), dir, at(now.plusSeconds(60))).close();
    try (CertificateKeeper keeper =
        CertificateKeeper.start(
            client,
            List.of("127.0.0.1"),
            dir,
            at(now.plusSeconds(60).plus(CertificateKeeper.PROMOTE_AFTER)))) {
      var serving = WebhookCertificate.certificate(decode(secret(), "tls.crt"));
      assertThat(serving.getSubjectAlternativeNames())
          .extracting(entry -> String.valueOf(entry.get(0) + "=" + entry.get(1)))
          .contains("7=127.0.0.1", "2=" + CertificateKeeper.DNS_NAMES.get(0));
      assertThat(Files.readString(keeper.certFile())).isEqualTo(decode(secret(), "tls.crt"));
      assertThat(trustedByTheApiServer(decode(secret(), "tls.crt"))).isTrue();
    }
  }
}
