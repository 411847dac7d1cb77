package dev.conclave.platform.db;

import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

class MigrationScriptsTest {

  private Path dir;

  @AfterEach
  void cleanUp() {
    if (dir != null) {
      TestDatabase.deleteTree(dir);
    }
  }

  /** Issue 45: each walk reads the whole jar's directory (32,000 entries in the node's jar); a node reads four schemas. */
  @Test
  void theSchemasOfOneJarAreReadWithOneWalkOfItsDirectory() throws Exception {
    dir = Files.createTempDirectory("conclave-scripts");
    Path jar = dir.resolve("scripts.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (int i = 0; i < 500; i++) {
        entry(out, "other/file" + i + ".txt", "x");
      }
      for (String folder : new String[] {"db/", "db/one/", "db/two/", "db/three/"}) {
        out.putNextEntry(new JarEntry(folder)); // as the build writes them: the class loader finds a folder by its entry
        out.closeEntry();
      }
      entry(out, "db/one/V1__first.sql", "CREATE TABLE a (v int);\n");
      entry(out, "db/one/R__view.sql", "SELECT 1;\n");
      entry(out, "db/two/V1__first.sql", "CREATE TABLE b (v int);\n");
      entry(out, "db/three/V1__first.sql", "CREATE TABLE c (v int);\n");
    }
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
      int before = MigrationScripts.JAR_WALKS.get();
      var one = MigrationScripts.of(new SchemaMigration("one"), loader).orElseThrow();
      var two = MigrationScripts.of(new SchemaMigration("two"), loader).orElseThrow();
      var three = MigrationScripts.of(new SchemaMigration("three"), loader).orElseThrow();

      assertThat(one.scripts()).extracting(MigrationScripts.Script::name).containsExactlyInAnyOrder("V1__first.sql", "R__view.sql");
      assertThat(two.scripts()).extracting(MigrationScripts.Script::name).containsExactly("V1__first.sql");
      assertThat(three.scripts()).extracting(MigrationScripts.Script::name).containsExactly("V1__first.sql");
      assertThat(two.scripts().get(0).checksum()).isNotEqualTo(three.scripts().get(0).checksum());
      assertThat(MigrationScripts.JAR_WALKS.get() - before).as("walks of the jar's directory").isEqualTo(1);
    }
  }

  private static void entry(JarOutputStream out, String name, String text) throws Exception {
    out.putNextEntry(new JarEntry(name));
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.closeEntry();
  }
}
