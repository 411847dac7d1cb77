package dev.conclave.packs.builtin.ui;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.GatewayCalls;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.List;

/** {@code builtin:ui}: tools that involve the agent's human, today {@code ask_user}. */
public final class UiPack {

  public static final String ID = "builtin:ui";
  public static final String CAPABILITY = "ui";

  private UiPack() {
  }

  public static BuiltinPack create(Vertx vertx, GatewayCalls gateway, QuestionWaiters waiters, Duration maxWait) {
    return new BuiltinPack(ID, CAPABILITY, List.of(new AskUser(vertx, gateway, waiters, maxWait)));
  }
}
