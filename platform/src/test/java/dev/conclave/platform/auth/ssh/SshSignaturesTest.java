package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.errors.ConclaveException;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Parsing agents' public keys and verifying their signatures, against OpenSSH's and RFC 8032's answers. */
class SshSignaturesTest {

  private static final byte[] MESSAGE = "1700000000|0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  @ParameterizedTest
  @EnumSource(AgentKeys.Kind.class)
  void aSignatureAsAGoAgentMakesItVerifies(AgentKeys.Kind kind) {
    AgentKeys agent = AgentKeys.generate(kind, "agent@test");
    AgentKey key = SshSignatures.parsePublicKey(agent.publicKeyLine());
    assertThat(key.type()).isEqualTo(kind.keyType);
    assertThat(key.fingerprint()).isEqualTo(agent.fingerprint());
    assertThat(key.comment()).contains("agent@test");

    SshSignatures.verify(key, MESSAGE, agent.sign(MESSAGE));
    assertThat(code(() -> SshSignatures.verify(key, "1700000000|another".getBytes(StandardCharsets.UTF_8), agent.sign(MESSAGE))))
      .isEqualTo("ssh_signature_invalid");
  }

  @Test
  void signaturesMadeByOpenSshVerify() throws IOException {
    List<String[]> vectors = openSshVectors();
    assertThat(vectors).hasSize(5);
    for (String[] v : vectors) {
      AgentKey key = SshSignatures.parsePublicKey(v[0]);
      assertThat(key.fingerprint()).as(v[0]).isEqualTo(v[1]);
      SshSig sig = SshSig.parse(v[2]);
      SshSignatures.verify(key, sig.signedData(vectorMessage()), Base64.getEncoder().encodeToString(sig.signature()));
      assertThat(code(() -> SshSignatures.verify(key, sig.signedData("tampered".getBytes(StandardCharsets.UTF_8)),
        Base64.getEncoder().encodeToString(sig.signature())))).as(v[0]).isEqualTo("ssh_signature_invalid");
    }
  }

