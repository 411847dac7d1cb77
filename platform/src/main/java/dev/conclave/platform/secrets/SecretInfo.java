package dev.conclave.platform.secrets;

import java.time.Instant;
import java.util.UUID;

/** What anyone may see of a secret: which one it is, when and by whom it was last set. Never its value. */
public record SecretInfo(SecretRef ref, Instant updatedAt, UUID updatedBy) {
}
