package dev.conclave.gateway.sessions;

import dev.conclave.platform.errors.ConclaveException;

/** A registration the gateway refuses: answered with RegistrationError, then the stream's status. */
final class RegistrationRejected extends RuntimeException {

  final ConclaveException status;
  final String suggestedId;

  RegistrationRejected(ConclaveException status, String suggestedId) {
    super(status.getMessage(), null, false, false);
    this.status = status;
    this.suggestedId = suggestedId;
  }
}
