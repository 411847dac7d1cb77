package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.platform.config.NodeSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bootstrap admin comes from a Secret made once, not from a token minted per pod start: every
 * Conclave pod mounts the Secret {@code conclave-admin} read-only, not world-readable, and names its
 * key {@code token} with {@code CONCLAVE_ADMIN_TOKEN_FILE}; the local overlay generates the Secret, the
 * production one documents the command that makes it (and docs/operations.md says the same).
 */
class K8sAdminSecretManifestsTest {

  static final String SECRET = "conclave-admin";
  static final String KEY = "token";
  static final String CREATE = "kubectl create secret generic conclave-admin --from-literal=token=\"$(openssl rand -base64 32)\"";

  static java.util.stream.Stream<String> overlays() throws java.io.IOException {
    return K8sManifestsTest.overlays();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void everyPodReadsTheAdminsCredentialFromTheSecretNamedByTheSetting(String overlay) {
    List<HasMetadata> objects = K8sManifestsTest.render(overlay);
    List<Deployment> deployments = K8sManifestsTest.conclaveDeployments(objects);
    assertThat(deployments).isNotEmpty();
    for (Deployment d : deployments) {
      String id = overlay + ": " + K8sManifestsTest.name(d);
      PodSpec pod = d.getSpec().getTemplate().getSpec();
      Container c = pod.getContainers().get(0);
      String file = K8sManifestsTest.envValue(c, NodeSettings.ADMIN_TOKEN_FILE.name());
      assertThat(file).as(id + ": " + NodeSettings.ADMIN_TOKEN_FILE.name()).isNotNull();
      assertThat(K8sManifestsTest.envValue(c, NodeSettings.WRITE_ADMIN_TOKEN.name())).as(id + ": no second way to the admin").isNull();
      VolumeMount mount = c.getVolumeMounts().stream().filter(m -> file.startsWith(m.getMountPath() + "/")).findFirst()
          .orElseThrow(() -> new AssertionError(id + ": nothing is mounted where " + file + " is"));
      assertThat(mount.getReadOnly()).as(id + ": mounted read-only").isTrue();
      assertThat(mount.getSubPath()).as(id + ": a subPath mount would never see a new value").isNull();
      SecretVolumeSource secret = pod.getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).map(Volume::getSecret)
          .findFirst().orElse(null);
      assertThat(secret).as(id + ": the volume at " + mount.getMountPath() + " is a Secret").isNotNull();
      assertThat(secret.getSecretName()).isEqualTo(SECRET);
      assertThat(secret.getOptional()).as(id + ": a pod without the Secret does not start").isNotEqualTo(Boolean.TRUE);
      assertThat(secret.getItems()).as(id + ": the Secret's keys are its files").isNullOrEmpty();
      assertThat(file).isEqualTo(mount.getMountPath() + "/" + KEY);
      assertThat(secret.getDefaultMode() & 0007).as(id + ": the credential is not world-readable").isZero();
    }
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void theSecretIsRenderedOrItsMakingIsDocumented(String overlay) throws Exception {
    List<Secret> rendered = K8sManifestsTest.of(K8sManifestsTest.render(overlay), Secret.class).stream()
        .filter(s -> K8sManifestsTest.name(s).equals(SECRET)).toList();
    if (rendered.isEmpty()) {
      assertThat(K8sManifestsTest.EXTERNAL_SECRETS.get(overlay)).as(overlay + ": " + SECRET + " is external").contains(SECRET);
      Path kustomization = Path.of("..", "k8s", "overlays", overlay, "kustomization.yaml");
      assertThat(Files.readString(kustomization, StandardCharsets.UTF_8)).as(kustomization + " says how to make it").contains(CREATE);
    } else {
      String value = new String(Base64.getDecoder().decode(rendered.get(0).getData().get(KEY)), StandardCharsets.UTF_8);
      assertThat(value).as(overlay + ": a value the node accepts").hasSizeGreaterThanOrEqualTo(32).doesNotContain(".");
    }
    assertThat(Files.readString(Path.of("..", "docs", "operations.md"), StandardCharsets.UTF_8)).contains(CREATE);
  }
}
