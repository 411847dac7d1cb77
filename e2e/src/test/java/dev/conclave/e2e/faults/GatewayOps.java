package dev.conclave.e2e.faults;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The vocabulary of gateway histories: the functions {@link GatewayLoad} records and
 * {@link GatewayChecker} reads, and the members of their data. Hand-made histories in tests use the
 * same names.
 *
 * <ul>
 *   <li>{@code send} (client-N): invoke value = idempotency key, data conversation; ok data messageId
 *       (empty for a duplicate), status (accepted or duplicate); fail (certainly not accepted) or info
 *       (may have been) with error.</li>
 *   <li>{@code event} (follower-N, observed): value = the request id the event belongs to when the
 *       stream shows it, data conversation, id (its position: since + k), kind (the ledger kind as the
 *       stream shows it: inbound, text, done, error...), eventId (the id the event itself carries:
 *       inbound and other whole-entry events only), stream (which StreamEvents call of the follower).</li>
 *   <li>{@code resume} (follower-N, observed): a StreamEvents call opened, data conversation, since,
 *       stream, endpoint.</li>
 *   <li>{@code connected}, {@code deliver}, {@code answer}, {@code lost} (agent-N, observed): data agent,
 *       session (numbered per agent), for connected server, for deliver inFlight (unanswered requests on
 *       the session when it arrived); value = the request id for deliver and answer.</li>
 * </ul>
 */
public final class GatewayOps {

  public static final String SEND = "send";
  public static final String EVENT = "event";
  public static final String RESUME = "resume";
  public static final String CONNECTED = "connected";
  public static final String DELIVER = "deliver";
  public static final String ANSWER = "answer";
  public static final String LOST = "lost";

  public static final String CONVERSATION = "conversation";
  public static final String MESSAGE_ID = "messageId";
  public static final String STATUS = "status";
  public static final String ERROR = "error";
  public static final String ID = "id";
  public static final String KIND = "kind";
  public static final String EVENT_ID = "eventId";
  public static final String STREAM = "stream";
  public static final String SINCE = "since";
  public static final String ENDPOINT = "endpoint";
  public static final String AGENT = "agent";
  public static final String SESSION = "session";
  public static final String SERVER = "server";
  public static final String IN_FLIGHT = "inFlight";

  private static final Pattern ANSWER_TEXT = Pattern.compile("answer from (\\S+) to ([0-9a-f-]{36})");

  private GatewayOps() {
  }

  /** What a load agent answers, naming the request so followers can tell whose text and done they see. */
  public static String answerText(String agentId, String requestId) {
    return "answer from " + agentId + " to " + requestId;
  }

  /** The request id in an answer's text, if it is one of ours. */
  public static Optional<String> requestIn(String text) {
    Matcher m = ANSWER_TEXT.matcher(text == null ? "" : text);
    return m.find() ? Optional.of(m.group(2)) : Optional.empty();
  }

  /**
   * The kind of a ledger event as a stream shows it: text, done, error and the like by their payload,
   * whole-entry events by their {@code raw_transport}. A cancelled request ends with a StreamError
   * on the stream, so {@code cancelled} shows as {@code error}.
   */
  public static String streamKind(String ledgerKind) {
    return "cancelled".equals(ledgerKind) ? "error" : ledgerKind;
  }

  /** Whether a ledger kind ends its request. */
  public static boolean terminal(String ledgerKind) {
    return "done".equals(ledgerKind) || "error".equals(ledgerKind) || "cancelled".equals(ledgerKind);
  }
}
