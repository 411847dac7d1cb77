package dev.conclave.settings;

import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One setting, declared once: its environment variable, how its text is parsed, its default
 * (defined here and nowhere else), what it means (the README's words) and who reads it; for a
 * program that also takes it as a command-line flag or from a config file (the agent program), the
 * flag and the file's key.
 *
 * <p>Every module declares its settings as {@code public static final Setting<…>} fields of its one
 * settings type (platform's {@code NodeSettings}, {@code GatewaySettings}, {@code SwarmSettings},
 * {@code PackSettings}, the client commands' {@code ClientSettings}, the agent program's
 * {@code AgentSettings}), whose nested {@code Catalogue} implements {@link SettingCatalogue} and is
 * listed in {@code META-INF/services/dev.conclave.settings.SettingCatalogue}. The
 * README's configuration table is tested against all of them (the agent program's are in
 * agent-runtime/README.md: {@link SettingCatalogue#documentedIn}), and a test fails on a
 * {@code CONCLAVE_*} variable that code reads without a declaration.
 *
 * <pre>{@code
 * public static final Setting<Duration> HEARTBEAT_TIMEOUT = Setting.define("CONCLAVE_AGENT_HEARTBEAT_TIMEOUT_SECONDS", Parsers.SECONDS)
 *   .readBy(Setting.Reader.GATEWAY)
 *   .describedAs("an agent that sends nothing for this long is disconnected")
 *   .byDefault("90");
 * ...
 * Duration timeout = config.get(HEARTBEAT_TIMEOUT);
 * }</pre>
 */
public final class Setting<T> {

  /**
   * Who reads a setting: the node's kernel, one of its roles, the {@code conclave-node} commands, or
   * the agent program ({@code conclave agent}).
   */
  public enum Reader {
    NODE("node"), GATEWAY("gateway"), COORDINATOR("coordinator"), PACK_HOST("pack-host"), CLI("cli"), AGENT("agent");

    private final String id;

    Reader(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }
  }

  /** Turns a variable's trimmed text into a value, or throws a {@link ConfigException} naming the variable. */
  @FunctionalInterface
  public interface Parser<T> {
    T parse(String variable, String text);
  }

  /** A command-line flag: its name, such as {@code --endpoints}, and its argument's label, such as {@code HOST:PORT[,...]}. */
  public record Flag(String name, String label) {
    public Flag {
      if (!name.matches("--[a-z0-9][a-z0-9-]*")) {
        throw new IllegalArgumentException("a flag is -- and lower-case words joined by '-', got '" + name + "'");
      }
      Objects.requireNonNull(label);
    }

    @Override
    public String toString() {
      return name + " " + label;
    }
  }

  private final String name;
  private final Parser<T> parser;
  private final String description;
  private final Set<Reader> readers;
  private final Optional<Flag> flag;
  private final Optional<String> fileKey;
  private final Optional<String> defaultText;
  private final Supplier<Optional<T>> defaultValue;
  private final String documentedDefault;

  private Setting(Builder<T> declared, Optional<String> defaultText, Supplier<Optional<T>> defaultValue, String documentedDefault) {
    this.name = declared.name;
    this.parser = declared.parser;
    this.description = declared.description;
    this.readers = Set.copyOf(declared.readers);
    this.flag = declared.flag;
    this.fileKey = declared.fileKey;
    this.defaultText = defaultText;
    this.defaultValue = defaultValue;
    this.documentedDefault = documentedDefault;
  }

  /** Starts the declaration of {@code name}, whose text {@code parser} reads. */
  public static <T> Builder<T> define(String name, Parser<T> parser) {
    return new Builder<>(name, parser);
  }

  /** The environment variable. */
  public String name() {
    return name;
  }

  /** What it means, as the README's configuration table says it. */
  public String description() {
    return description;
  }

  public Set<Reader> readers() {
    return readers;
  }

  /** The command-line flag that also sets it, for a program that has one; empty for environment-only settings. */
  public Optional<Flag> flag() {
    return flag;
  }

  /** Its key in a config file, for a program that reads one. */
  public Optional<String> fileKey() {
    return fileKey;
  }

  /** The default as the README's table shows it: a literal in backticks, else words such as "unset". */
  public String documentedDefault() {
    return documentedDefault;
  }

  /** The literal default's text, when the default is a literal. */
  public Optional<String> defaultText() {
    return defaultText;
  }

  /** The default value, when there is one (a literal, or one computed on this machine). */
  public Optional<T> defaultValue() {
    return defaultValue.get();
  }

  /** The value set in {@code env}, parsed; empty when the variable is absent or blank. */
  public Optional<T> find(Map<String, String> env) {
    String text = env.get(name);
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(parser.parse(name, text.trim()));
  }

  /** The value set in {@code env}, else the default. */
  public T get(Map<String, String> env) {
    return find(env).or(this::defaultValue).orElseThrow(() ->
      new IllegalStateException(name + " has no default: read it with find"));
  }

  /** Parses {@code text} as this setting's value (for values that come from elsewhere, such as a flag). */
  public T parse(String text) {
    return parser.parse(name, text.trim());
  }

  @Override
  public String toString() {
    return name;
  }

  /** A declaration in progress; it ends with the default ({@link #byDefault}, {@link #computed}, {@link #noDefault}). */
  public static final class Builder<T> {
    private final String name;
    private final Parser<T> parser;
    private String description = "";
    private Set<Reader> readers = EnumSet.noneOf(Reader.class);
    private Optional<Flag> flag = Optional.empty();
    private Optional<String> fileKey = Optional.empty();

    private Builder(String name, Parser<T> parser) {
      this.name = Objects.requireNonNull(name);
      this.parser = Objects.requireNonNull(parser);
    }

    public Builder<T> describedAs(String text) {
      this.description = text;
      return this;
    }

    public Builder<T> readBy(Reader first, Reader... more) {
      this.readers = EnumSet.of(first, more);
      return this;
    }

    /** The flag {@code name} (such as {@code --endpoints}) with an argument labelled {@code label} also sets it. */
    public Builder<T> flag(String name, String label) {
      this.flag = Optional.of(new Flag(name, label));
      return this;
    }

    /** A config file sets it under {@code key}. */
    public Builder<T> fileKey(String key) {
      this.fileKey = Optional.of(key);
      return this;
    }

    /** The default is {@code text}, parsed like a set value (so a wrong default fails at class load). */
    public Setting<T> byDefault(String text) {
      T value = parser.parse(name, text);
      return new Setting<>(this, Optional.of(text), () -> Optional.of(value), "`" + text + "`");
    }

    /** The default is computed on the machine (for example from its cores); {@code documented} says how. */
    public Setting<T> computed(String documented, Supplier<T> value) {
      return new Setting<>(this, Optional.empty(), () -> Optional.of(value.get()), documented);
    }

    /** There is no default value; {@code documented} says what unset means (for example "unset"). */
    public Setting<T> noDefault(String documented) {
      return new Setting<>(this, Optional.empty(), Optional::empty, documented);
    }
  }
}
