package ai.gpustack.kvcache.operator.deploy;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import java.util.stream.Collectors;

/**
 * What the {@code cert-manager} overlay hands to cert-manager: the webhook's serving certificate,
 * and the annotations that have it inject its CA. Text, since fabric8 has no cert-manager types.
 */
final class CertManagerManifests {
  private CertManagerManifests() {}

  /** cert-manager's self-signed issuer, a CA it keeps, and the serving certificate it signs. */
  static String certificates() {
    String dnsNames =
        CertificateKeeper.DNS_NAMES.stream()
            .map(n -> "    - " + n)
            .collect(Collectors.joining("\n"));
    return String.join(
        "\n",
        "# cert-manager issues the webhook's certificate into the Secret the operator mounts, and",
        "# injects its CA into both webhook configurations (cert-manager.io/inject-ca-from).",
        "apiVersion: cert-manager.io/v1",
        "kind: Issuer",
        "metadata:",
        "  name: kvcache-selfsigned",
        "spec:",
        "  selfSigned: {}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Certificate",
        "metadata:",
        "  name: kvcache-webhook-ca",
        "spec:",
        "  isCA: true",
        "  commonName: kvcache-webhook-ca",
        "  secretName: kvcache-webhook-ca",
        "  privateKey: {algorithm: ECDSA, size: 256}",
        "  issuerRef: {name: kvcache-selfsigned, kind: Issuer}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Issuer",
        "metadata:",
        "  name: kvcache-webhook-ca",
        "spec:",
        "  ca: {secretName: kvcache-webhook-ca}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Certificate",
        "metadata:",
        "  name: " + WebhookConfigurations.SERVICE,
        "spec:",
        "  secretName: " + CertificateKeeper.SECRET,
        "  duration: 8760h",
        "  renewBefore: 720h",
        "  privateKey: {algorithm: ECDSA, size: 256, rotationPolicy: Always}",
        "  dnsNames:",
        dnsNames,
        "  issuerRef: {name: kvcache-webhook-ca, kind: Issuer}",
        "");
  }

  /** A patch having cert-manager inject its CA into both webhook configurations. */
  static String injectCaPatch() {
    String annotation =
        "  annotations:\n    cert-manager.io/inject-ca-from: "
            + Settings.NAMESPACE
            + "/"
            + WebhookConfigurations.SERVICE
            + "\n";
    return "apiVersion: admissionregistration.k8s.io/v1\n"
        + "kind: MutatingWebhookConfiguration\n"
        + "metadata:\n  name: "
        + WebhookConfigurations.NAME
        + "\n"
        + annotation
        + "---\n"
        + "apiVersion: admissionregistration.k8s.io/v1\n"
        + "kind: ValidatingWebhookConfiguration\n"
        + "metadata:\n  name: "
        + WebhookConfigurations.NAME
        + "\n"
        + annotation;
  }
}
