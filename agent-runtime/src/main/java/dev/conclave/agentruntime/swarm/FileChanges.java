package dev.conclave.agentruntime.swarm;

import io.vertx.core.json.JsonArray;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The files a task's tool calls created, modified and deleted, for its COMPLETE. A call that writes
 * files ({@link WritePaths}) is noted when the backend announces it, before it runs, with whether each
 * of its files existed then (the first time the task touches the file); when it finishes without an
 * error its files count as written. At the end, a written file that did not exist at first touch and
 * exists now was created, one that existed and exists was modified, one that existed and is gone was
 * deleted (a file created and deleted again in one task is in no list). Calls that were refused or
 * failed write nothing here.
 */
final class FileChanges {

  /** The three lists of a COMPLETE's result. */
  record Lists(List<String> created, List<String> modified, List<String> deleted) {

    void into(io.vertx.core.json.JsonObject result) {
      result.put("filesCreated", new JsonArray(created)).put("filesModified", new JsonArray(modified))
        .put("filesDeleted", new JsonArray(deleted));
    }
  }

  private final Path workdir;
  private final Map<String, Boolean> existedBefore = new LinkedHashMap<>();
  private final Map<String, List<String>> pending = new HashMap<>();
  private final Set<String> written = new LinkedHashSet<>();

  FileChanges(Path workdir) {
    this.workdir = workdir;
  }

  /** The backend announced a call (before it runs). */
  synchronized void announced(String toolId, String tool, String inputJson) {
    List<String> paths = WritePaths.of(tool, inputJson, workdir);
    if (paths.isEmpty()) {
      return;
    }
    for (String p : paths) {
      existedBefore.computeIfAbsent(p, this::exists);
    }
    pending.put(toolId, paths);
  }

  /** A call finished; its files count only when it ran without an error. */
  synchronized void finished(String toolId, boolean isError) {
    List<String> paths = pending.remove(toolId);
    if (paths != null && !isError) {
      written.addAll(paths);
    }
  }

  /** How many write calls finished without an error so far. */
  synchronized int writtenCount() {
    return written.size();
  }

  synchronized Lists lists() {
    List<String> created = new java.util.ArrayList<>();
    List<String> modified = new java.util.ArrayList<>();
    List<String> deleted = new java.util.ArrayList<>();
    for (String p : written) {
      boolean before = existedBefore.getOrDefault(p, false);
      boolean now = exists(p);
      if (!before && now) {
        created.add(p);
      } else if (before && now) {
        modified.add(p);
      } else if (before) {
        deleted.add(p);
      }
    }
    return new Lists(created, modified, deleted);
  }

  private boolean exists(String path) {
    return Files.exists(workdir.resolve(path), LinkOption.NOFOLLOW_LINKS);
  }
}
