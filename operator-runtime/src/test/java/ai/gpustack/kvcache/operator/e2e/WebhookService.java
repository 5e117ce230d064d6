package ai.gpustack.kvcache.operator.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The webhook's Service as kube-proxy makes one, on loopback: the one port both releases' webhook
 * configurations name, each new connection passed (bytes only, TLS end to end) to one of the
 * replicas in its endpoints, in turn. As with a Service, a replica leaves the endpoints before it
 * is stopped, and connections it already holds are not cut.
 */
final class WebhookService implements AutoCloseable {
  private final ServerSocket server;
  private final List<Integer> endpoints = new CopyOnWriteArrayList<>();
  private final AtomicInteger turn = new AtomicInteger();

  private WebhookService(ServerSocket server) {
    this.server = server;
    daemon(this::accept);
  }

  static WebhookService start() {
    try {
      return new WebhookService(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return server.getLocalPort();
  }

  /** A replica turned Ready: connections may go to its port. */
  void add(int port) {
    endpoints.add(port);
  }

  /** A replica terminating: no new connection goes to it. */
  void remove(int port) {
    endpoints.remove(Integer.valueOf(port));
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      List<Integer> ready = List.copyOf(endpoints);
      try {
        if (ready.isEmpty()) {
          throw new IOException("no endpoints");
        }
        Socket replica =
            new Socket(
                InetAddress.getLoopbackAddress(),
                ready.get(Math.floorMod(turn.getAndIncrement(), ready.size())));
        AtomicInteger open = new AtomicInteger(2);
        pump(client, replica, open);
        pump(replica, client, open);
      } catch (IOException e) {
        closeQuietly(client); // the API server's call fails, as it would
      }
    }
  }

  /** One direction; the last of the two to finish closes both sockets. */
  private static void pump(Socket from, Socket to, AtomicInteger open) {
    daemon(
        () -> {
          try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            in.transferTo(out);
            to.shutdownOutput();
          } catch (IOException e) {
            closeQuietly(to);
            closeQuietly(from);
          }
          if (open.decrementAndGet() == 0) {
            closeQuietly(to);
            closeQuietly(from);
          }
        });
  }

  private static void daemon(Runnable job) {
    Thread thread = new Thread(job, "webhook-service");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
