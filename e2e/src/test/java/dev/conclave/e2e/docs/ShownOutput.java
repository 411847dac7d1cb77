package dev.conclave.e2e.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The output a page shows after a shell example, as a check on what the example printed. Each shown
 * line must appear, in order, within a line of the output; {@code …} in a shown line stands for any
 * text (an id, a time, a token). Ports are shown with their defaults ({@code :8080},
 * {@code :50051}); they stand for the ports the node really uses, which the docs test moves with
 * {@code CONCLAVE_HTTP_PORT} and {@code CONCLAVE_GRPC_PORT}.
 */
final class ShownOutput {

  static final String ANY = "…";

  private final List<String> shown;
  private final List<Pattern> patterns;

  ShownOutput(List<String> shown, int httpPort, int grpcPort) {
    this.shown = shown.stream().filter(l -> !l.isBlank()).toList();
    this.patterns = this.shown.stream().map(l -> pattern(l, httpPort, grpcPort)).toList();
  }

  /** Empty when every shown line appears in order in {@code output}; else the first shown line that does not. */
  Optional<String> firstMissing(List<String> output) {
    int at = 0;
    for (int i = 0; i < patterns.size(); i++) {
      Pattern p = patterns.get(i);
      while (at < output.size() && !p.matcher(output.get(at)).find()) {
        at++;
      }
      if (at == output.size()) {
        return Optional.of(shown.get(i));
      }
      at++;
    }
    return Optional.empty();
  }

  private static Pattern pattern(String line, int httpPort, int grpcPort) {
    String text = line.strip()
      .replaceAll(":8080(?!\\d)", ":" + httpPort)
      .replaceAll(":50051(?!\\d)", ":" + grpcPort);
    List<String> parts = new ArrayList<>();
    for (String part : text.split(Pattern.quote(ANY), -1)) {
      parts.add(Pattern.quote(part));
    }
    return Pattern.compile(String.join(".*?", parts));
  }
}
