package dev.conclave.e2e.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Dockerfile read into its stages and instructions, for tests that check it without a Docker
 * engine: comments and blank lines dropped, continuation lines joined, each {@code FROM image [AS
 * name]} starting a stage.
 */
record Dockerfile(List<Stage> stages) {

  private static final Pattern FROM = Pattern.compile("(?i)^FROM\\s+(?:--platform=\\S+\\s+)?(\\S+)(?:\\s+AS\\s+(\\S+))?\\s*$");

  /** One instruction: its keyword in upper case and the rest of the line. */
  record Instruction(String keyword, String args) {
  }

  /** A build stage: the image it starts from, its name (empty when it has none) and its instructions. */
  record Stage(String image, String name, List<Instruction> instructions) {

    List<String> args(String keyword) {
      return instructions.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::args).toList();
    }

    /** The last WORKDIR before the instruction at {@code index}, or "/". */
    String workdirAt(int index) {
      String dir = "/";
      for (int i = 0; i < index && i < instructions.size(); i++) {
        if (instructions.get(i).keyword().equals("WORKDIR")) {
          String w = instructions.get(i).args().strip();
          dir = w.startsWith("/") ? w : Path.of(dir).resolve(w).normalize().toString();
        }
      }
      return dir;
    }

    /** The repository of the image, without tag or digest ({@code node} for {@code node:24.20.0-trixie-slim}). */
    String imageRepository() {
      return image.replaceAll("[@:].*$", "");
    }

    /** The image's tag ({@code 24.20.0-trixie-slim}), empty when it has none. */
    String imageTag() {
      int at = image.indexOf('@');
      String ref = at < 0 ? image : image.substring(0, at);
      int colon = ref.lastIndexOf(':');
      return colon < 0 || ref.substring(colon).contains("/") ? "" : ref.substring(colon + 1);
    }
  }

  static Dockerfile read(Path file) throws IOException {
    List<String> logical = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String line = raw.strip();
      if (line.startsWith("#") || (line.isEmpty() && current.isEmpty())) {
        continue;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      current.append(line);
      logical.add(current.toString().strip());
      current.setLength(0);
    }
    if (!current.isEmpty()) {
      logical.add(current.toString().strip());
    }
    List<Stage> stages = new ArrayList<>();
    for (String line : logical) {
      Matcher from = FROM.matcher(line);
      if (from.matches()) {
        stages.add(new Stage(from.group(1), Optional.ofNullable(from.group(2)).orElse(""), new ArrayList<>()));
        continue;
      }
      if (stages.isEmpty()) {
        throw new IllegalStateException("an instruction before the first FROM: " + line);
      }
      String[] parts = line.split("\\s+", 2);
      stages.get(stages.size() - 1).instructions().add(new Instruction(parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1] : ""));
    }
    return new Dockerfile(List.copyOf(stages));
  }

  /** The stage named {@code name}, if any. */
  Optional<Stage> stage(String name) {
    return stages.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The last stage: the image that is built. */
  Stage image() {
    return stages.get(stages.size() - 1);
  }
}
