package dev.conclave.platform.auth;

/** Reads the token out of an {@code authorization: Bearer <token>} header value. */
public final class Bearer {

  private Bearer() {
  }

  public static String token(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw AuthErrors.missingToken();
    }
    String value = authorization.trim();
    int space = value.indexOf(' ');
    if (space < 0 || !value.substring(0, space).equalsIgnoreCase("bearer")) {
      throw AuthErrors.malformedHeader();
    }
    String token = value.substring(space + 1).trim();
    if (token.isEmpty()) {
      throw AuthErrors.missingToken();
    }
    return token;
  }
}
