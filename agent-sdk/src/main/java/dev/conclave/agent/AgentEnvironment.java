package dev.conclave.agent;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where and how the agent runs; sent as {@code RegisterAgent.metadata}.
 *
 * @param workingDirectory the directory the agent works in
 * @param hostname the machine's name
 * @param os operating system, for example {@code linux}
 * @param workspaces tags clients filter agents by
 * @param backend kind of backend, for example {@code mux}, {@code cli}, {@code acp} or {@code direct}
 * @param git repository state of the working directory, when it is a repository
 */
public record AgentEnvironment(String workingDirectory, String hostname, String os, List<String> workspaces,
                               String backend, Optional<GitStatus> git) {

  public AgentEnvironment {
    workingDirectory = workingDirectory == null ? "" : workingDirectory;
    hostname = hostname == null ? "" : hostname;
    os = os == null ? "" : os;
    workspaces = workspaces == null ? List.of() : List.copyOf(workspaces);
    backend = backend == null ? "" : backend;
    git = git == null ? Optional.empty() : git;
  }

  /** An environment with every field empty. */
  public static AgentEnvironment empty() {
    return new AgentEnvironment("", "", "", List.of(), "", Optional.empty());
  }

  /**
   * The environment of this JVM: working directory, host name (from {@code HOSTNAME} or a local
   * lookup, which may touch DNS: call it outside event loops) and OS name. No workspaces, no backend, no git.
   */
  public static AgentEnvironment detect() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        host = "";
      }
    }
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("mac")) {
      os = "darwin";
    } else if (os.startsWith("windows")) {
      os = "windows";
    }
    return new AgentEnvironment(System.getProperty("user.dir", ""), host, os, List.of(), "", Optional.empty());
  }

  public AgentEnvironment withWorkspaces(List<String> workspaces) {
    return new AgentEnvironment(workingDirectory, hostname, os, workspaces, backend, git);
  }

  public AgentEnvironment withBackend(String backend) {
    return new AgentEnvironment(workingDirectory, hostname, os, workspaces, backend, git);
  }

  public AgentEnvironment withGit(GitStatus git) {
    return new AgentEnvironment(workingDirectory, hostname, os, workspaces, backend, Optional.ofNullable(git));
  }

  public AgentEnvironment withWorkingDirectory(String workingDirectory) {
    return new AgentEnvironment(workingDirectory, hostname, os, workspaces, backend, git);
  }
}