  @Test
  void ed25519MatchesRfc8032() {
    // RFC 8032, section 7.1, tests 1 and 2: public key, message, signature
    String[][] tests = {
      {"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
      {"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"}};
    for (String[] t : tests) {
      ByteArrayBuffer blob = new ByteArrayBuffer();
      blob.putString("ssh-ed25519");
      blob.putBytes(HexFormat.of().parseHex(t[0]));
      AgentKey key = SshSignatures.parsePublicKey("ssh-ed25519 " + Base64.getEncoder().encodeToString(blob.getCompactData()));
      String signature = Base64.getEncoder().encodeToString(AgentKeys.wire("ssh-ed25519", HexFormat.of().parseHex(t[2])));
      SshSignatures.verify(key, HexFormat.of().parseHex(t[1]), signature);
      assertThat(code(() -> SshSignatures.verify(key, "x".getBytes(StandardCharsets.UTF_8), signature))).isEqualTo("ssh_signature_invalid");
    }
  }

  @Test
  void theFingerprintIsSha256OfTheBlobInHexLikeCovenGateway() {
    // the key of coven-gateway's own tests; ssh-keygen -l says SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU
    AgentKey key = SshSignatures.parsePublicKey(
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test@example.com");
    assertThat(key.fingerprint()).isEqualTo("f83898df0bef57a4ee24985ba598ac17fccb0c0d333cc4af1dd92be14bc23aa5");
    assertThat(key.comment()).contains("test@example.com");
  }

  @Test
  void authorizedKeysOptionsAndMissingCommentsAreFine() {
    AgentKeys agent = AgentKeys.ed25519(null);
    AgentKey plain = SshSignatures.parsePublicKey(agent.publicKeyLine());
    assertThat(plain.comment()).isEmpty();
    AgentKey withOptions = SshSignatures.parsePublicKey("no-pty,command=\"true\" " + agent.publicKeyLine() + " my agent key");
    assertThat(withOptions.fingerprint()).isEqualTo(plain.fingerprint());
    assertThat(withOptions.comment()).contains("my agent key");
  }

  @Test
  void sha1RsaSignaturesAreRefused() {
    AgentKeys agent = AgentKeys.generate(AgentKeys.Kind.RSA_SHA256, null);
    AgentKey key = SshSignatures.parsePublicKey(agent.publicKeyLine());
    ConclaveException refused = failure(() -> SshSignatures.verify(key, MESSAGE, agent.sign(MESSAGE, "ssh-rsa")));
    assertThat(refused.code()).isEqualTo("ssh_signature_algorithm_refused");
    assertThat(refused.detail()).contains("'ssh-rsa'", "rsa-sha2-256 or rsa-sha2-512");
  }

  @Test
  void aSignatureOfAnotherAlgorithmThanTheKeysIsRefused() {
    AgentKeys ed = AgentKeys.ed25519(null);
    AgentKeys ec = AgentKeys.generate(AgentKeys.Kind.ECDSA_P256, null);
    AgentKey key = SshSignatures.parsePublicKey(ed.publicKeyLine());
    assertThat(code(() -> SshSignatures.verify(key, MESSAGE, ec.sign(MESSAGE)))).isEqualTo("ssh_signature_algorithm_refused");
  }

  @Test
  void malformedSignaturesSayWhat() {
    AgentKeys agent = AgentKeys.ed25519(null);
    AgentKey key = SshSignatures.parsePublicKey(agent.publicKeyLine());
    assertThat(code(() -> SshSignatures.verify(key, MESSAGE, "not base64!"))).isEqualTo("ssh_signature_malformed");
    assertThat(code(() -> SshSignatures.verify(key, MESSAGE, Base64.getEncoder().encodeToString(new byte[] {0, 0, 0, 9, 1}))))
      .isEqualTo("ssh_signature_malformed");
    byte[] trailing = Base64.getDecoder().decode(agent.sign(MESSAGE));
    byte[] longer = java.util.Arrays.copyOf(trailing, trailing.length + 3);
    assertThat(code(() -> SshSignatures.verify(key, MESSAGE, Base64.getEncoder().encodeToString(longer)))).isEqualTo("ssh_signature_malformed");
    // a raw ed25519 signature without the SSH framing, as a careless client might send
    byte[] raw = java.util.Arrays.copyOfRange(trailing, 4 + 11 + 4, trailing.length);
    assertThat(code(() -> SshSignatures.verify(key, MESSAGE, Base64.getEncoder().encodeToString(raw)))).isIn("ssh_signature_malformed",
      "ssh_signature_algorithm_refused");
    String shortBlob = Base64.getEncoder().encodeToString(AgentKeys.wire("ssh-ed25519", new byte[10]));
    assertThat(code(() -> SshSignatures.verify(key, MESSAGE, shortBlob))).isEqualTo("ssh_signature_invalid");
  }

  @Test
  void unsupportedOrBrokenKeysAreRefused() throws Exception {
    assertThat(code(() -> SshSignatures.parsePublicKey("garbage"))).isEqualTo("ssh_pubkey_invalid");
    assertThat(code(() -> SshSignatures.parsePublicKey("ssh-ed25519 !!!notbase64!!! x"))).isEqualTo("ssh_pubkey_invalid");
    assertThat(code(() -> SshSignatures.parsePublicKey("ssh-dss AAAAB3NzaC1kc3MAAACBAP1 x"))).isEqualTo("ssh_key_unsupported");
    assertThat(code(() -> SshSignatures.parsePublicKey(
      "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29t x"))).isEqualTo("ssh_key_unsupported");
    // the line's type and the blob's type disagree
    AgentKeys ed = AgentKeys.ed25519(null);
    String mislabelled = "ecdsa-sha2-nistp256 " + ed.publicKeyLine().split(" ")[1];
    assertThat(code(() -> SshSignatures.parsePublicKey(mislabelled))).isEqualTo("ssh_pubkey_invalid");
    // an ed25519 blob with a short key
    ByteArrayBuffer shortKey = new ByteArrayBuffer();
    shortKey.putString("ssh-ed25519");
    shortKey.putBytes(new byte[31]);
    assertThat(code(() -> SshSignatures.parsePublicKey("ssh-ed25519 " + Base64.getEncoder().encodeToString(shortKey.getCompactData()))))
      .isEqualTo("ssh_pubkey_invalid");
    // RSA below 2048 bits
    java.security.KeyPairGenerator rsa = java.security.KeyPairGenerator.getInstance("RSA");
    rsa.initialize(1024);
    ByteArrayBuffer small = new ByteArrayBuffer();
    small.putRawPublicKey(rsa.generateKeyPair().getPublic());
    ConclaveException tooSmall = failure(() -> SshSignatures.parsePublicKey("ssh-rsa " + Base64.getEncoder().encodeToString(small.getCompactData())));
    assertThat(tooSmall.code()).isEqualTo("ssh_key_unsupported");
    assertThat(tooSmall.detail()).contains("1024 bits");
  }

  @Test
  void aNonCanonicalRsaBlobIsRefusedSoFingerprintsAgreeWithGo() {
    AgentKeys agent = AgentKeys.generate(AgentKeys.Kind.RSA_SHA256, null);
    java.security.interfaces.RSAPublicKey pub = (java.security.interfaces.RSAPublicKey) agent.pair.getPublic();
    ByteArrayBuffer padded = new ByteArrayBuffer();
    padded.putString("ssh-rsa");
    byte[] e = pub.getPublicExponent().toByteArray();
    byte[] zeroLed = new byte[e.length + 1];
    System.arraycopy(e, 0, zeroLed, 1, e.length);
    padded.putBytes(zeroLed);   // an mpint with a needless leading zero
    padded.putMPInt(pub.getModulus());
    assertThat(code(() -> SshSignatures.parsePublicKey("ssh-rsa " + Base64.getEncoder().encodeToString(padded.getCompactData()))))
      .isEqualTo("ssh_pubkey_invalid");
  }

  private static String code(Runnable action) {
    return failure(action).code();
  }

  private static ConclaveException failure(Runnable action) {
    try {
      action.run();
    } catch (ConclaveException e) {
      assertThat(e.kind()).isEqualTo(dev.conclave.platform.errors.ErrorKind.UNAUTHENTICATED);
      return e;
    }
    throw new AssertionError("expected a refusal");
  }

  private static byte[] vectorMessage() throws IOException {
    return vectorLines().stream().filter(l -> l.startsWith("message: ")).findFirst().orElseThrow()
      .substring("message: ".length()).getBytes(StandardCharsets.UTF_8);
  }

  /** key line, fingerprint, SSHSIG (base64) per key. */
  private static List<String[]> openSshVectors() throws IOException {
    List<String[]> out = new ArrayList<>();
    String[] current = new String[3];
    for (String line : vectorLines()) {
      if (line.startsWith("key: ")) {
        current = new String[3];
        current[0] = line.substring(5);
      } else if (line.startsWith("fingerprint: ")) {
        current[1] = line.substring(13);
      } else if (line.startsWith("sshsig: ")) {
        current[2] = line.substring(8);
        out.add(current);
      }
    }
    return out;
  }

  private static List<String> vectorLines() throws IOException {
    try (InputStream in = SshSignaturesTest.class.getResourceAsStream("openssh-vectors.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }

  /**
   * OpenSSH's SSHSIG (PROTOCOL.sshsig): the signature inside is the same (string format, string blob)
   * that coven agents send; what it signs is a preamble with the namespace and the message's hash.
   */
  private record SshSig(String namespace, byte[] reserved, String hashAlgorithm, byte[] signature) {

    static SshSig parse(String base64) {
      ByteArrayBuffer b = new ByteArrayBuffer(Base64.getDecoder().decode(base64));
      byte[] magic = new byte[6];
      b.getRawBytes(magic);
      assertThat(new String(magic, StandardCharsets.US_ASCII)).isEqualTo("SSHSIG");
      assertThat(b.getInt()).isEqualTo(1);
      b.getBytes(); // the public key
      return new SshSig(b.getString(), b.getBytes(), b.getString(), b.getBytes());
    }

    byte[] signedData(byte[] message) {
      try {
        String jca = hashAlgorithm.equals("sha512") ? "SHA-512" : "SHA-256";
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawBytes("SSHSIG".getBytes(StandardCharsets.US_ASCII));
        b.putString(namespace);
        b.putBytes(reserved);
        b.putString(hashAlgorithm);
        b.putBytes(MessageDigest.getInstance(jca).digest(message));
        return b.getCompactData();
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
