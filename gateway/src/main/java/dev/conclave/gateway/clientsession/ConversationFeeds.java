package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.store.LedgerStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/** Where a session's {@link SessionFollower}s come from: the ledger, woken by the conversation's address on the event bus. */
public record ConversationFeeds(Vertx vertx, LedgerStore ledger) {

  SessionFollower follow(String conversationKey, Function<LedgerEvent, Future<Void>> sink, BooleanSupplier full, Consumer<Runnable> onDrain) {
    return new SessionFollower(vertx, ledger, conversationKey, sink, full, onDrain);
  }
}
