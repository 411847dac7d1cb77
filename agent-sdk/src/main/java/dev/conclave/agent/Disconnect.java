package dev.conclave.agent;

import java.util.Optional;

/**
 * A registered session ended.
 *
 * @param session the session that ended
 * @param cause why, when it was a failure (empty when the stream closed cleanly, for example after a Shutdown)
 * @param shutdownReason the reason of the gateway's {@code Shutdown}, when one preceded the end
 * @param willReconnect whether the client is going to connect again
 */
public record Disconnect(Session session, Optional<Throwable> cause, Optional<String> shutdownReason,
                         boolean willReconnect) {
}
