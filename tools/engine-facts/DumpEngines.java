import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.PlatformFormats;
import ai.gpustack.kvcache.spi.VersionRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What the Java engine modules claim, as JSON on stdout, for tools/engine-facts/extract.py's
 * comparison: per engine class named on the command line, its spelling table (ranges, spellings,
 * formats, platforms, sources), flag inventories (ranges, dialect, flags with arity and KV effect,
 * sources) and dtype reports (ranges, paths, sources). Run as a single-file program:
 * {@code java -cp <engine classes>:<kvcache.jar> DumpEngines.java ai.gpustack...VllmEngine ...}.
 */
public class DumpEngines {
  public static void main(String[] args) throws Exception {
    List<String> engines = new ArrayList<>();
    for (String name : args) {
      Engine e = (Engine) Class.forName(name).getDeclaredConstructor().newInstance();
      engines.add(engine(e));
    }
    System.out.println("{\"engines\":[" + String.join(",\n", engines) + "]}");
  }

  static String engine(Engine e) {
    List<String> spellings = new ArrayList<>();
    for (DtypeSpellings s : e.dtypeSpellings().entries()) {
      List<String> platforms = new ArrayList<>();
      for (PlatformFormats p : s.platforms()) {
        platforms.add(
            obj("platform", q(p.platform()), "formats", formats(p.formats()), "source",
                q(p.source())));
      }
      spellings.add(
          obj(range(s.versions()), "spellings", arr(s.spellings().stream().map(DumpEngines::q)
              .toList()), "formats", formats(s.formats()), "platforms", arr(platforms),
              "source", q(s.source())));
    }
    List<String> inventories = new ArrayList<>();
    for (FlagInventory i : e.flagInventories()) {
      List<String> flags = new ArrayList<>();
      for (FlagSpec f : i.flags()) {
        flags.add(obj("name", q(f.name()), "arity", q(f.arity().name()), "kvEffect",
            f.kvEffect().map(DumpEngines::q).orElse("null")));
      }
      inventories.add(obj(range(i.versions()), "dialect", dialect(i.dialect().orElse(e.dialect())),
          "flags", arr(flags), "rendered", arr(rendered(e, i).stream().map(DumpEngines::q).toList()),
          "source", q(i.source())));
    }
    List<String> reports = new ArrayList<>();
    for (DtypeReport r : e.dtypeReports()) {
      reports.add(obj(range(r.versions()), "path", q(r.path()), "source", q(r.source()),
          "class", q(r.getClass().getSimpleName())));
    }
    return obj("id", q(e.id()), "class", q(e.getClass().getName()), "dtypeFlags",
        arr(e.dtypeFlags().stream().map(DumpEngines::q).toList()), "ownedFlags",
        arr(e.ownedFlags().stream().sorted().map(DumpEngines::q).toList()), "listenFlags",
        arr(e.listenFlags().stream().map(DumpEngines::q).toList()), "dialect",
        dialect(e.dialect()), "spellings", arr(spellings), "inventories", arr(inventories),
        "reports", arr(reports));
  }

  /** The flags an attachment renders at the first version of {@code i} (connector, defaulted). */
  static List<String> rendered(Engine e, FlagInventory i) {
    String version = i.versions().from().map(EngineVersion::raw).orElse("0");
    String dtype = e.dtypeSpellings().newest().spellings().stream()
        .filter(s -> !s.equals("auto")).findFirst().orElse("auto");
    TreeSet<String> flags = new TreeSet<>();
    for (RoleKind kind : RoleKind.values()) {
      CacheAttachment a = e.attachment(AttachmentRequest.builder().roleKind(kind)
          .engineVersion(Optional.of(version)).clientEndpoint("master:50051")
          .domain(ReuseDomain.builder().name("d").blockSize(16).dtype(dtype).build()).build());
      a.connectorArgs().stream().filter(t -> t.startsWith("--"))
          .map(t -> t.contains("=") ? t.substring(0, t.indexOf('=')) : t).forEach(flags::add);
      a.defaultedArgs().stream().map(ArgGroup::flag).forEach(flags::add);
    }
    return List.copyOf(flags);
  }

  static String dialect(ArgvDialect d) {
    return obj("parser", q(d.parser()), "underscores", String.valueOf(d.underscoresAsDashes()),
        "dotted", String.valueOf(d.dottedMembers()), "abbreviations",
        String.valueOf(d.abbreviations()), "inlineValues", String.valueOf(d.inlineValues()));
  }

  static String range(VersionRange r) {
    return "\"from\":" + v(r.from()) + ",\"until\":" + v(r.until());
  }

  static String v(Optional<EngineVersion> ev) {
    return ev.map(x -> q(x.raw())).orElse("null");
  }

  static String formats(Map<String, ?> m) {
    List<String> out = new ArrayList<>();
    m.forEach((k, val) -> out.add(q(k) + ":" + q(String.valueOf(val))));
    return "{" + String.join(",", out) + "}";
  }

  /** Key/value pairs, or a preformatted {@code "k":v,...} fragment as an odd first element. */
  static String obj(String... kv) {
    List<String> out = new ArrayList<>();
    int i = 0;
    if (kv.length % 2 == 1) {
      out.add(kv[0]);
      i = 1;
    }
    for (; i < kv.length; i += 2) {
      out.add(q(kv[i]) + ":" + kv[i + 1]);
    }
    return "{" + String.join(",", out) + "}";
  }

  static String arr(List<String> items) {
    return "[" + String.join(",", items) + "]";
  }

  static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
