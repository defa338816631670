package io.github.depothq.depot;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A small HTTP server inside the test (the JDK's own), for what a real depot cannot be made to do:
 * each request is answered by the {@link Responder} the test sets.
 */
final class LocalServer implements AutoCloseable {
  record Request(String method, String path, String query, Map<String, List<String>> headers, byte[] body) {
    Map<?, ?> json() throws Exception {
      return (Map<?, ?>) Json.parse(body);
    }

    /** The nonce the client sent: in the JSON body, else in the query. */
    String nonce() throws Exception {
      if (body.length > 0) return (String) json().get("nonce");
      return param("nonce");
    }

    String param(String name) {
      if (query == null) return null;
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0 && pair.substring(0, eq).equals(name)) {
          return java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        }
      }
      return null;
    }

    String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) return e.getValue().get(0);
      }
      return null;
    }
  }

  /** An answer: the status, headers and body bytes, sent after {@code delayMillis}. */
  record Reply(int status, Map<String, String> headers, byte[] body, long delayMillis) {
    Reply(int status, Map<String, String> headers, byte[] body) {
      this(status, headers, body, 0);
    }

    Reply withHeader(String name, String value) {
      Map<String, String> h = new java.util.LinkedHashMap<>(headers);
      h.put(name, value);
      return new Reply(status, h, body, delayMillis);
    }

    Reply withBody(byte[] other) {
      return new Reply(status, headers, other, delayMillis);
    }

    Reply delayed(long millis) {
      return new Reply(status, headers, body, millis);
    }

    static Reply plain(int status, String contentType, String body) {
      return new Reply(status, Map.of("Content-Type", contentType), body.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A reply header the server does not send: "N:MS" stalls the body after N bytes for MS ms. */
  static final String STALL_HEADER = "X-Test-Stall";

  interface Responder {
    Reply answer(Request request) throws Exception;
  }

  private final HttpServer server;
  private volatile Responder responder = r -> Reply.plain(404, "text/plain", "no responder");
  final List<Request> requests = Collections.synchronizedList(new ArrayList<>());

  LocalServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "local-server");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  void respond(Responder r) {
    requests.clear();
    responder = r;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
          exchange.getRequestURI().getRawQuery(), Map.copyOf(exchange.getRequestHeaders()), body);
      requests.add(request);
      Reply reply;
      try {
        reply = responder.answer(request);
      } catch (Exception e) {
        reply = Reply.plain(599, "text/plain", "responder failed: " + e);
      }
      if (reply.delayMillis() > 0) {
        try {
          Thread.sleep(reply.delayMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
      // STALL_HEADER "N:MS": send N bytes of the body, then nothing for MS milliseconds, then the rest.
      int stallAt = -1;
      long stallMillis = 0;
      for (Map.Entry<String, String> h : reply.headers().entrySet()) {
        if (h.getKey().equals(STALL_HEADER)) {
          String[] v = h.getValue().split(":");
          stallAt = Integer.parseInt(v[0]);
          stallMillis = Long.parseLong(v[1]);
        } else {
          exchange.getResponseHeaders().add(h.getKey(), h.getValue());
        }
      }
      byte[] out = reply.body() == null ? new byte[0] : reply.body();
      exchange.sendResponseHeaders(reply.status(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        try (OutputStream os = exchange.getResponseBody()) {
          if (stallAt >= 0) {
            os.write(out, 0, stallAt);
            os.flush();
            try {
              Thread.sleep(stallMillis);
            } catch (InterruptedException e) {
              return;
            }
            os.write(out, stallAt, out.length - stallAt);
          } else {
            os.write(out);
          }
        }
      }
    } catch (IOException e) {
      // the client went away (a timeout test): nothing to answer
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
