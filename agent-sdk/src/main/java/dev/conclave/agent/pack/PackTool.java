package dev.conclave.agent.pack;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One tool a pack offers: its definition, as agents see it in the manifest, and its handler.
 *
 * <pre>{@code
 * PackTool tool = PackTool.builder("get_weather")
 *     .description("Current weather for a city")
 *     .inputSchema(new JsonObject().put("type", "object")
 *         .put("properties", new JsonObject().put("city", new JsonObject().put("type", "string"))))
 *     .timeoutSeconds(10)
 *     .handler(call -> lookUp(call.input().getString("city")))
 *     .build();
 * }</pre>
 */
public final class PackTool {

  /** What a tool name may look like. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  /** The longest timeout a tool may ask for. */
  public static final int MAX_TIMEOUT_SECONDS = 3600;

  private final String name;
  private final String description;
  private final String inputSchemaJson;
  private final List<String> requiredCapabilities;
  private final int timeoutSeconds;
  private final ToolHandler handler;

  private PackTool(Builder b) {
    this.name = b.name;
    this.description = b.description;
    this.inputSchemaJson = b.inputSchemaJson;
    this.requiredCapabilities = b.requiredCapabilities;
    this.timeoutSeconds = b.timeoutSeconds;
    this.handler = b.handler;
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  public String name() {
    return name;
  }

  public String description() {
    return description;
  }

  /** The JSON Schema of the tool's input, as JSON text; always a JSON object. */
  public String inputSchemaJson() {
    return inputSchemaJson;
  }

  /** Capabilities an agent must declare to see the tool. */
  public List<String> requiredCapabilities() {
    return requiredCapabilities;
  }

  /** How long the gateway waits for a call's result; 0 means the gateway's default, 30 s. */
  public int timeoutSeconds() {
    return timeoutSeconds;
  }

  public ToolHandler handler() {
    return handler;
  }

  @Override
  public String toString() {
    return "PackTool[" + name + "]";
  }

  /** Builds a {@link PackTool}; a name and a handler are required. */
  public static final class Builder {

    private final String name;
    private String description = "";
    private String inputSchemaJson = "{\"type\":\"object\"}";
    private List<String> requiredCapabilities = List.of();
    private int timeoutSeconds;
    private ToolHandler handler;

    private Builder(String name) {
      this.name = name;
    }

    /** What the tool does, for the model that decides whether to call it. */
    public Builder description(String description) {
      this.description = description == null ? "" : description;
      return this;
    }

    /** The JSON Schema of the input, as JSON text; {@code {"type":"object"}} by default. */
    public Builder inputSchema(String schemaJson) {
      this.inputSchemaJson = schemaJson;
      return this;
    }

    public Builder inputSchema(JsonObject schema) {
      this.inputSchemaJson = Objects.requireNonNull(schema, "schema").encode();
      return this;
    }

    /** Capabilities an agent must declare to see the tool; none by default. */
    public Builder requiredCapabilities(String... capabilities) {
      this.requiredCapabilities = List.of(capabilities);
      return this;
    }

    /** How long the gateway waits for a result, 0 to {@value #MAX_TIMEOUT_SECONDS}; 0 (the gateway's 30 s) by default. */
    public Builder timeoutSeconds(int seconds) {
      this.timeoutSeconds = seconds;
      return this;
    }

    public Builder handler(ToolHandler handler) {
      this.handler = handler;
      return this;
    }

    /** @throws IllegalArgumentException naming the tool and the first invalid setting */
    public PackTool build() {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("tool name must match " + NAME.pattern() + ", got '" + name + "'");
      }
      if (handler == null) {
        throw new IllegalArgumentException("tool " + name + " needs a handler");
      }
      if (timeoutSeconds < 0 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
        throw new IllegalArgumentException("tool " + name + ": timeoutSeconds must be within 0.." + MAX_TIMEOUT_SECONDS
          + ", got " + timeoutSeconds);
      }
      if (!isJsonObject(inputSchemaJson)) {
        throw new IllegalArgumentException("tool " + name + ": the input schema must be a JSON object");
      }
      return new PackTool(this);
    }

    private static boolean isJsonObject(String json) {
      if (json == null) {
        return false;
      }
      try {
        new JsonObject(json);
        return true;
      } catch (DecodeException | ClassCastException e) {
        return false;
      }
    }
  }
}
