package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Format;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code conclave tokens issue|list|revoke}: a principal's API tokens ({@code POST} and
 * {@code GET /principals/{id}/tokens}, {@code DELETE /tokens/{id}}). Issuing is for admins; a
 * principal may list and revoke its own.
 */
@Command(name = "tokens", mixinStandardHelpOptions = true,
  subcommands = {TokensCommand.Issue.class, TokensCommand.ListTokens.class, TokensCommand.Revoke.class},
  description = "A principal's tokens: issue (admins), list and revoke (admins, or the principal itself).",
  footer = {"", "Example:", "  conclave tokens issue alice --ttl 7d", "  conclave tokens list alice", "  conclave tokens revoke 5b0c…"})
public final class TokensCommand implements Callable<Integer> {

  private static final Pattern DURATION = Pattern.compile("(\\d+)([smhd]?)");

  @Override
  public Integer call() {
    throw CliFailure.usage("give a subcommand: issue, list or revoke (conclave tokens --help)");
  }

  /** {@code 90} (seconds), {@code 90s}, {@code 15m}, {@code 12h} or {@code 30d}. */
  static Duration duration(String text) {
    Matcher m = DURATION.matcher(text.strip());
    if (!m.matches()) {
      throw CliFailure.usage("not a duration: " + text + " (give seconds, or a number with s, m, h or d, such as 30d)");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> Duration.ofSeconds(n);
    };
  }

  @Command(name = "issue", mixinStandardHelpOptions = true,
    description = "Issue a token for a principal (admins; default an api token for 30 days). The token is printed once, "
      + "here, and never again: keep it (in a file only you may read).",
    footer = {"", "Example:", "  conclave tokens issue alice --ttl 7d",
      "  conclave tokens issue alice -o json | jq -r .token > alice.token && chmod 600 alice.token"})
  static final class Issue implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PRINCIPAL", description = "The principal's id or name.")
    String principal;

    @Option(names = "--ttl", paramLabel = "DURATION", description = "How long it is good for: seconds, or 15m, 12h, 30d (default 30d).")
    String ttl;

    @Option(names = "--purpose", paramLabel = "PURPOSE", description = "api (default) or bridge.")
    String purpose;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      JsonObject body = new JsonObject();
      if (ttl != null) {
        body.put("ttlSeconds", duration(ttl).toSeconds());
      }
      if (purpose != null) {
        body.put("purpose", purpose);
      }
      try (Api api = target.api()) {
        String id = PrincipalRef.resolve(api, principal);
        JsonObject issued = api.post("/api/v1/gateway/principals/" + Api.seg(id) + "/tokens", body);
        Rendering.print(System.out, output.format, issued, List.of(issued), List.of(Column.field("TOKEN ID", "tokenId"),
          Column.field("PRINCIPAL", "principalId"), Column.field("PURPOSE", "purpose"), Column.field("EXPIRES", "expiresAt"),
          Column.field("TOKEN", "token")));
        if (output.format == Format.table) {
          System.err.println("the token is shown once: keep it now");
        }
        return 0;
      }
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
    description = "A principal's tokens, never their values (admins, or the principal itself).",
    footer = {"", "Example:", "  conclave tokens list alice", "  conclave tokens list 0f1e…-… -o json"})
  static final class ListTokens implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PRINCIPAL", description = "The principal's id (or, for admins, its name).")
    String principal;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        String id = PrincipalRef.resolve(api, principal);
        JsonObject doc = api.get("/api/v1/gateway/principals/" + Api.seg(id) + "/tokens");
        Rendering.print(System.out, output.format, doc, doc.getJsonArray("tokens").stream().map(JsonObject.class::cast).toList(),
          List.of(Column.field("TOKEN ID", "tokenId"), Column.field("PURPOSE", "purpose"), Column.field("ISSUED", "issuedAt"),
            Column.field("EXPIRES", "expiresAt"), Column.field("REVOKED", "revokedAt"), Column.field("LAST USED", "lastUsedAt")));
        return 0;
      }
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true,
    description = "Revoke one token (admins, or its principal): it stops working on every node at once, open streams included.",
    footer = {"", "Example:", "  conclave tokens revoke 5b0c2a9e-…"})
  static final class Revoke implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "TOKEN_ID", description = "The token's id (conclave tokens list).")
    String tokenId;

    @Mixin
    OutputOption output;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject answer = api.delete("/api/v1/gateway/tokens/" + Api.seg(tokenId));
        Rendering.print(System.out, output.format, answer, List.of(answer), List.of(Column.field("TOKEN ID", "tokenId"),
          Column.field("REVOKED", "revoked"), Column.field("CHANGED", "changed")));
        return 0;
      }
    }
  }
}
