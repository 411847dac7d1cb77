package dev.conclave.gateway.model;

import java.util.Arrays;

/** Where a request is in its life: queued, dispatched to one agent session, then ended once. */
public enum RequestState {
  QUEUED("queued"),
  DISPATCHED("dispatched"),
  DONE("done"),
  ERROR("error"),
  CANCELLED("cancelled");

  private final String id;

  RequestState(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  public boolean ended() {
    return this == DONE || this == ERROR || this == CANCELLED;
  }

  public static RequestState of(String id) {
    return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst().orElseThrow();
  }
}
