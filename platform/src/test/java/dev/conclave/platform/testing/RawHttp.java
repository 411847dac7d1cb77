package dev.conclave.platform.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 request over its own socket, sent byte for byte as given (a URI that is not valid
 * percent-encoding, any method, any header), and its response read until the node closes the
 * connection ({@code connection: close}). Tests of bad input use it instead of Vert.x's client: that
 * client sometimes loses the end of a response whose connection closes as it arrives (the close is
 * seen before the response, and the body never completes), which made correct answers look like
 * hangs.
 */
public final class RawHttp {

  /** A response; {@code status} is -1 when none came within the timeout, with the reason in {@code body}. */
  public record Response(int status, Map<String, String> headers, String body) {

    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private RawHttp() {
  }

  /** Sends the request and waits up to {@code timeoutMs} for the whole response. Header names in {@code headers} are sent as given. */
  public static Response send(int port, String method, String uri, Map<String, String> headers, byte[] body, int timeoutMs) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
      socket.setSoTimeout(timeoutMs);
      StringBuilder head = new StringBuilder().append(method).append(' ').append(uri).append(" HTTP/1.1\r\n")
        .append("host: 127.0.0.1:").append(port).append("\r\nconnection: close\r\n");
      headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
      if (body != null) {
        head.append("content-length: ").append(body.length).append("\r\n");
      }
      head.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      if (body != null) {
        // written beside the reading: the node may answer (413, 415) before it has taken the whole body
        Thread writer = new Thread(() -> {
          try {
            out.write(body);
            out.flush();
          } catch (IOException e) {
            // the node closed before taking it all: its answer is read all the same
          }
        }, "raw-http-body");
        writer.setDaemon(true);
        writer.start();
      }
      return parse(readAll(socket.getInputStream(), socket, deadline), "HEAD".equals(method));
    } catch (SocketTimeoutException e) {
      return new Response(-1, Map.of(), "no answer within " + timeoutMs + " ms");
    } catch (IOException e) {
      return new Response(-1, Map.of(), "no answer: " + e);
    }
  }

  private static byte[] readAll(InputStream in, Socket socket, long deadline) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] buffer = new byte[16 * 1024];
    while (true) {
      int left = (int) (deadline - System.currentTimeMillis());
      if (left <= 0) {
        throw new SocketTimeoutException("response not complete");
      }
      socket.setSoTimeout(left);
      int n;
      try {
        n = in.read(buffer);
      } catch (java.net.SocketException e) {
        n = -1; // a reset after the answer: what arrived is the answer
      }
      if (n < 0) {
        return bytes.toByteArray();
      }
      bytes.write(buffer, 0, n);
    }
  }

  private static Response parse(byte[] raw, boolean head) throws IOException {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("the connection closed without a whole response (" + raw.length + " bytes)");
    }
    String[] lines = text.substring(0, end).split("\r\n");
    String[] status = lines[0].split(" ", 3);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
      }
    }
    byte[] rest = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
    byte[] body = head ? new byte[0]
      : "chunked".equalsIgnoreCase(headers.get("transfer-encoding")) ? dechunk(rest)
      : headers.containsKey("content-length") ? java.util.Arrays.copyOf(rest, Math.min(rest.length, Integer.parseInt(headers.get("content-length"))))
      : rest;
    return new Response(Integer.parseInt(status[1]), headers, new String(body, StandardCharsets.UTF_8));
  }

  private static byte[] dechunk(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = 0;
    while (at < raw.length) {
      int lineEnd = indexOf(raw, at);
      if (lineEnd < 0) {
        break;
      }
      String size = new String(raw, at, lineEnd - at, StandardCharsets.ISO_8859_1).split(";")[0].trim();
      int length = size.isEmpty() ? 0 : Integer.parseInt(size, 16);
      if (length == 0) {
        break;
      }
      int start = lineEnd + 2;
      out.write(raw, start, Math.min(length, raw.length - start));
      at = start + length + 2;
    }
    return out.toByteArray();
  }

  private static int indexOf(byte[] raw, int from) {
    for (int i = from; i + 1 < raw.length; i++) {
      if (raw[i] == '\r' && raw[i + 1] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
