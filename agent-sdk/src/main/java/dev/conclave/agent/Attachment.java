package dev.conclave.agent;

/** A file that came with a message. */
public record Attachment(String filename, String mimeType, byte[] data) {
}
