package dev.conclave.swarm.validation;

import dev.conclave.swarm.protocol.Operation;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Java and SQL speak one vocabulary: every enumeration the schema spells out (a CHECK constraint, a
 * list a function validates against) is exactly one of {@link Vocabulary}'s lists, in the same order;
 * every other list of words in the SQL (a status test such as {@code IN ('claimed', 'in_progress')})
 * only uses words of one of them; and the claim order (priority_rank) follows {@link Vocabulary#PRIORITIES}.
 */
class VocabularyTest {

  private static final Path SQL = Path.of("src/main/resources/db/swarm");
  /** A list of two or more quoted words, and what introduces it. */
  private static final Pattern LIST = Pattern.compile(
    "(ARRAY\\[|CHECK \\(\\w+ IN \\(|IN \\()\\s*('[^']*'(?:\\s*,\\s*'[^']*')+)\\s*[\\])]");
  private static final Pattern WORD = Pattern.compile("'([^']*)'");

  private static Map<String, List<String>> vocabularies() {
    Map<String, List<String>> all = new LinkedHashMap<>();
    all.put("AGENT_TYPES", Vocabulary.AGENT_TYPES);
    all.put("AGENT_STATUSES", Vocabulary.AGENT_STATUSES);
    all.put("STORED_AGENT_STATUSES", Vocabulary.STORED_AGENT_STATUSES);
    all.put("PRIORITIES", Vocabulary.PRIORITIES);
    all.put("TASK_TYPES", Vocabulary.TASK_TYPES);
    all.put("TASK_STATUSES", Vocabulary.TASK_STATUSES);
    all.put("PHASES", Vocabulary.PHASES);
    all.put("FAILURE_TYPES", Vocabulary.FAILURE_TYPES);
    all.put("MESSAGE_TYPES", Vocabulary.MESSAGE_TYPES);
    all.put("COMMAND_TYPES", Vocabulary.COMMAND_TYPES);
    all.put("REVIEW_DECISIONS", Vocabulary.REVIEW_DECISIONS);
    all.put("EVENT_KINDS", Vocabulary.EVENT_KINDS);
    all.put("Operation", Arrays.stream(Operation.values()).map(Enum::name).toList());
    return all;
  }

  private record SqlList(String file, String introducer, List<String> words) {
    boolean enumeration() {
      return introducer.startsWith("ARRAY") || introducer.startsWith("CHECK");
    }
  }

  private static List<SqlList> sqlLists() throws IOException {
    List<SqlList> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(SQL)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".sql")).sorted().toList()) {
        Matcher m = LIST.matcher(Files.readString(f));
        while (m.find()) {
          List<String> words = new ArrayList<>();
          Matcher w = WORD.matcher(m.group(2));
          while (w.find()) {
            words.add(w.group(1));
          }
          out.add(new SqlList(f.getFileName().toString(), m.group(1), words));
        }
      }
    }
    return out;
  }

  @Test
  void everyEnumerationInTheSqlIsOneOfTheJavaVocabularies() throws IOException {
    List<SqlList> lists = sqlLists();
    assertThat(lists.stream().filter(SqlList::enumeration)).as("enumerations found in the SQL").hasSizeGreaterThan(10);
    for (SqlList list : lists) {
      if (list.enumeration()) {
        assertThat(vocabularies().values()).as("%s: %s %s is exactly a Vocabulary list", list.file(), list.introducer(), list.words())
          .contains(list.words());
      } else {
        assertThat(vocabularies().values()).as("%s: every word of %s belongs to one Vocabulary list", list.file(), list.words())
          .anyMatch(v -> v.containsAll(list.words()));
      }
    }
  }

  @Test
  void everyJavaVocabularyTheDatabaseChecksIsSpelledOutThere() throws IOException {
    List<List<String>> spelled = sqlLists().stream().map(SqlList::words).toList();
    for (Map.Entry<String, List<String>> v : vocabularies().entrySet()) {
      assertThat(spelled).as("the SQL spells out %s %s", v.getKey(), v.getValue()).contains(v.getValue());
    }
  }

  /** The versioned migrations, in the order Flyway applies them. */
  private static List<Path> versionedMigrations() throws IOException {
    try (Stream<Path> files = Files.list(SQL)) {
      return files.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql"))
        .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().replaceAll("^V(\\d+)__.*", "$1"))))
        .toList();
    }
  }

  @Test
  void theClaimOrderFollowsThePriorities() throws IOException {
    // the newest migration that (re)defines priority_rank holds the claim order in force
    Pattern rankCase = Pattern.compile("CASE priority((?:\\s+WHEN '[^']+' THEN \\d+)+)\\s+ELSE (\\d+) END");
    Matcher rank = null;
    for (Path migration : versionedMigrations()) {
      Matcher m = rankCase.matcher(Files.readString(migration));
      if (m.find()) {
        rank = m;
      }
    }
    assertThat(rank).as("priority_rank's CASE in a versioned migration").isNotNull();
    Matcher when = Pattern.compile("WHEN '([^']+)' THEN (\\d+)").matcher(rank.group(1));
    List<String> order = new ArrayList<>();
    while (when.find()) {
      assertThat(Integer.parseInt(when.group(2))).isEqualTo(order.size());
      order.add(when.group(1));
    }
    // the ELSE is the one priority left (its domain allows no other), ranked last
    assertThat(Integer.parseInt(rank.group(2))).isEqualTo(order.size());
    assertThat(order).isEqualTo(Vocabulary.PRIORITIES.subList(0, Vocabulary.PRIORITIES.size() - 1));
  }
}
