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
 */
public record IncomingMessage(String requestId, String threadId, String sender, String content,
                              List<Attachment> attachments) {

  public IncomingMessage {
    attachments = List.copyOf(attachments);
  }
}
