package dev.conclave.gateway.mailbox;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's message reaches its INSERT in three files: the edge handler that accepts it
 * ({@code api/ClientServiceEndpoint}'s SendMessage), the class it hands the message to, which checks,
 * routes and writes it with its own statement ({@link Mailbox}), and that statement's {@code .sql}
 * file. The commit layer ({@code commit/}) stays the shared, generic one every ledger write runs
 * through, and knows no message. Reads the sources, so a layer added in between fails here.
 */
class MessagePathTest {

  private static final Path MAIN = Path.of("src/main/java/dev/conclave/gateway");
  private static final Path RESOURCES = Path.of("src/main/resources/dev/conclave/gateway");
  /** The statement that writes a client's message (its request and its inbound ledger event). */
  private static final Pattern STATEMENT = Pattern.compile("(?i)enqueue_?with_?inbound");
  /** The gRPC edge's SendMessage handler and the field it hands the message to. */
  private static final Pattern SEND_MESSAGE = Pattern.compile("ClientServiceGrpcService\\.SendMessage,[^;]*?\\b(\\w+)\\.send\\(");

  @Test
  void aMessageReachesItsInsertInThreeFiles() {
    Path edge = MAIN.resolve("api/ClientServiceEndpoint.java");
    String edgeCode = code(edge);
    Matcher send = SEND_MESSAGE.matcher(edgeCode);
    assertThat(send.find()).as("ClientServiceEndpoint's SendMessage hands the message to a field's send(...)").isTrue();
    Matcher field = Pattern.compile("private final (\\w+) " + send.group(1) + ";").matcher(edgeCode);
    assertThat(field.find()).as("the type of ClientServiceEndpoint's field " + send.group(1)).isTrue();
    String intake = field.group(1);

    List<Path> holders = javaNaming(STATEMENT);
    assertThat(holders).as("the Java files whose code names the message's statement").hasSize(1);
    Path holder = holders.get(0);
    assertThat(holder.getFileName().toString())
      .as("the statement is bound by the class the edge hands the message to, not one layer further on")
      .isEqualTo(intake + ".java");
    String holderCode = code(holder);
    assertThat(holderCode).as(intake + " writes through the commit layer itself").contains("writer.writeStatement(");

    List<Path> sqlFiles = sqlNaming("-- name: EnqueueWithInbound");
    assertThat(sqlFiles).as("the .sql files that hold the message's statement").hasSize(1);
    Path sql = sqlFiles.get(0);
    assertThat(holderCode).as(intake + " reads its statement from its own .sql file")
      .contains("SqlFile.of(" + intake + ".class, \"" + sql.getFileName() + "\")");
    assertThat(sql.getParent().getFileName()).as("the .sql file lies beside " + intake)
      .isEqualTo(holder.getParent().getFileName());

    Set<Path> path = new LinkedHashSet<>(List.of(edge, holder, sql));
    assertThat(path).as("edge handler -> " + intake + " -> its .sql file").hasSize(3);
  }

  @Test
  void everyOtherSenderHandsItsMessageStraightToTheMailbox() {
    for (String sender : List.of("api/ConversationHttpApi.java", "clientsession/TaskOps.java", "control/AgentPrompts.java",
      "control/TaskConversations.java")) {
      assertThat(code(MAIN.resolve(sender))).as(sender).contains("mailbox.send(");
    }
  }

  @Test
  void theCommitLayerKnowsNoMessage() {
    for (Path file : java(MAIN.resolve("commit"))) {
      String code = code(file);
      assertThat(STATEMENT.matcher(code).find()).as(file + " names the message's statement").isFalse();
      assertThat(code).as(file.toString()).doesNotContain("Mailbox").doesNotContain("NewRequest");
    }
  }

  private static List<Path> javaNaming(Pattern pattern) {
    List<Path> found = new ArrayList<>();
    for (Path file : java(MAIN)) {
      if (pattern.matcher(code(file)).find()) {
        found.add(file);
      }
    }
    return found;
  }

  private static List<Path> sqlNaming(String text) {
    try (Stream<Path> walk = Files.walk(RESOURCES)) {
      return walk.filter(f -> f.toString().endsWith(".sql")).filter(f -> read(f).contains(text)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> java(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A source without its comments. */
  private static String code(Path file) {
    return read(file).replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", "");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
