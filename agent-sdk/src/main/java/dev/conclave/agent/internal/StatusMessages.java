package dev.conclave.agent.internal;

import io.vertx.grpc.client.GrpcClientResponse;

import java.nio.charset.StandardCharsets;

/** Reads the gateway's {@code grpc-message}, from the headers of a trailers-only answer or from the trailers. */
public final class StatusMessages {

  private StatusMessages() {
  }

  public static String of(GrpcClientResponse<?, ?> response) {
    String inHeaders = response.statusMessage();
    if (inHeaders != null) {
      return inHeaders;
    }
    String inTrailers = response.trailers() == null ? null : response.trailers().get("grpc-message");
    return inTrailers == null ? "" : percentDecode(inTrailers);
  }

  /** {@code grpc-message} is percent-encoded UTF-8 (and, unlike a query string, '+' is a plus). */
  public static String percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()
        && Character.digit(s.charAt(i + 1), 16) >= 0 && Character.digit(s.charAt(i + 2), 16) >= 0) {
        out.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
        i += 2;
      } else {
        int cp = s.codePointAt(i);
        byte[] b = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
        out.write(b, 0, b.length);
        i += Character.charCount(cp) - 1;
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
