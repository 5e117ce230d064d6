package ai.gpustack.kvcache.webhook;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Self-signed certificates for localhost, written as PEM files, and clients that trust them. */
public final class TestCertificates {
  private TestCertificates() {}

  public record Pair(X509Certificate certificate, Path cert, Path key) {}

  /**
   * A new self-signed certificate named {@code cn}, with its key of {@code algorithm} (RSA or EC).
   */
  public static Pair write(Path dir, String cn, String algorithm) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
    generator.initialize(algorithm.equals("RSA") ? 2048 : 256);
    KeyPair keys = generator.generateKeyPair();
    X500Name name = new X500Name("CN=" + cn);
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            name,
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(Duration.ofMinutes(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            name,
            keys.getPublic());
    builder.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.dNSName, "localhost"),
              new GeneralName(GeneralName.iPAddress, "127.0.0.1")
            }));
    String signature = algorithm.equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    X509Certificate certificate =
        new JcaX509CertificateConverter()
            .getCertificate(
                builder.build(new JcaContentSignerBuilder(signature).build(keys.getPrivate())));
    Files.createDirectories(dir);
    Path cert = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    Files.writeString(cert, pem(certificate));
    Files.writeString(key, pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate()));
    return new Pair(certificate, cert, key);
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(o);
    }
    return out.toString();
  }

  /** A TLS context that trusts exactly {@code trusted}. */
  public static SSLContext trusting(List<X509Certificate> trusted) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    for (int i = 0; i < trusted.size(); i++) {
      store.setCertificateEntry("c" + i, trusted.get(i));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  public static HttpClient client(List<X509Certificate> trusted) throws Exception {
    return HttpClient.newBuilder()
        .sslContext(trusting(trusted))
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }
}
