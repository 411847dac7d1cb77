package dev.conclave.platform.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Log lines cannot be forged or disguised by the values a message carries (issue 40, finding 7). */
public class EscapedMessageConverterTest {

  static final String FORGED = "10:00:00.000 ERROR FORGED-LINE";

  @Test
  void linesBreaksControlsAndBidiMarksAreEscaped() {
    assertThat(EscapedMessageConverter.escape("agent=x\n" + FORGED)).isEqualTo("agent=x\\n" + FORGED);
    assertThat(EscapedMessageConverter.escape("a\r\nb\tc")).isEqualTo("a\\r\\nb\\tc");
    assertThat(EscapedMessageConverter.escape("nul\u0000 esc\u001b[31m del\u007f c1\u0085")).isEqualTo("nul\\u0000 esc\\u001B[31m del\\u007F c1\\u0085");
    assertThat(EscapedMessageConverter.escape("ls\u2028ps\u2029")).isEqualTo("ls\\u2028ps\\u2029");
    assertThat(EscapedMessageConverter.escape("evil\u202Egnp.exe \u2066x\u2069 \u200f\u200e\u061c")).isEqualTo(
      "evil\\u202Egnp.exe \\u2066x\\u2069 \\u200F\\u200E\\u061C");
  }

  @Test
  void ordinaryTextIsLeftAsItIs() {
    String plain = "agent registered agent=über-1 name=Über-Agent 🤖 (der Erste) path=C:\\work \u4e2d\u6587 \u05e2\u05d1\u05e8\u05d9\u05ea";
    assertThat(EscapedMessageConverter.escape(plain)).isSameAs(plain);
    assertThat(EscapedMessageConverter.escape(null)).isNull();
  }

  /** The test configuration every module's tests log through writes escaped messages. */
  @Test
  void theTestConfigurationUsesIt() throws Exception {
    assertOneLinePerEvent(EscapedMessageConverterTest.class.getResource("/logback-test.xml"), "OUT");
  }

  /** Formats an event whose message tries to start a line of its own with the configuration's console appender. */
  public static void assertOneLinePerEvent(URL configuration, String appenderName) throws Exception {
    assertThat(configuration).as("the logback configuration").isNotNull();
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(configuration);
    assertOneLinePerEvent(context, appenderName, configuration.toString());
  }

  /** As {@link #assertOneLinePerEvent(URL, String)}, with a context already configured (by {@code what}). */
  public static void assertOneLinePerEvent(LoggerContext context, String appenderName, String what) {
    // a configuration logback warns about makes it print its status on stdout, where a command's
    // output goes (the token CLI printed a token with logback's status lines around it)
    assertThat(context.getStatusManager().getCopyOfStatusList()).as("logback's status while reading " + what)
      .allMatch(status -> status.getLevel() < ch.qos.logback.core.status.Status.WARN);
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    @SuppressWarnings("unchecked")
    OutputStreamAppender<ILoggingEvent> console = (OutputStreamAppender<ILoggingEvent>) root.getAppender(appenderName);
    assertThat(console).as("appender " + appenderName).isNotNull();
    LoggingEvent event = new LoggingEvent(EscapedMessageConverterTest.class.getName(), root, Level.INFO,
      "agent registration refused agent={} features={}", null, new Object[] {"x\r\n" + FORGED, "a\u0000\u202Eb"});
    String line = new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
    context.stop();
    assertThat(line.lines()).hasSize(1);
    assertThat(line).contains("agent=x\\r\\n" + FORGED).contains("features=a\\u0000\\u202Eb").doesNotContain("\u0000");
  }
}
