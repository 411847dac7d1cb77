package dev.conclave.cli;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Named contexts, as kubectl's: each a node URL, a token file and a CA file, and which one is
 * current. They live in {@code $XDG_CONFIG_HOME/conclave/contexts.json} (else
 * {@code ~/.config/conclave/contexts.json}), readable by its owner only (0600, in a 0700 directory):
 * it names where credentials are, and an admin's context is worth protecting. The file holds
 * {@code {"current": NAME, "contexts": {NAME: {"url", "tokenFile", "caFile"?}}}}; every write replaces it
 * whole (a temporary file moved over it), so a reader never sees half of one.
 */
public final class ContextStore {

  /** One context: where it points and which files it reads. */
  public record Context(String name, String url, String tokenFile, String caFile) {

    JsonObject toJson() {
      JsonObject json = new JsonObject().put("url", url).put("tokenFile", tokenFile);
      if (caFile != null) {
        json.put("caFile", caFile);
      }
      return json;
    }

    static Context fromJson(String name, JsonObject json) {
      return new Context(name, json.getString("url"), json.getString("tokenFile"), json.getString("caFile"));
    }
  }

  private final Path file;

  public ContextStore(Path file) {
    this.file = file;
  }

  /** The store of this user: {@code XDG_CONFIG_HOME} (an absolute path) or {@code HOME}'s {@code .config}. */
  public static ContextStore forUser(Map<String, String> env) {
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
      : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".config");
    return new ContextStore(base.resolve("conclave").resolve("contexts.json"));
  }

  public Path file() {
    return file;
  }

  public Map<String, Context> all() {
    JsonObject contexts = read().getJsonObject("contexts", new JsonObject());
    Map<String, Context> out = new TreeMap<>();
    contexts.forEach(e -> out.put(e.getKey(), Context.fromJson(e.getKey(), (JsonObject) e.getValue())));
    return out;
  }

  public Optional<String> current() {
    return Optional.ofNullable(read().getString("current"));
  }

  public Optional<Context> find(String name) {
    return Optional.ofNullable(all().get(name));
  }

  /** Adds or replaces a context; the first one added becomes current. */
  public void put(Context context) {
    JsonObject doc = read();
    JsonObject contexts = doc.getJsonObject("contexts", new JsonObject());
    contexts.put(context.name(), context.toJson());
    doc.put("contexts", contexts);
    if (doc.getString("current") == null) {
      doc.put("current", context.name());
    }
    write(doc);
  }

  /** Makes {@code name} current; false when there is no such context. */
  public boolean use(String name) {
    JsonObject doc = read();
    if (!doc.getJsonObject("contexts", new JsonObject()).containsKey(name)) {
      return false;
    }
    write(doc.put("current", name));
    return true;
  }

  /** Removes a context (and, when it was current, the choice); false when there is none. */
  public boolean remove(String name) {
    JsonObject doc = read();
    JsonObject contexts = doc.getJsonObject("contexts", new JsonObject());
    if (contexts.remove(name) == null) {
      return false;
    }
    if (name.equals(doc.getString("current"))) {
      doc.remove("current");
    }
    write(doc.put("contexts", contexts));
    return true;
  }

  private JsonObject read() {
    if (!Files.isRegularFile(file)) {
      return new JsonObject();
    }
    try {
      return new JsonObject(Files.readString(file));
    } catch (IOException e) {
      throw CliFailure.usage("cannot read " + file + ": " + e.getMessage());
    } catch (DecodeException | ClassCastException e) {
      throw CliFailure.usage(file + " is not a contexts file (JSON): " + e.getMessage());
    }
  }

  private void write(JsonObject doc) {
    try {
      Path dir = file.getParent();
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
      Path tmp = dir.resolve(file.getFileName() + ".tmp");
      Files.deleteIfExists(tmp);
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, doc.encodePrettily() + "\n");
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      // a file made by hand, or by an older writer, is tightened too
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (FileAlreadyExistsException e) {
      throw CliFailure.usage("cannot write " + file + ": another write is in progress");
    } catch (IOException | UncheckedIOException e) {
      throw CliFailure.usage("cannot write " + file + ": " + e.getMessage());
    }
  }
}
