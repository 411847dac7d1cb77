package dev.conclave.platform.db;

import dev.conclave.platform.testing.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 45: a start whose PostgreSQL binaries are unpacked already does not read (and digest) the
 * 15 MB bundled archive again; a real zonky start works from what the resolver hands it instead.
 */
class BundledPostgresTest {

  private Path root;

  @AfterEach
  void cleanUp() {
    if (root != null) {
      TestDatabase.deleteTree(root);
    }
  }

  @Test
  void onceUnpackedTheArchiveIsNotReadAgainAndPostgresStillStarts() throws Exception {
    root = Files.createTempDirectory("conclave-bundled-pg");
    Path work = root.resolve("work");
    BundledPostgres first = new BundledPostgres(work);
    try (EmbeddedPostgres pg = start(first, work, root.resolve("pg1"))) {
      first.remember();
      assertThat(selectOne(pg)).isEqualTo(1);
    }
    // a new resolver is a new process for zonky (it remembers unpacked directories per resolver)
    BundledPostgres second = new BundledPostgres(work);
    assertThat(bytesHandedOver(second)).as("bytes the second start reads").isLessThan(1024);
    try (EmbeddedPostgres pg = start(second, work, root.resolve("pg2"))) {
      assertThat(selectOne(pg)).isEqualTo(1);
    }
  }

  @Test
  void aRemovedUnpackedDirectoryMeansTheArchiveIsHandedOverAgain() throws Exception {
    root = Files.createTempDirectory("conclave-bundled-pg");
    Path work = root.resolve("work");
    BundledPostgres first = new BundledPostgres(work);
    try (EmbeddedPostgres pg = start(first, work, root.resolve("pg1"))) {
      first.remember();
    }
    try (var dirs = Files.list(work)) {
      for (Path d : dirs.filter(p -> !Files.isSymbolicLink(p)).toList()) {
        TestDatabase.deleteTree(d);
      }
    }
    assertThat(bytesHandedOver(new BundledPostgres(work))).as("bytes handed over once the unpacked copy is gone").isGreaterThan(1_000_000);
  }

  private static EmbeddedPostgres start(BundledPostgres resolver, Path work, Path data) throws IOException {
    return EmbeddedPostgres.builder().setPgBinaryResolver(resolver).setOverrideWorkingDirectory(work.toFile()).setDataDirectory(data)
      .setCleanDataDirectory(false).start();
  }

  private static long bytesHandedOver(BundledPostgres resolver) throws IOException {
    try (InputStream in = resolver.getPgBinary("Linux", System.getProperty("os.arch"))) {
      return in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }

  private static int selectOne(EmbeddedPostgres pg) throws Exception {
    try (Connection c = pg.getPostgresDatabase().getConnection(); ResultSet rs = c.createStatement().executeQuery("SELECT 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
