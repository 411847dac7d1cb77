package dev.conclave.e2e.faults;

import dev.conclave.platform.config.PgUrl;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a gateway history ({@link GatewayLoad}, {@link GatewayOps}) against what the gateway
 * committed to PostgreSQL: (a) {@value RequestEndings#NAME}, (b) {@value StreamResumes#NAME},
 * (c) {@value OneInFlight#NAME}, (d) {@value AckedMessages#NAME}, (e) {@value Deliveries#NAME}.
 * {@link #check(History, PgUrl)} reads the ledger; {@link #check(History, GatewayLedger)} is the pure
 * logic, for hand-made ledgers.
 */
public final class GatewayChecker {

  private GatewayChecker() {
  }

  /** Reads the ledger and mailbox of every conversation the history names, then checks. */
  public static Verdict check(History history, PgUrl db) {
    return check(history, GatewayLedger.read(db, conversations(history)));
  }

  public static Verdict check(History history, GatewayLedger ledger) {
    GatewayFacts facts = new GatewayFacts(history, ledger);
    return new Verdict("gateway", List.of(
      RequestEndings.check(facts),
      StreamResumes.check(facts),
      OneInFlight.check(facts),
      AckedMessages.check(facts),
      Deliveries.check(facts)));
  }

  /** The conversations a history's sends and followers name. */
  public static Set<String> conversations(History history) {
    Set<String> out = new TreeSet<>();
    for (Op op : history.ops()) {
      op.get(GatewayOps.CONVERSATION).ifPresent(out::add);
    }
    return out;
  }
}
