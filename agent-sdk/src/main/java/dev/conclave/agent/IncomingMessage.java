package dev.conclave.agent;

import java.util.List;

/**
 * Work for the agent: one {@code SendMessage} from the gateway.
 *
 * @param requestId every event answering this message carries it
 * @param threadId the conversation thread
 * @param sender who sent the message
 * @param content the message text
 * @param attachments files sent along
 * @param traceContext the request's trace context, to pass on with the agent's own calls
 *     ({@link TraceContext#NONE} when the gateway does not trace)
 */
public record IncomingMessage(String requestId, String threadId, String sender, String content,
                              List<Attachment> attachments, TraceContext traceContext) {

  public IncomingMessage {
    attachments = List.copyOf(attachments);
    traceContext = traceContext == null ? TraceContext.NONE : traceContext;
  }

  /** A message without a trace context. */
  public IncomingMessage(String requestId, String threadId, String sender, String content, List<Attachment> attachments) {
    this(requestId, threadId, sender, content, attachments, TraceContext.NONE);
  }
}
