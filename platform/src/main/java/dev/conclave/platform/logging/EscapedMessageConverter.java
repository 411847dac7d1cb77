package dev.conclave.platform.logging;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * The node's {@code %msg} (also {@code %m} and {@code %message}): the formatted message with every
 * character that could forge or disguise a log line escaped, so that one event is one line whatever
 * a client put in the values it carries (an agent id, a header, a feature name). It is the one place
 * untrusted text is made safe for the log; the log configurations name it for those conversion words.
 *
 * <p>Escaped: CR, LF and tab as {@code \r}, {@code \n}, {@code \t}; every other C0 control (NUL
 * included), DEL and the C1 controls, the line and paragraph separators (U+2028, U+2029) and the
 * bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069) as {@code \}{@code uXXXX}. Everything else, other scripts and emoji included, is
 * written as it is. Stack traces ({@code %ex}) are not touched.
 */
public final class EscapedMessageConverter extends MessageConverter {

  @Override
  public String convert(ILoggingEvent event) {
    return escape(event.getFormattedMessage());
  }

  /** {@code text} with the characters above escaped; the same instance when it has none. */
  public static String escape(String text) {
    if (text == null) {
      return null;
    }
    int first = 0;
    while (first < text.length() && !escaped(text.charAt(first))) {
      first++;
    }
    if (first == text.length()) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!escaped(c)) {
        out.append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\t') {
        out.append("\\t");
      } else {
        out.append(String.format("\\u%04X", (int) c));
      }
    }
    return out.toString();
  }

  /** Controls, line and paragraph separators, bidirectional formatting (all in the BMP: chars suffice). */
  static boolean escaped(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f)
      || c == '\u2028' || c == '\u2029'
      || c == '\u061c' || c == '\u200e' || c == '\u200f'
      || (c >= '\u202a' && c <= '\u202e')
      || (c >= '\u2066' && c <= '\u2069');
  }
}
