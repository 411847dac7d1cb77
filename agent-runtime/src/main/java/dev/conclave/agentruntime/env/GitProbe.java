package dev.conclave.agentruntime.env;

import dev.conclave.agent.GitStatus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Reads the git state of the working directory for {@code AgentMetadata.git}: branch, commit,
 * whether the tree is dirty, the {@code origin} remote, and how far ahead of and behind its
 * upstream the branch is. Runs the {@code git} executable (blocking, a few milliseconds; called
 * once at start-up); no repository or no git gives nothing.
 */
public final class GitProbe {

  private GitProbe() {
  }

  public static Optional<GitStatus> probe(Path dir) {
    Optional<String> inside = git(dir, "rev-parse", "--is-inside-work-tree");
    if (inside.isEmpty() || !inside.get().equals("true")) {
      return Optional.empty();
    }
    String branch = git(dir, "rev-parse", "--abbrev-ref", "HEAD").orElse("");
    String commit = git(dir, "rev-parse", "HEAD").orElse("");
    boolean dirty = git(dir, "status", "--porcelain").map(s -> !s.isBlank()).orElse(false);
    String remote = git(dir, "remote", "get-url", "origin").orElse("");
    int ahead = 0;
    int behind = 0;
    Optional<String> counts = git(dir, "rev-list", "--left-right", "--count", "HEAD...@{upstream}");
    if (counts.isPresent()) {
      String[] parts = counts.get().split("\\s+");
      if (parts.length == 2) {
        ahead = Integer.parseInt(parts[0]);
        behind = Integer.parseInt(parts[1]);
      }
    }
    return Optional.of(new GitStatus(branch, commit, dirty, remote, ahead, behind));
  }

  private static Optional<String> git(Path dir, String... args) {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      return p.exitValue() == 0 ? Optional.of(new String(out, StandardCharsets.UTF_8).strip()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
