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
      assertThat(secret.getData()).containsOnlyKeys("ca.crt", "ca.key", "tls.crt", "tls.key");
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

  @Test
  void the_serving_certificate_is_renewed_under_the_same_ca_before_it_ends() throws Exception {
    Instant now = Instant.parse("2026-11-30T00:00:00Z");
    String servingBefore;
    String caBefore;
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(now))) {
      servingBefore = decode(secret(), "tls.crt");
      caBefore = decode(secret(), "ca.crt");
    }
    try (CertificateKeeper keeper =
        CertificateKeeper.start(client, List.of(), dir, at(now.plus(Duration.ofDays(100))))) {
      assertThat(decode(secret(), "tls.crt")).isEqualTo(servingBefore);
    }
    try (CertificateKeeper keeper =
        CertificateKeeper.start(client, List.of(), dir, at(now.plus(Duration.ofDays(340))))) {
      String renewed = decode(secret(), "tls.crt");
      assertThat(renewed).isNotEqualTo(servingBefore);
      assertThat(decode(secret(), "ca.crt")).isEqualTo(caBefore);
      assertThat(Files.readString(keeper.certFile())).isEqualTo(renewed);
      WebhookCertificate.certificate(renewed)
          .verify(WebhookCertificate.certificate(caBefore).getPublicKey());
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
    String caBefore;
    try (CertificateKeeper keeper = CertificateKeeper.start(client, List.of(), dir, at(now))) {
      caBefore = decode(secret(), "ca.crt");
      assertThat(
              WebhookCertificate.certificate(decode(secret(), "tls.crt"))
                  .getSubjectAlternativeNames())
          .extracting(entry -> String.valueOf(entry.get(1)))
          .doesNotContain("127.0.0.1");
    }
    try (CertificateKeeper keeper =
        CertificateKeeper.start(client, List.of("127.0.0.1"), dir, at(now.plusSeconds(60)))) {
      var serving = WebhookCertificate.certificate(decode(secret(), "tls.crt"));
      assertThat(serving.getSubjectAlternativeNames())
          .extracting(entry -> String.valueOf(entry.get(0) + "=" + entry.get(1)))
          .contains("7=127.0.0.1", "2=" + CertificateKeeper.DNS_NAMES.get(0));
      assertThat(decode(secret(), "ca.crt")).as("the same CA").isEqualTo(caBefore);
      assertThat(Files.readString(keeper.certFile())).isEqualTo(decode(secret(), "tls.crt"));
    }
  }
}
