package dev.conclave.agentruntime.config;

import dev.conclave.settings.Setting;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where each setting's value ({@link AgentSettings}) comes from: the flag, else the environment
 * variable, else the config file, else the default. Blank values count as not given.
 */
public final class SettingValues {

  private final Map<Setting<?>, String> flags;
  private final Map<String, String> env;
  private final JsonObject file;

  private SettingValues(Map<Setting<?>, String> flags, Map<String, String> env, JsonObject file) {
    this.flags = flags;
    this.env = env;
    this.file = file;
  }

  /**
   * Resolves the values, reading the config file named by {@code --config} or its variable.
   *
   * @throws IllegalArgumentException when the config file is unreadable, not JSON, or has a key that is no setting
   */
  public static SettingValues of(Map<? extends Setting<?>, String> flags, Map<String, String> env) {
    Map<Setting<?>, String> f = new HashMap<>();
    flags.forEach((k, v) -> {
      if (v != null && !v.isBlank()) {
        f.put(k, v);
      }
    });
    SettingValues noFile = new SettingValues(f, env, new JsonObject());
    Optional<String> config = noFile.get(AgentSettings.CONFIG);
    return new SettingValues(f, env, config.map(SettingValues::readFile).orElseGet(JsonObject::new));
  }

  /** A variable of the environment the values were read with (the {@code PATH} a CLI backend is found on). */
  public Optional<String> environment(String name) {
    return Optional.ofNullable(env.get(name));
  }

  private static JsonObject readFile(String path) {
    JsonObject o;
    try {
      o = new JsonObject(Files.readString(Path.of(path)));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read config file " + path + ": " + e.getMessage());
    } catch (DecodeException e) {
      throw new IllegalArgumentException("config file " + path + " is not a JSON object: " + e.getMessage());
    }
    for (String key : o.fieldNames()) {
      boolean known = false;
      for (Setting<?> s : AgentSettings.all()) {
        known |= s.fileKey().map(key::equals).orElse(false);
      }
      if (!known) {
        throw new IllegalArgumentException("config file " + path + " has an unknown key '" + key + "'");
      }
      Object v = o.getValue(key);
      if (v instanceof io.vertx.core.json.JsonArray a) {
        o.put(key, String.join(",", a.stream().map(String::valueOf).toList()));
      } else if (!(v instanceof String)) {
        o.put(key, String.valueOf(v));
      }
    }
    return o;
  }

  /**
   * The value, by precedence, parsed by its setting (whose error names the flag); empty when nowhere
   * given and without default.
   */
  public <T> Optional<T> get(Setting<T> s) {
    String v = flags.get(s);
    if (v == null) {
      v = env.get(s.name());
    }
    if ((v == null || v.isBlank()) && s.fileKey().isPresent()) {
      v = file.getString(s.fileKey().get());
    }
    if (v == null || v.isBlank()) {
      return s.defaultValue();
    }
    return Optional.of(s.parse(v.strip()));
  }

  /** The value, or an error naming the flag and the variable. */
  public <T> T require(Setting<T> s, String why) {
    return get(s).orElseThrow(() -> new IllegalArgumentException(
      s.flag().map(f -> f.name() + " (or " + s.name() + ")").orElse(s.name()) + " is required " + why));
  }
}
