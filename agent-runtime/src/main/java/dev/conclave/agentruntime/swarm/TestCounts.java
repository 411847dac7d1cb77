package dev.conclave.agentruntime.swarm;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test counts read from a quality command's output, for the forms the common test runners print:
 * Maven Surefire/Failsafe ({@code Tests run: 42, Failures: 1, Errors: 0, Skipped: 2}, the last such
 * line is the total), Jest ({@code Tests: 1 failed, 5 passed, 6 total}), pytest
 * ({@code === 1 failed, 40 passed in 2.1s ===}), cargo ({@code test result: ok. 12 passed; 0 failed},
 * summed over its lines), TAP and {@code node --test} ({@code # pass 5}, {@code # fail 1}) and
 * {@code go test -v} ({@code --- PASS:} / {@code --- FAIL:} lines). Skipped tests count as not run.
 * Empty when none of them is found.
 */
record TestCounts(long ran, long passed) {

  private static final Pattern SUREFIRE = Pattern.compile("Tests run: (\\d+), Failures: (\\d+), Errors: (\\d+), Skipped: (\\d+)");
  private static final Pattern JEST = Pattern.compile("(?m)^Tests:\\s+(.*\\d+ total)");
  private static final Pattern PYTEST = Pattern.compile("(?m)^=+ (.*\\d+ (?:passed|failed).*?) in [0-9.]+s.*=+\\s*$");
  private static final Pattern CARGO = Pattern.compile("test result: \\w+\\. (\\d+) passed; (\\d+) failed");
  private static final Pattern TAP_PASS = Pattern.compile("(?m)^# pass (\\d+)\\s*$");
  private static final Pattern TAP_FAIL = Pattern.compile("(?m)^# fail (\\d+)\\s*$");
  private static final Pattern GO = Pattern.compile("(?m)^\\s*--- (PASS|FAIL): ");
  private static final Pattern COUNT = Pattern.compile("(\\d+) (passed|failed|errors?|error)");

  static Optional<TestCounts> parse(String output) {
    Matcher m = SUREFIRE.matcher(output);
    TestCounts last = null;
    while (m.find()) {
      long run = Long.parseLong(m.group(1));
      long bad = Long.parseLong(m.group(2)) + Long.parseLong(m.group(3));
      long skipped = Long.parseLong(m.group(4));
      last = new TestCounts(Math.max(0, run - skipped), Math.max(0, run - skipped - bad));
    }
    if (last != null) {
      return Optional.of(last);
    }
    Optional<TestCounts> words = lastOf(JEST, output).or(() -> lastOf(PYTEST, output));
    if (words.isPresent()) {
      return words;
    }
    m = CARGO.matcher(output);
    long passed = 0;
    long failed = 0;
    boolean found = false;
    while (m.find()) {
      found = true;
      passed += Long.parseLong(m.group(1));
      failed += Long.parseLong(m.group(2));
    }
    if (found) {
      return Optional.of(new TestCounts(passed + failed, passed));
    }
    Matcher pass = TAP_PASS.matcher(output);
    Matcher fail = TAP_FAIL.matcher(output);
    long p = -1;
    long f = 0;
    while (pass.find()) {
      p = Long.parseLong(pass.group(1));
    }
    while (fail.find()) {
      f = Long.parseLong(fail.group(1));
    }
    if (p >= 0) {
      return Optional.of(new TestCounts(p + f, p));
    }
    m = GO.matcher(output);
    long goPass = 0;
    long goFail = 0;
    while (m.find()) {
      if (m.group(1).equals("PASS")) {
        goPass++;
      } else {
        goFail++;
      }
    }
    return goPass + goFail > 0 ? Optional.of(new TestCounts(goPass + goFail, goPass)) : Optional.empty();
  }

  /** The counts in the last line {@code summary} matches: "N passed", "N failed", "N error(s)". */
  private static Optional<TestCounts> lastOf(Pattern summary, String output) {
    Matcher m = summary.matcher(output);
    String line = null;
    while (m.find()) {
      line = m.group(1);
    }
    if (line == null) {
      return Optional.empty();
    }
    long passed = 0;
    long bad = 0;
    Matcher c = COUNT.matcher(line);
    while (c.find()) {
      long n = Long.parseLong(c.group(1));
      if (c.group(2).equals("passed")) {
        passed += n;
      } else {
        bad += n;
      }
    }
    return Optional.of(new TestCounts(passed + bad, passed));
  }
}
