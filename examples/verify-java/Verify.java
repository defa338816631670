import io.github.depothq.depot.Activation;
import io.github.depothq.depot.DepotClient;
import io.github.depothq.depot.DepotException;
import io.github.depothq.depot.License;
import io.github.depothq.depot.LicenseFile;
import io.github.depothq.depot.LicenseFileCheck;
import io.github.depothq.depot.Machine;
import io.github.depothq.depot.MachineInfo;
import io.github.depothq.depot.RefusedException;
import io.github.depothq.depot.Validation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Checks a depot license the way shipped software should, with depot's Java client library
 * (sdk/java, io.github.depothq:depot-client): every answer is verified as depot's (an Ed25519
 * signature by a pinned key over an RFC 9530 digest of the body, the nonce sent, the license and
 * product asked about) before it is believed, and the offline license file is a JWS signed by the
 * same keys. Java 17+, the library and nothing else.
 *
 * <pre>
 *   sdk/java/build.sh
 *   java -cp sdk/java/build/depot-client-0.1.0.jar examples/verify-java/Verify.java &lt;DEPOT_URL&gt; &lt;LICENSE_KEY&gt;
 *       [--product ID] [--license-file PATH] [--jwks PATH] [--fingerprint FP]
 * </pre>
 *
 * --jwks pins depot's keys: they are read from that file (the JWKS depot serves at
 * /.well-known/jwks.json, shipped with the software) and never fetched.
 *
 * --fingerprint binds the license to this machine: it is activated first, validated with its
 * fingerprint, sends one heartbeat, and the license file must be bound to it.
 *
 * DEPOT_URL and LICENSE_KEY may come from the environment instead. Exit 0: the answer verified, it
 * said VALID and the license file verified; 1: anything else; 2: usage error.
 *
 * <p>This file is plain ASCII on purpose: Java 17 reads sources in the platform encoding, which is
 * US-ASCII where no locale is set (a CI container), and would refuse anything else.
 */
public final class Verify {
  static final String USAGE =
      "usage: verify <DEPOT_URL> <LICENSE_KEY> [--product ID] [--license-file PATH] [--jwks PATH] [--fingerprint FP]\n"
          + "       (DEPOT_URL and LICENSE_KEY may also come from the environment)";
  static final String DEFAULT_LICENSE_FILE = "depot-license.lic";
  static final String UNPINNED_WARNING =
      "warning: keys from the server itself only stop a fake that copies depot's keys; shipped software should pin them with --jwks";

  /** A check that failed: the license must not be trusted. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  static final class UsageError extends Exception {
    private static final long serialVersionUID = 1L;

    UsageError(String message) {
      super(message);
    }
  }

  /**
   * {@code product}: null to accept a license of any product (this example's diagnostic mode; an
   * app always names its product). {@code jwks}: the pinned key set's file, or null to fetch the keys
   * from the server. {@code fingerprint}: this machine's, when the license is to be bound to it.
   */
  record Config(String url, String key, String product, Path licenseFile, Path jwks, String fingerprint) {}

  public static void main(String[] args) {
    int code;
    try {
      code = run(readConfig(args));
    } catch (UsageError e) {
      System.err.println(e.getMessage() + "\n" + USAGE);
      code = 2;
    }
    System.exit(code);
  }

  // --- arguments ------------------------------------------------------------------------------

