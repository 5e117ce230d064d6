package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The endpoint's deadlines, at a scale a test can wait for, over plain HTTP on loopback. */
class HttpEndpointTest {
  static final Duration REQUEST = Duration.ofMillis(800);
  static final Duration IDLE = Duration.ofMillis(2500);
  static final String GET = "GET /x HTTP/1.1\r\nHost: x\r\n\r\n";

  static HttpEndpoint endpoint;

  @BeforeAll
  static void start() {
    endpoint =
        HttpEndpoint.start(
            "test",
            new InetSocketAddress("127.0.0.1", 0),
            Optional.empty(),
            new HttpEndpoint.Limits(1024, Duration.ofSeconds(1), REQUEST, IDLE, 16, 1, 2),
            new HttpEndpoint.Handler() {
              @Override
              public HttpEndpoint.Response handle(HttpEndpoint.Request request) {
                return answered("ok " + request.path());
              }

              @Override
              public Optional<HttpEndpoint.Response> handleWithoutBlocking(
                  HttpEndpoint.Request request) {
                return request.path().equals("/now")
                    ? Optional.of(answered("now"))
                    : Optional.empty();
              }
            });
  }

  static volatile String answeredOn;

  static HttpEndpoint.Response answered(String text) {
    answeredOn = Thread.currentThread().getName();
    return HttpEndpoint.Response.text(200, text);
  }

  @AfterAll
  static void stop() {
    endpoint.close();
  }

  Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", endpoint.address().getPort());
    socket.setSoTimeout(10_000);
    return socket;
  }

  static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  /** One response, read to the end of its body. */
  static String answer(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head.toString(StandardCharsets.US_ASCII));
      }
      head.write(b);
    }
    String headers = head.toString(StandardCharsets.US_ASCII);
    int length =
        Integer.parseInt(
            headers
                .lines()
                .filter(l -> l.toLowerCase().startsWith("content-length:"))
                .findFirst()
                .orElseThrow()
                .substring("content-length:".length())
                .trim());
    return headers.lines().findFirst().orElseThrow()
        + " "
        + new String(in.readNBytes(length), StandardCharsets.UTF_8).trim();
  }

  /** How long until the server closes {@code socket}, which must not answer meanwhile. */
  static Duration untilClosed(Socket socket) throws IOException {
    long start = System.nanoTime();
    assertThat(socket.getInputStream().read()).as("closed, nothing answered").isEqualTo(-1);
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Test
  void an_answer_had_without_blocking_is_sent_from_the_event_loop_and_the_others_from_the_pool()
      throws Exception {
    try (Socket socket = connect()) {
      send(socket, "GET /now HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(answer(socket)).isEqualTo("HTTP/1.1 200 OK now");
      assertThat(answeredOn).doesNotContain("-handler-");
      send(socket, GET);
      assertThat(answer(socket)).isEqualTo("HTTP/1.1 200 OK ok /x");
      assertThat(answeredOn).contains("test-handler-");
    }
  }

  @Test
  void a_connection_waits_for_its_next_request_longer_than_a_request_may_take() throws Exception {
    try (Socket socket = connect()) {
      send(socket, GET);
      assertThat(answer(socket)).isEqualTo("HTTP/1.1 200 OK ok /x");
      Thread.sleep(REQUEST.multipliedBy(2).toMillis());
      send(socket, GET);
      assertThat(answer(socket)).as("the same connection").isEqualTo("HTTP/1.1 200 OK ok /x");
    }
  }

  @Test
  void an_idle_connection_is_closed_at_the_idle_deadline() throws Exception {
    try (Socket socket = connect()) {
      send(socket, GET);
      answer(socket);
      assertThat(untilClosed(socket))
          .isGreaterThan(IDLE.minusMillis(300))
          .isLessThan(IDLE.plusMillis(1500));
    }
  }

  @Test
  void a_request_begun_after_a_pause_has_the_request_deadline_from_its_first_byte()
      throws Exception {
    try (Socket socket = connect()) {
      send(socket, GET);
      answer(socket);
      Thread.sleep(REQUEST.multipliedBy(2).toMillis());
      send(socket, "GET /x HTTP/1.1\r\n");
      assertThat(untilClosed(socket))
          .isGreaterThan(REQUEST.minusMillis(300))
          .isLessThan(REQUEST.plusMillis(1000));
    }
  }
}
