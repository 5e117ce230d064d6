package ai.gpustack.kvcache.webhook;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small HTTP/1.1 server on Netty's event loop for the webhook and the health endpoints, built so
 * that no client can hold it: connections wait on the event loop, not on a thread each; a TLS
 * handshake must finish, and a whole request arrive, within their deadlines, or the connection is
 * closed; a connection idle between requests is closed after its own; bodies are capped; beyond
 * {@code maxConnections} new connections are closed at once. A handler answers on the event loop
 * when it can without blocking, else on a pool of its own (it may read the API server), so the
 * event loop never waits. Thread-safe; stopped by {@link #close()}.
 */
public final class HttpEndpoint implements AutoCloseable {
  /** One request, whole. */
  public record Request(String method, String path, Optional<String> contentType, byte[] body) {}

  /** One answer: status, content type, body, and any extra headers. */
  public record Response(int status, String contentType, byte[] body, Map<String, String> headers) {
    /** A one-line text answer. */
    public static Response text(int status, String text) {
      return new Response(
          status,
          "text/plain; charset=utf-8",
          (text.endsWith("\n") ? text : text + "\n").getBytes(StandardCharsets.UTF_8),
          Map.of());
    }
  }

  /** Answers a request. */
  @FunctionalInterface
  public interface Handler {
    /** The answer, on a handler thread: may block. */
    Response handle(Request request);

    /**
     * The answer if it can be had without blocking, on the event loop: a hand-over to a handler
     * thread and back costs a request more than a short answer does. Empty hands the request to
     * {@link #handle}.
     */
    default Optional<Response> handleWithoutBlocking(Request request) {
      return Optional.empty();
    }
  }

  /**
   * How long and how much a client may take: a TLS handshake within {@code handshake}; each whole
   * request within {@code request} of the connection's opening or of the request's first byte; at
   * most {@code idle} between an answer and the next request's first byte; a body of at most {@code
   * maxBodyBytes}; at most {@code maxConnections} open at once. {@code eventLoops} threads move
   * bytes, {@code handlerThreads} answer.
   */
  public record Limits(
      int maxBodyBytes,
      Duration handshake,
      Duration request,
      Duration idle,
      int maxConnections,
      int eventLoops,
      int handlerThreads) {}

  private final Channel channel;
  private final NioEventLoopGroup loops;
  private final ExecutorService handlers;

  private HttpEndpoint(Channel channel, NioEventLoopGroup loops, ExecutorService handlers) {
    this.channel = channel;
    this.loops = loops;
    this.handlers = handlers;
  }

  /** Binds {@code address} and serves {@code handler}; over TLS with {@code tls} when given. */
  public static HttpEndpoint start(
      String name,
      InetSocketAddress address,
      Optional<SslContext> tls,
      Limits limits,
      Handler handler) {
    NioEventLoopGroup loops =
        new NioEventLoopGroup(limits.eventLoops(), new DefaultThreadFactory(name, true));
    AtomicInteger n = new AtomicInteger();
    ExecutorService handlers =
        Executors.newFixedThreadPool(
            limits.handlerThreads(),
            r -> {
              Thread t = new Thread(r, name + "-handler-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    AtomicInteger open = new AtomicInteger();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loops)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            // a restarted process binds its port again while the last one's connections linger
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (open.incrementAndGet() > limits.maxConnections()) {
                      open.decrementAndGet();
                      ch.close();
                      return;
                    }
                    ch.closeFuture().addListener(f -> open.decrementAndGet());
                    ChannelPipeline p = ch.pipeline();
                    tls.ifPresent(
                        ssl -> {
                          SslHandler h = ssl.newHandler(ch.alloc());
                          h.setHandshakeTimeoutMillis(limits.handshake().toMillis());
                          p.addLast(h);
                        });
                    Exchange exchange = new Exchange(limits, handler, handlers);
                    p.addLast(
                        new ChannelInboundHandlerAdapter() {
                          @Override
                          public void channelRead(ChannelHandlerContext ctx, Object bytes) {
                            exchange.bytesArrived(ctx);
                            ctx.fireChannelRead(bytes);
                          }
                        });
                    p.addLast(new HttpServerCodec(4096, 16 * 1024, 64 * 1024));
                    p.addLast(exchange);
                  }
                });
    ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      handlers.shutdownNow();
      throw new UncheckedIOException(
          "cannot listen on " + address,
          bound.cause() instanceof IOException io ? io : new IOException(bound.cause()));
    }
    return new HttpEndpoint(bound.channel(), loops, handlers);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /**
   * One connection's requests, one at a time: the body gathered up to the cap, the whole request
   * within its deadline (counted from the connection's opening, then from each request's first
   * byte), then answered on the event loop or, when that would block, the handler pool; between
   * answer and request, the idle deadline.
   */
  private static final class Exchange extends SimpleChannelInboundHandler<HttpObject> {
    private final Limits limits;
    private final Handler handler;
    private final ExecutorService handlers;
    private HttpRequest head;
    private ByteArrayOutputStream body;
    private boolean oversized;
    private ScheduledFuture<?> deadline;
    private boolean idle;

    Exchange(Limits limits, Handler handler, ExecutorService handlers) {
      this.limits = limits;
      this.handler = handler;
      this.handlers = handlers;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      arm(ctx, limits.request());
      super.channelActive(ctx);
    }

    /**
     * The next request's first bytes, on an idle connection: its deadline replaces the idle one.
     */
    void bytesArrived(ChannelHandlerContext ctx) {
      if (idle) {
        idle = false;
        disarm();
        arm(ctx, limits.request());
      }
    }

    private void arm(ChannelHandlerContext ctx, Duration within) {
      if (deadline == null) {
        deadline =
            ctx.executor()
                .schedule(
                    () -> {
                      ctx.close();
                    },
                    within.toMillis(),
                    TimeUnit.MILLISECONDS);
      }
    }

    private void disarm() {
      if (deadline != null) {
        deadline.cancel(false);
        deadline = null;
      }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
      if (msg instanceof HttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
          reply(ctx, false, Response.text(400, "the request could not be read"));
          return;
        }
        head = request;
        body = new ByteArrayOutputStream();
        oversized = HttpUtil.getContentLength(request, -1L) > limits.maxBodyBytes();
      }
      if (msg instanceof HttpContent content && head != null) {
        ByteBuf bytes = content.content();
        if (!oversized && body.size() + bytes.readableBytes() > limits.maxBodyBytes()) {
          oversized = true;
        }
        if (!oversized) {
          byte[] chunk = new byte[bytes.readableBytes()];
          bytes.readBytes(chunk);
          body.write(chunk, 0, chunk.length);
        }
        if (msg instanceof LastHttpContent) {
          disarm();
          HttpRequest request = head;
          head = null;
          boolean keepAlive = HttpUtil.isKeepAlive(request);
          if (oversized) {
            reply(
                ctx,
                keepAlive,
                Response.text(413, "the body is larger than " + limits.maxBodyBytes() + " bytes"));
            return;
          }
          Request whole =
              new Request(
                  request.method().name(),
                  new QueryStringDecoder(request.uri()).path(),
                  Optional.ofNullable(request.headers().get(HttpHeaderNames.CONTENT_TYPE)),
                  body.toByteArray());
          body = null;
          Optional<Response> now;
          try {
            now = handler.handleWithoutBlocking(whole);
          } catch (RuntimeException e) {
            now = Optional.of(internalError(e));
          }
          if (now.isPresent()) {
            reply(ctx, keepAlive, now.get());
            return;
          }
          ctx.channel().config().setAutoRead(false);
          try {
            handlers.execute(
                () -> {
                  Response response;
                  try {
                    response = handler.handle(whole);
                  } catch (RuntimeException e) {
                    response = internalError(e);
                  }
                  Response answer = response;
                  ctx.executor().execute(() -> reply(ctx, keepAlive, answer));
                });
          } catch (RejectedExecutionException e) {
            reply(ctx, false, Response.text(503, "shutting down"));
          }
        }
      }
    }

    private static Response internalError(RuntimeException e) {
      return Response.text(500, "internal error: " + e.getClass().getSimpleName());
    }

    private void reply(ChannelHandlerContext ctx, boolean keepAlive, Response response) {
      FullHttpResponse out =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(response.status()),
              Unpooled.wrappedBuffer(response.body()));
      out.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
      out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
      response.headers().forEach((k, v) -> out.headers().set(k, v));
      if (!keepAlive) {
        out.headers().set(HttpHeaderNames.CONNECTION, "close");
      }
      ctx.channel().config().setAutoRead(true);
      var written = ctx.writeAndFlush(out);
      if (keepAlive) {
        idle = true;
        arm(ctx, limits.idle());
      } else {
        written.addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      disarm();
      super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** Stops accepting, closes every connection, and lets handlers in flight end (two seconds). */
  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    handlers.shutdown();
    try {
      handlers.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
