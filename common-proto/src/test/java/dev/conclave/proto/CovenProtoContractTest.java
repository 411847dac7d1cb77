package dev.conclave.proto;

import dev.conclave.proto.coven.CovenProto;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the wire surface of coven.proto: services, methods with their streaming kinds, every
 * message's fields (name, number, type, label, oneof) and every enum value.
 *
 * <p>The golden file was rendered from the Coven specification's own coven.proto (compiled with
 * protoc, see {@code contract/README.md}), so passing means our generated descriptors are
 * wire-identical to the specification. An accidental edit of coven.proto fails here.
 */
class CovenProtoContractTest {

  @Test
  void generatedDescriptorsMatchTheSpecifiedWireSurface() throws IOException {
    String expected = resource("/contract/coven-wire-surface.txt");
    String actual = WireSurface.render(CovenProto.getDescriptor());
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void everyServiceOfTheSpecificationIsPresent() {
    assertThat(CovenProto.getDescriptor().getServices())
      .extracting(s -> s.getFullName())
      .containsExactly("coven.CovenControl", "coven.AdminService", "coven.ClientService", "coven.PackService");
  }

  @Test
  void theProtoSourceShipsAsAResourceForRuntimeLoaders() {
    // Third-party agents (grpc-js with proto-loader) load coven.proto at run time.
    assertThat(CovenProtoContractTest.class.getResource("/coven.proto")).isNotNull();
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = CovenProtoContractTest.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
