package dev.conclave.swarm.validation;

import java.util.regex.Pattern;

/**
 * The size limits of everything a request may carry; each is documented in docs/swarm.md. The protocol
 * operations' limits are checked by their SQL (swarm.check_&lt;operation&gt;, which spells the same numbers;
 * ErrorOrderTest and ChecksInSqlTest ask it with these); the admin requests' (task drafts) by Java.
 */
public final class Limits {

  public static final int ID_LENGTH = 128;
  public static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}");
  public static final String ID_RULE = "must be 1-128 letters, digits, '.', '_', ':', '@' or '-', starting with a letter or digit";

  public static final int NAME = 200;
  public static final int SKILLS = 64;
  public static final int SKILL = 64;
  public static final int TITLE = 500;
  public static final int TEXT = 20_000;
  public static final int SHORT_TEXT = 2_000;
  public static final int DETAILS = 100_000;
  public static final int PATHS = 1_000;
  public static final int PATH = 1_024;
  public static final int DEPENDENCIES = 100;
  public static final int EXCLUDE_IDS = 1_000;
  public static final int LEARNINGS = 50;
  public static final int LEARNING = 4_000;
  public static final int BRANCH = 200;
  /** A unique task's key (swarm.create_tasks checks the same). */
  public static final int UNIQUE_KEY = 256;
  /** How long a finished unique task may still stand for its key: a year. */
  public static final int UNIQUE_WINDOW_MINUTES = 525_600;
  public static final int PAYLOAD_BYTES = 64 * 1024;
  public static final long MESSAGE_EXPIRY_MS = 30L * 24 * 3600 * 1000;
  public static final int RECEIVE_LIMIT = 1_000;
  public static final int TASKS_PER_REQUEST = 1_000;
  /** The most tasks one bulk action may match (swarm.bulk_tasks refuses more, changing nothing). */
  public static final int BULK_TASKS = 10_000;
  public static final long MINUTES = 100_000;
  public static final long COUNT = 100_000_000;

  private Limits() {
  }
}
