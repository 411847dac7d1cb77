package dev.conclave.agentruntime.backend.openai;

import io.vertx.core.buffer.Buffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a {@code text/event-stream} body into events and returns the {@code data} of each
 * (several {@code data:} lines of one event are joined with a newline, as the SSE format says).
 * Comments ({@code :} lines) and other fields are ignored. Bytes may arrive cut anywhere.
 */
final class SseDecoder {

  /** Longest event we accept; a server that sends more is broken, not streaming. */
  static final int MAX_EVENT_BYTES = 4 * 1024 * 1024;

  private final StringBuilder pending = new StringBuilder();
  private final StringBuilder data = new StringBuilder();
  private byte[] partial = new byte[0];
  private boolean hasData;

  /** Feeds bytes; returns the data of every event they completed. */
  List<String> feed(Buffer chunk) {
    byte[] bytes = chunk.getBytes();
    // keep an incomplete UTF-8 sequence at the end for the next chunk
    byte[] all = new byte[partial.length + bytes.length];
    System.arraycopy(partial, 0, all, 0, partial.length);
    System.arraycopy(bytes, 0, all, partial.length, bytes.length);
    int cut = completeUtf8Length(all);
    partial = java.util.Arrays.copyOfRange(all, cut, all.length);
    pending.append(new String(all, 0, cut, StandardCharsets.UTF_8));
    if (pending.length() + data.length() > MAX_EVENT_BYTES) {
      throw new IllegalStateException("server-sent event larger than " + MAX_EVENT_BYTES + " bytes");
    }
    List<String> events = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < pending.length(); i++) {
      char c = pending.charAt(i);
      if (c != '\n' && c != '\r') {
        continue;
      }
      String line = pending.substring(start, i);
      if (c == '\r' && i + 1 < pending.length() && pending.charAt(i + 1) == '\n') {
        i++;
      } else if (c == '\r' && i + 1 == pending.length()) {
        // a CR at the very end may be followed by LF in the next chunk: wait for it
        break;
      }
      start = i + 1;
      line(line, events);
    }
    pending.delete(0, start);
    return events;
  }

  private void line(String line, List<String> events) {
    if (line.isEmpty()) {
      if (hasData) {
        events.add(data.toString());
      }
      data.setLength(0);
      hasData = false;
      return;
    }
    if (line.startsWith(":")) {
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = colon < 0 ? "" : line.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    if (field.equals("data")) {
      if (hasData) {
        data.append('\n');
      }
      data.append(value);
      hasData = true;
    }
  }

  private static int completeUtf8Length(byte[] b) {
    int n = b.length;
    for (int back = 1; back <= 3 && back <= n; back++) {
      int x = b[n - back] & 0xff;
      if ((x & 0xC0) == 0x80) {
        continue;   // continuation byte: look further back for the lead byte
      }
      int need = x >= 0xF0 ? 4 : x >= 0xE0 ? 3 : x >= 0xC0 ? 2 : 1;
      return need > back ? n - back : n;
    }
    return n;
  }
}
