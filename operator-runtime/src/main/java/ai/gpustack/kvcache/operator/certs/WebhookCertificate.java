package ai.gpustack.kvcache.operator.certs;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.IPAddress;

/**
 * The webhook's serving certificate and the CA that signed it, as the PEM a Secret holds. EC P-256
 * keys. The CA signs this one certificate and its key is then forgotten: nothing that reads the
 * Secret can sign another, and a renewal is a new CA with a new certificate, trusted beside the old
 * one while they change places. The serving certificate lives a year, its CA a day longer.
 */
public record WebhookCertificate(String caCert, String tlsCert, String tlsKey) {
  static final Duration SERVING_LIFETIME = Duration.ofDays(365);
  static final Duration CA_LIFETIME = SERVING_LIFETIME.plusDays(1);
  static final Duration RENEW_BEFORE = Duration.ofDays(30);

  /**
   * A new CA and a serving certificate for {@code names}: DNS names, and IP addresses written as
   * literals ({@code 127.0.0.1}), which become IP address entries. The CA's key is not kept.
   */
  public static WebhookCertificate issue(List<String> names, Instant now) {
    KeyPair ca = keys();
    X500Name caName = new X500Name("CN=kvcache-webhook-ca-" + now.getEpochSecond());
    JcaX509v3CertificateBuilder builder = builder(caName, caName, ca, now, CA_LIFETIME);
    extension(builder, Extension.basicConstraints, true, new BasicConstraints(0));
    extension(
        builder, Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    X509Certificate caCert = sign(builder, ca.getPrivate());
    return serving(pem(caCert), caCert, ca.getPrivate(), names, now);
  }

  /** Whether the serving certificate ends within the renewal window (or is unreadable). */
  public boolean needsRenewal(Instant now) {
    try {
      return certificate(tlsCert).getNotAfter().toInstant().isBefore(now.plus(RENEW_BEFORE));
    } catch (RuntimeException e) {
      return true;
    }
  }

  /** Whether the serving certificate has ended, or cannot be read: nobody can be served it. */
  public boolean expired(Instant now) {
    try {
      return !certificate(tlsCert).getNotAfter().toInstant().isAfter(now);
    } catch (RuntimeException e) {
      return true;
    }
  }

  /** Whether the serving certificate names every one of {@code names} (or is unreadable: no). */
  public boolean covers(List<String> names) {
    try {
      Collection<List<?>> entries = certificate(tlsCert).getSubjectAlternativeNames();
      Set<String> named = new HashSet<>();
      for (List<?> entry : entries == null ? List.<List<?>>of() : entries) {
        named.add(String.valueOf(entry.get(1)));
      }
      return names.stream().allMatch(n -> named.contains(n) || named.contains(ipText(n)));
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  /** An IP literal as the JDK spells it back from a certificate; other names unchanged. */
  private static String ipText(String name) {
    return IPAddress.isValid(name) ? ipBytesText(name) : name;
  }

  private static String ipBytesText(String literal) {
    try {
      return InetAddress.getByName(literal).getHostAddress();
    } catch (IOException e) {
      return literal;
    }
  }

  private static WebhookCertificate serving(
      String caPem, X509Certificate ca, PrivateKey caKey, List<String> names, Instant now) {
    KeyPair serving = keys();
    JcaX509v3CertificateBuilder builder =
        builder(
            X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()),
            new X500Name("CN=" + names.get(0)),
            serving,
            now,
            SERVING_LIFETIME);
    extension(builder, Extension.basicConstraints, true, new BasicConstraints(false));
    extension(
        builder,
        Extension.keyUsage,
        true,
        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
    extension(
        builder,
        Extension.extendedKeyUsage,
        false,
        new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    extension(
        builder,
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            names.stream()
                .map(
                    n ->
                        IPAddress.isValid(n)
                            ? new GeneralName(GeneralName.iPAddress, n)
                            : new GeneralName(GeneralName.dNSName, n))
                .toArray(GeneralName[]::new)));
    X509Certificate cert = sign(builder, caKey);
    return new WebhookCertificate(caPem, pem(cert), pem(serving.getPrivate()));
  }

  private static KeyPair keys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no EC P-256 key generator in this JVM", e);
    }
  }

  private static JcaX509v3CertificateBuilder builder(
      X500Name issuer, X500Name subject, KeyPair keys, Instant now, Duration lifetime) {
    return new JcaX509v3CertificateBuilder(
        issuer,
        new BigInteger(127, new SecureRandom()),
        Date.from(now.minus(Duration.ofMinutes(5))),
        Date.from(now.plus(lifetime)),
        subject,
        keys.getPublic());
  }

  private static void extension(
      JcaX509v3CertificateBuilder builder,
      org.bouncycastle.asn1.ASN1ObjectIdentifier oid,
      boolean critical,
      org.bouncycastle.asn1.ASN1Encodable value) {
    try {
      builder.addExtension(oid, critical, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder builder, PrivateKey key) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot sign the webhook certificate", e);
    }
  }

  private static String pem(Object o) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(o instanceof PrivateKey k ? new JcaPKCS8Generator(k, null) : o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  static X509Certificate certificate(String pem) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      return new JcaX509CertificateConverter()
          .getCertificate((X509CertificateHolder) parser.readObject());
    } catch (IOException | GeneralSecurityException | ClassCastException e) {
      throw new IllegalArgumentException("not a PEM certificate", e);
    }
  }
}
