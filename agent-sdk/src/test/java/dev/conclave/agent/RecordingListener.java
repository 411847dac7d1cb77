package dev.conclave.agent;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every connection lifecycle event. */
final class RecordingListener implements ConnectionListener {

  record Retry(Endpoint next, Duration delay, int attempt, Throwable lastFailure) {
  }

  final List<Session> registered = new CopyOnWriteArrayList<>();
  final List<Boolean> reconnectFlags = new CopyOnWriteArrayList<>();
  final List<Disconnect> disconnects = new CopyOnWriteArrayList<>();
  final List<Retry> retries = new CopyOnWriteArrayList<>();
  final List<String> stops = new CopyOnWriteArrayList<>();

  @Override
  public void onRegistered(Session session, boolean reconnect) {
    registered.add(session);
    reconnectFlags.add(reconnect);
  }

  @Override
  public void onDisconnected(Disconnect disconnect) {
    disconnects.add(disconnect);
  }

  @Override
  public void onRetryScheduled(Endpoint next, Duration delay, int attempt, Throwable lastFailure) {
    retries.add(new Retry(next, delay, attempt, lastFailure));
  }

  @Override
  public void onStopped(Throwable cause) {
    stops.add(String.valueOf(cause));
  }
}
