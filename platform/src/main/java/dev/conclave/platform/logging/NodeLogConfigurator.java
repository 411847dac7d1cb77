package dev.conclave.platform.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.pattern.DynamicConverter;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.conclave.platform.config.NodeSettings;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The node's log configuration, built in code: logback finds it through its service loader
 * ({@code META-INF/services/ch.qos.logback.classic.spi.Configurator} of the node's jar) before it
 * would look for an XML file. Reading and interpreting XML cost every start of the node and every
 * {@code ./conclave token} about a tenth of a second before anything else could log (issue 45).
 *
 * <p>What it sets up:
 * <ul>
 *   <li>Logs go to stderr; stdout is kept for what commands print on purpose (a token, a URL).</li>
 *   <li>{@code CONCLAVE_LOG_FORMAT} chooses the appender that writes: {@code text} (the default) or
 *       {@code json}. Both stay attached, and {@link LogFormatFilter} silences the other.</li>
 *   <li>Text: {@code HH:mm:ss.SSS LEVEL Logger - message}, the message escaped by
 *       {@link EscapedMessageConverter} (CR, LF, controls, bidi marks), so nothing can forge a line.</li>
 *   <li>JSON: one object per line by logback's own {@link JsonEncoder}, which escapes every string it
 *       writes; the node's id is a context property, and {@link TraceIdsAppender} adds a span's trace
 *       and span ids.</li>
 *   <li>{@code dev.conclave} at {@code CONCLAVE_LOG_LEVEL} (INFO); the libraries' chatter at WARN.</li>
 * </ul>
 * An operator's own configuration still wins: with {@code -Dlogback.configurationFile}, or a
 * {@code logback.xml} or {@code logback-test.xml} on the class path, this steps aside and logback
 * reads that file as it always did.
 */
public final class NodeLogConfigurator extends ContextAwareBase implements Configurator {

  /** The names of the appenders, as tests and {@link TraceIdsAppender} know them. */
  public static final String TEXT = "text";
  public static final String JSON = "json";
  public static final String JSON_OUT = "json-out";
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n";

  /** Loggers set to a level of their own, beside {@code dev.conclave}. */
  private static final Map<String, Level> LIBRARY_LEVELS = Map.of(
    "io.zonky", Level.WARN,
    "org.flywaydb", Level.WARN,
    "com.hazelcast", Level.WARN,
    // Conclave uses no CP data structures; the UNSAFE-mode notice does not apply
    "com.hazelcast.cp.CPSubsystem", Level.ERROR,
    "io.netty", Level.WARN,
    // several pooled connections register the same gauge; harmless, and Micrometer says so once
    "io.micrometer.core.instrument.MeterRegistry", Level.ERROR,
    "io.vertx", Level.WARN,
    // the SDK warns that the node's service.instance.id (its id) replaces the one it generated: as meant
    "io.opentelemetry.sdk.resources", Level.ERROR);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    ClassLoader loader = NodeLogConfigurator.class.getClassLoader();
    if (System.getProperty("logback.configurationFile") != null || loader.getResource("logback-test.xml") != null
      || loader.getResource("logback.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    configure(context, System.getenv());
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Configures {@code context} as a node's, from {@code env}'s {@code CONCLAVE_LOG_FORMAT} and {@code CONCLAVE_LOG_LEVEL}. */
  public static void configure(LoggerContext context, Map<String, String> env) {
    String format = env.getOrDefault(NodeSettings.LOG_FORMAT.name(), NodeSettings.LOG_FORMAT.defaultText().orElseThrow());
    Map<String, Supplier<DynamicConverter>> rules = new HashMap<>();
    for (String word : new String[] {"msg", "m", "message"}) {
      rules.put(word, EscapedMessageConverter::new);
    }
    context.putObject(CoreConstants.PATTERN_RULE_REGISTRY_FOR_SUPPLIERS, rules);

    PatternLayoutEncoder pattern = new PatternLayoutEncoder();
    pattern.setContext(context);
    pattern.setPattern(PATTERN);
    pattern.start();
    ConsoleAppender<ILoggingEvent> text = console(context, TEXT, pattern);
    text.addFilter(formatFilter(context, TEXT, format));
    text.start();

    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithMessage(false);
    encoder.setWithArguments(false);
    encoder.setWithFormattedMessage(true);
    encoder.start();
    ConsoleAppender<ILoggingEvent> jsonOut = console(context, JSON_OUT, encoder);
    jsonOut.start();
    TraceIdsAppender json = new TraceIdsAppender();
    json.setContext(context);
    json.setName(JSON);
    json.addFilter(formatFilter(context, JSON, format));
    json.addAppender(jsonOut);
    json.start();

    // as logback's XML did with ${CONCLAVE_LOG_LEVEL:-INFO}: a name it does not know is DEBUG
    context.getLogger("dev.conclave").setLevel(Level.toLevel(env.getOrDefault(NodeSettings.LOG_LEVEL.name(),
      NodeSettings.LOG_LEVEL.defaultText().orElseThrow())));
    LIBRARY_LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(text);
    root.addAppender(json);
  }

  private static ConsoleAppender<ILoggingEvent> console(LoggerContext context, String name,
                                                        ch.qos.logback.core.encoder.Encoder<ILoggingEvent> encoder) {
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName(name);
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    return appender;
  }

  private static LogFormatFilter formatFilter(LoggerContext context, String writes, String selected) {
    LogFormatFilter filter = new LogFormatFilter();
    filter.setContext(context);
    filter.setFormat(writes);
    filter.setSelected(selected);
    filter.start();
    return filter;
  }
}
