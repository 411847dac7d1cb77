package dev.conclave.agent.backend;

import dev.conclave.agent.IncomingMessage;

import java.util.Optional;

/**
 * The conversation a prompt belongs to.
 *
 * @param threadId the gateway's conversation thread; backend sessions are kept per thread
 * @param resumeSessionId the backend session to resume, when this thread has one
 * @param message the full incoming message (sender, attachments)
 */
public record BackendSession(String threadId, Optional<String> resumeSessionId, IncomingMessage message) {
}
