package ai.gpustack.kvcache.operator.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Installation's one rewrite as a Helm post-renderer: manifests on stdin, the same with each
 * webhook's Service turned into {@code https://127.0.0.1:$KVCACHE_WEBHOOK_PORT/<path>} on stdout.
 * UpgradeE2E registers it as a {@code postrenderer/v1} plugin.
 */
public final class LoopbackWebhooks {
  private LoopbackWebhooks() {}

  public static void main(String[] args) throws IOException {
    String manifests = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
    int port = Integer.parseInt(System.getenv("KVCACHE_WEBHOOK_PORT"));
    System.out.print(Installation.rewriteWebhooks(manifests, port));
  }
}
