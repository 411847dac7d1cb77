package dev.conclave.agent;

/** Repository state of the agent's working directory, reported at registration. */
public record GitStatus(String branch, String commit, boolean dirty, String remote, int ahead, int behind) {

  public GitStatus {
    branch = branch == null ? "" : branch;
    commit = commit == null ? "" : commit;
    remote = remote == null ? "" : remote;
  }
}
