import io.github.depothq.depot.Activation;
import io.github.depothq.depot.DepotClient;
import io.github.depothq.depot.Machine;
import io.github.depothq.depot.RefusedException;
import io.github.depothq.depot.UnreachableException;
import io.github.depothq.depot.UnverifiableException;
import io.github.depothq.depot.UpdateTarget;
import io.github.depothq.depot.Upgrade;
import io.github.depothq.depot.Validation;
import io.github.depothq.depot.DepotException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The conformance driver (sdk/README.md, "The conformance suite"): activates the fingerprint when
 * given, validates, checks for an update when a current version is given, and prints one JSON line.
 * Exit 0 valid and verified, 1 verified but not valid (or refused), 2 unverifiable, 3 unreachable,
 * 64 usage.
 */
public final class Driver {
  private static final List<String> OPTIONS =
      List.of("--server", "--jwks", "--product", "--key", "--fingerprint", "--current-version", "--platform", "--arch");

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!OPTIONS.contains(args[i]) || i + 1 >= args.length) return usage("unknown option or missing value: " + args[i]);
      o.put(args[i], args[++i]);
    }
    for (String required : List.of("--server", "--jwks", "--product", "--key")) {
      if (o.get(required) == null || o.get(required).isEmpty()) return usage(required + " is required");
    }
    DepotClient client;
    try {
      client = DepotClient.builder().server(o.get("--server")).productId(o.get("--product")).jwks(Path.of(o.get("--jwks"))).build();
    } catch (IllegalStateException e) {
      return usage(e.getMessage());
    }
    String key = o.get("--key");
    String fingerprint = o.get("--fingerprint");
    try {
      Machine machine = null;
      if (fingerprint != null) {
        Activation activation = client.activate(key, fingerprint);
        machine = activation.machine();
      }
      Validation v = client.validate(key, fingerprint);
      if (v.machine() != null) machine = v.machine();
      StringBuilder line = new StringBuilder("{\"valid\":").append(v.valid()).append(",\"code\":").append(quote(v.code()))
          .append(",\"verified\":true");
      if (fingerprint != null && machine != null) line.append(",\"machine\":{\"id\":").append(quote(machine.id())).append('}');
      if (o.get("--current-version") != null) {
        Upgrade u = client.checkForUpdate(key, o.get("--current-version"),
            new UpdateTarget(o.get("--platform"), o.get("--arch"), null, null));
        line.append(",\"upgrade\":{\"version\":").append(u.upgrade() ? quote(u.version()) : "null").append('}');
      }
      System.out.println(line.append('}'));
      return v.valid() ? 0 : 1;
    } catch (RefusedException e) {
      System.out.println("{\"valid\":false,\"code\":" + quote(e.code()) + ",\"verified\":true}");
      return 1;
    } catch (UnverifiableException e) {
      System.out.println("{\"verified\":false,\"error\":\"unverifiable\",\"reason\":" + quote(e.getMessage()) + "}");
      return 2;
    } catch (UnreachableException e) {
      System.out.println("{\"verified\":false,\"error\":\"unreachable\",\"reason\":" + quote(e.getMessage()) + "}");
      return 3;
    } catch (DepotException e) {
      System.out.println("{\"verified\":false,\"error\":\"unverifiable\",\"reason\":" + quote(e.getMessage()) + "}");
      return 2;
    }
  }

  private static int usage(String message) {
    System.err.println("driver: " + message);
    System.err.println("usage: Driver --server URL --jwks FILE --product ID --key KEY [--fingerprint FP]"
        + " [--current-version V --platform P --arch A]");
    return 64;
  }

  private static String quote(String text) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}
