package dev.conclave.platform.errors;

/**
 * A failure meant for the caller: a kind (which decides the wire status), a stable machine-readable
 * code such as {@code token_expired}, and a human-readable detail.
 */
public class ConclaveException extends RuntimeException {

  private final ErrorKind kind;
  private final String code;

  public ConclaveException(ErrorKind kind, String code, String detail) {
    super(detail, null, false, false);
    this.kind = kind;
    this.code = code;
  }

  public ErrorKind kind() {
    return kind;
  }

  public String code() {
    return code;
  }

  public String detail() {
    return getMessage();
  }

  public static ConclaveException invalid(String code, String detail) {
    return new ConclaveException(ErrorKind.INVALID_ARGUMENT, code, detail);
  }

  public static ConclaveException notFound(String code, String detail) {
    return new ConclaveException(ErrorKind.NOT_FOUND, code, detail);
  }

  public static ConclaveException denied(String detail) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "permission_denied", detail);
  }
}
