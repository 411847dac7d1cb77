package dev.conclave.swarm.support;

import dev.conclave.contract.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Every swarm event a node publishes, as dashboards would receive it. */
public final class EventLog implements AutoCloseable {

  private final ConcurrentLinkedQueue<JsonObject> events = new ConcurrentLinkedQueue<>();
  private final MessageConsumer<JsonObject> consumer;

  public EventLog(Vertx vertx) {
    this.consumer = vertx.eventBus().consumer(Addresses.SWARM_EVENTS, msg -> events.add(msg.body()));
    try {
      consumer.completion().await(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public List<JsonObject> all() {
    return List.copyOf(events);
  }

  public List<JsonObject> of(String kind, String event, String id) {
    return events.stream().filter(e -> kind.equals(e.getString("kind")) && event.equals(e.getString("event"))
      && (id == null || id.equals(e.getString("id")))).toList();
  }

  /** Waits until an event of this kind, name and entity has been published; returns the first. */
  public JsonObject await(String kind, String event, String id) {
    Waits.until(() -> !of(kind, event, id).isEmpty(), Duration.ofSeconds(10), kind + "." + event + " for " + id);
    return of(kind, event, id).get(0);
  }

  @Override
  public void close() {
    consumer.unregister();
  }
}
