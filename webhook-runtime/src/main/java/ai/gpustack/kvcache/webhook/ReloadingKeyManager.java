package ai.gpustack.kvcache.webhook;

import io.fabric8.kubernetes.client.internal.CertUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the certificate and key of two PEM files and picks up new ones when the files change
 * (cert-manager rotates them in place), without a restart and without dropping connections. A
 * half-written pair keeps the previous one in use until both files read again.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);
  private static final char[] PASSWORD = "kvcache".toCharArray();
  private static final long CHECK_INTERVAL_NANOS = 1_000_000_000L;

  private final Path certFile;
  private final Path keyFile;
  private volatile State state;
  // The pair before the last swap: a handshake that chose its alias just before the swap finishes
  // on it.
  private volatile State previous;
  private volatile long lastCheck;

  private record State(byte[] cert, byte[] key, X509ExtendedKeyManager delegate) {}

  /**
   * Loads the pair now; throws {@link IllegalArgumentException} naming the file that does not read.
   */
  public ReloadingKeyManager(Path certFile, Path keyFile) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    try {
      this.state = load(Files.readAllBytes(certFile), Files.readAllBytes(keyFile));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the TLS certificate or key: " + e.getMessage(), e);
    }
    this.lastCheck = System.nanoTime();
  }

  private State load(byte[] cert, byte[] key) {
    Exception last = null;
    for (String algorithm : new String[] {"RSA", "EC"}) {
      try {
        KeyStore store =
            CertUtils.createKeyStore(
                new ByteArrayInputStream(cert),
                new ByteArrayInputStream(key),
                algorithm,
                PASSWORD,
                null,
                PASSWORD);
        KeyManagerFactory factory =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, PASSWORD);
        return new State(cert, key, (X509ExtendedKeyManager) factory.getKeyManagers()[0]);
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        last = e;
      }
    }
    throw new IllegalArgumentException(
        "the TLS pair "
            + certFile
            + " and "
            + keyFile
            + " does not load as an RSA or EC key and its certificate: "
            + last.getMessage(),
        last);
  }

  /** Re-reads the files if they changed, at most once a second. */
  private X509ExtendedKeyManager current() {
    long now = System.nanoTime();
    if (now - lastCheck >= CHECK_INTERVAL_NANOS) {
      lastCheck = now;
      reloadIfChanged();
    }
    return state.delegate();
  }

  /**
   * Re-reads both files now and swaps them in if they changed and load; returns whether it swapped.
   */
  public synchronized boolean reloadIfChanged() {
    try {
      byte[] cert = Files.readAllBytes(certFile);
      byte[] key = Files.readAllBytes(keyFile);
      State old = state;
      if (Arrays.equals(cert, old.cert()) && Arrays.equals(key, old.key())) {
        return false;
      }
      State next = load(cert, key);
      previous = old;
      state = next;
      LOG.info("reloaded the TLS certificate from {}", certFile);
      return true;
    } catch (IOException e) {
      LOG.warn("keeping the current TLS certificate: {}", new UncheckedIOException(e).getMessage());
    } catch (IllegalArgumentException e) {
      LOG.warn("keeping the current TLS certificate: {}", e.getMessage());
    }
    return false;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return current().getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return current().chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return current().getServerAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return current().chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return current().chooseEngineServerAlias(keyType, issuers, engine);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    X509Certificate[] chain = state.delegate().getCertificateChain(alias);
    State before = previous;
    return chain != null || before == null ? chain : before.delegate().getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    PrivateKey key = state.delegate().getPrivateKey(alias);
    State before = previous;
    return key != null || before == null ? key : before.delegate().getPrivateKey(alias);
  }
}