  static Config readConfig(String[] args) throws UsageError {
    List<String> positionals = new ArrayList<>();
    String product = null;
    String licenseFile = null;
    String jwks = null;
    String fingerprint = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (name.equals("--product") || name.equals("--license-file") || name.equals("--jwks")
          || name.equals("--fingerprint")) {
        String value;
        if (arg.contains("=")) value = arg.substring(arg.indexOf('=') + 1);
        else if (i + 1 < args.length) value = args[++i];
        else throw new UsageError("option " + name + " needs a value");
        switch (name) {
          case "--product" -> product = value;
          case "--license-file" -> licenseFile = value;
          case "--fingerprint" -> fingerprint = value;
          default -> jwks = value;
        }
      } else if (arg.equals("--help") || arg.equals("-h")) {
        throw new UsageError("verifies depot's signed license answers and an offline license file");
      } else if (arg.startsWith("-")) {
        throw new UsageError("unknown option " + arg);
      } else {
        positionals.add(arg);
      }
    }
    if (positionals.size() > 2) throw new UsageError("too many arguments: " + positionals.subList(2, positionals.size()));
    String url = positionals.size() > 0 ? positionals.get(0) : orEmpty(System.getenv("DEPOT_URL"));
    String key = positionals.size() > 1 ? positionals.get(1) : orEmpty(System.getenv("LICENSE_KEY"));
    url = url.replaceAll("/+$", "");
    if (!url.matches("^https?://[^/].*")) throw new UsageError("DEPOT_URL must be an http(s) URL, got \"" + url + "\"");
    if (key.isBlank()) throw new UsageError("LICENSE_KEY is missing");
    if (product != null && !product.matches("[0-9]+")) {
      throw new UsageError("--product must be a numeric id, got \"" + product + "\"");
    }
    if (licenseFile != null && licenseFile.isEmpty()) throw new UsageError("--license-file needs a path");
    if (jwks != null && jwks.isEmpty()) throw new UsageError("--jwks needs a path");
    // The server refuses control characters itself (422), which this example then reports.
    if (fingerprint != null && (fingerprint.isEmpty() || fingerprint.length() > 255)) {
      throw new UsageError("--fingerprint must be 1 to 255 characters");
    }
    return new Config(url, key, product, Path.of(licenseFile != null ? licenseFile : DEFAULT_LICENSE_FILE),
        jwks != null ? Path.of(jwks) : null, fingerprint);
  }

  static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  // --- the client -----------------------------------------------------------------------------

  /** No product has id 0: depot answers PRODUCT_MISMATCH to it, naming the key's own product. */
  static final String NO_PRODUCT = "0";

  /** The library's client for a product: pinned keys (--jwks), or fetched from the server (weaker: a warning). */
  static DepotClient client(Config config, String product) {
    DepotClient.Builder builder = DepotClient.builder().server(config.url()).productId(product);
    if (config.jwks() != null) builder.jwks(config.jwks());
    else builder.fetchJwks(true);
    return builder.build();
  }

  /**
   * The product of the key, from a verified answer: a validation for no product is PRODUCT_MISMATCH
   * about this key, naming its product (or NOT_FOUND, naming none: null). Only for a program that
   * checks any product's keys: an app names its own.
   */
  static String productOfKey(DepotClient client, String key) throws DepotException {
    License license = client.validate(key).license();
    return license == null ? null : license.productId();
  }

  /** null for VALID, or why not. */
  static String outcome(Validation v, Config config) {
    if (!v.valid() || !"VALID".equals(v.code())) return v.code();
    if (config.fingerprint() != null) {
      // The library has checked that a machine in the answer is this one; VALID without one is not ours.
      Machine machine = v.machine();
      if (machine == null) return "the answer is about another machine";
      if (!machine.alive()) return "this machine is not alive";
    }
    return null;
  }

  static String refusal(RefusedException e) {
    return "HTTP " + e.status() + ": " + e.reason();
  }

  // --- this machine (--fingerprint) -----------------------------------------------------------

  /**
   * Activates this machine (201 new, 200 already active) and sends one heartbeat. A real app sends
   * heartbeats every heartbeatSeconds while it runs (DepotClient.startHeartbeat); a HEARTBEAT_DEAD
   * refusal means the seat was lost and it must activate again.
   */
  static void activateAndHeartbeat(DepotClient client, Config config) throws Refused {
    String platform = System.getProperty("os.name").toLowerCase(Locale.ROOT).replace(' ', '-') + "-"
        + System.getProperty("os.arch");
    Activation activation;
    try {
      activation = client.activate(config.key(), config.fingerprint(), new MachineInfo("verify example", platform, null));
    } catch (RefusedException e) {
      throw new Refused("activate: HTTP " + e.status() + ": " + e.code() + " " + e.reason());
    } catch (DepotException e) {
      throw new Refused("activate: " + e.getMessage());
    }
    String id = activation.machine().id();
    System.out.println("machine: " + (activation.created() ? "activated" : "already active") + " (" + id + ")");
    Machine beat;
    try {
      beat = client.heartbeat(config.key(), id);
    } catch (RefusedException e) {
      throw new Refused("heartbeat: HTTP " + e.status() + ": " + e.code());
    } catch (DepotException e) {
      throw new Refused("heartbeat: " + e.getMessage());
    }
    if (!beat.alive()) throw new Refused("heartbeat: the machine is not alive");
    System.out.println("heartbeat: signature and digest verified, alive since " + beat.lastHeartbeatAt());
  }

  // --- the license file (offline) -------------------------------------------------------------

  /** Uses the file at config.licenseFile, or checks one out (a signed answer like any other) and writes it. */
  static void obtainLicenseFile(DepotClient client, Config config) throws Refused {
    if (Files.exists(config.licenseFile())) {
      System.out.println("license file: using " + config.licenseFile());
      return;
    }
    Validation answer;
    try {
      answer = client.checkout(config.key(), config.fingerprint(), null);
    } catch (RefusedException e) {
      throw new Refused("checkout: " + refusal(e));
    } catch (DepotException e) {
      throw new Refused("checkout: " + e.getMessage());
    }
    String why = outcome(answer, config);
    if (why != null) throw new Refused("checkout: " + why);
    if (answer.licenseFile() == null) throw new Refused("checkout: no license_file in the answer");
    try {
      Files.writeString(config.licenseFile(), answer.licenseFile());
    } catch (IOException e) {
      throw new Refused("cannot write " + config.licenseFile() + ": " + e.getMessage());
    }
    System.out.println("license file: checked out (until " + answer.licenseFileExpiresAt() + "), written to "
        + config.licenseFile());
  }

  // --- main -----------------------------------------------------------------------------------

  static int run(Config config) {
    if (config.jwks() == null) System.err.println(UNPINNED_WARNING);
    DepotClient client;
    try {
      client = client(config, config.product() != null ? config.product() : NO_PRODUCT);
      client.loadKeys();
    } catch (IllegalStateException | DepotException e) {
      System.out.println("keys: INVALID (" + e.getMessage() + ")");
      return 1;
    }
    String source = config.jwks() == null ? "from " + config.url() + "/.well-known/jwks.json" : "pinned in " + config.jwks();
    System.out.println("keys: " + client.trustedKeyCount() + " Ed25519 key(s) " + source);
    if (config.product() == null) {
      try {
        String product = productOfKey(client, config.key());
        if (product != null) client = client(config, product);
      } catch (DepotException e) {
        // The steps below ask depot again, and say why they fail.
      }
    }

    if (config.fingerprint() != null) {
      try {
        activateAndHeartbeat(client, config);
      } catch (Refused e) {
        System.out.println("machine: INVALID (" + e.getMessage() + ")");
        return 1;
      }
    }

    boolean answerOk = false;
    try {
      Validation answer = client.validate(config.key(), config.fingerprint());
      System.out.println("answer: signature, digest and nonce verified (HTTP 200)");
      String why = outcome(answer, config);
      System.out.println(why == null ? "VALID" : "INVALID (" + why + ")");
      answerOk = why == null;
    } catch (RefusedException e) {
      // A refusal carries no nonce; it can only say "no", which anyone in the middle can do anyway.
      System.out.println("answer: signature and digest verified (HTTP " + e.status() + ")");
      System.out.println("INVALID (" + refusal(e) + ")");
    } catch (DepotException e) {
      System.out.println("INVALID (" + e.getMessage() + ")");
    }

    boolean fileOk = false;
    try {
      obtainLicenseFile(client, config);
      String text;
      try {
        text = Files.readString(config.licenseFile());
      } catch (IOException e) {
        throw new Refused("cannot read " + config.licenseFile() + ": " + e.getMessage());
      }
      LicenseFile file;
      try {
        file = client.verifyLicenseFile(text, new LicenseFileCheck(config.key(), config.fingerprint(), null, null));
      } catch (DepotException e) {
        throw new Refused(e.getMessage());
      }
      System.out.println("license file VALID until " + file.expiresAt());
      fileOk = true;
    } catch (Refused e) {
      System.out.println("license file INVALID (" + e.getMessage() + ")");
    }
    return answerOk && fileOk ? 0 : 1;
  }
}
