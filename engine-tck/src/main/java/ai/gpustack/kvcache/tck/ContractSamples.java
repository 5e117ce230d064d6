package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagReading;
import ai.gpustack.kvcache.spi.ManagedRole;
import ai.gpustack.kvcache.spi.ReadToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@link EngineContractTest} renders and reads with for one engine: a sample dtype, role and
 * attachment, the readers that find flags in what was rendered, and the assertions on how it reads
 * spellings.
 */
final class ContractSamples {
  private final Engine engine;
  private final String model;

  ContractSamples(Engine engine, String model) {
    this.engine = engine;
    this.model = model;
  }

  /** The newest table's first spelling that names a type (not one that keeps the model's). */
  Dtype dtype() {
    DtypeSpellings newest = engine.dtypeSpellings().newest();
    return Dtype.of(
        newest.spellings().stream()
            .filter(s -> !s.equals(Dtype.AUTO))
            .filter(s -> !engine.leavesModelDtype(s, Optional.empty()))
            .findFirst()
            .orElse(Dtype.AUTO));
  }

  AttachmentRequest attachment(boolean dtypeOwned) {
    return AttachmentRequest.builder()
        .roleKind(RoleKind.Server)
        .clientEndpoint("mooncake-master.kv.svc:50051")
        .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype(dtype().value()).build())
        .tenant("team-a")
        .dtype(dtypeOwned ? Optional.of(dtype()) : Optional.empty())
        .build();
  }

  /** A managed role's whole command, its attachment built once as the operator builds it. */
  List<String> command(List<String> extraArgs, Optional<AttachmentRequest> attachment) {
    return engine.commandFor(role(extraArgs, attachment), attachment.map(engine::attachment));
  }

  /** {@link #command} with the sample attachment, its dtype owned or not. */
  List<String> commandWithAttachment(List<String> extraArgs, boolean dtypeOwned) {
    return command(extraArgs, Optional.of(attachment(dtypeOwned)));
  }

  private ManagedRole role(List<String> extraArgs, Optional<AttachmentRequest> attachment) {
    return ManagedRole.builder()
        .model(model)
        .addAllExtraArgs(extraArgs)
        .attachment(attachment)
        .build();
  }

  /** What the sample dtype renders as: the engine's value for it on every dtype flag. */
  List<String> dtypeArgs() {
    return engine.dtypeArgs(engine.engineValue(dtype().value(), Optional.empty()));
  }

  /** How often {@code argv} passes each dtype flag, for messages that show what was rendered. */
  void assertEachDtypeFlagFound(List<String> argv, int times, String what) {
    for (String flag : engine.dtypeFlags()) {
      assertThat(newestReader().find(argv, flag))
          .as(
              "%s passes %s %d time(s), read with the newest flagInventories() entry; argv: %s",
              what, flag, times, argv)
          .hasSize(times);
    }
  }

  FlagReader newestReader() {
    return engine.flagReader(Optional.empty());
  }

  /** The flags this project reads on the engine: the dtype flags and the KV-format flags. */
  List<String> readFlags(FlagInventory inventory) {
    List<String> flags = new ArrayList<>(engine.dtypeFlags());
    inventory.kvFormatFlags().forEach(f -> flags.add(f.name()));
    return flags;
  }

  FlagReader readerFor(FlagInventory inventory) {
    return new FlagReader(inventory.dialect().orElse(engine.dialect()), inventory);
  }

  /**
   * {@code name}, one of {@code flag}'s names, reads as {@code flag} exactly as written; with
   * {@code =x} only where the dialect reads inline values; with {@code x} attached (a short alias)
   * only where it reads attached short values. A dialect that refuses them passes truthfully.
   */
  static void assertSpellingsReadAsTheDialectSays(
      FlagReader reader, FlagInventory inventory, String flag, String name) {
    ArgvDialect dialect = reader.dialect();
    assertThat(reader.read(name).filter(t -> t.readsAs(flag)))
        .as(
            "%s: %s is a name of %s in flagInventories() and must read as it exactly",
            inventory.versions(), name, flag)
        .isPresent();
    assertThat(readsWithValue(reader, name + "=x", flag))
        .as(
            "%s: %s=x reads as %s with the value x exactly where the dialect's inlineValues()"
                + " (%s) says: declare in dialect() what the engine's parser does",
            inventory.versions(), name, flag, dialect.inlineValues())
        .isEqualTo(dialect.inlineValues());
    if (!name.startsWith("--")) {
      assertThat(readsWithValue(reader, name + "x", flag))
          .as(
              "%s: %sx reads as %s with the value x exactly where the dialect's"
                  + " attachedShortValues() (%s) says: declare in dialect() what the engine's"
                  + " parser does",
              inventory.versions(), name, flag, dialect.attachedShortValues())
          .isEqualTo(dialect.attachedShortValues());
    }
  }

  private static boolean readsWithValue(FlagReader reader, String token, String flag) {
    return reader
        .read(token)
        .filter(t -> t.readsAs(flag) && t.inlineValue().equals(Optional.of("x")))
        .isPresent();
  }

  /**
   * Each prefix of {@code flag} from three characters on reads as the parser resolves it: the flag
   * it spells exactly, nothing without abbreviations, else the one flag it starts or an ambiguity
   * naming them all.
   */
  static void assertPrefixesReadAsTheParserResolves(
      FlagReader reader, FlagInventory inventory, String flag) {
    for (int end = 3; end < flag.length(); end++) {
      String prefix = flag.substring(0, end);
      Set<String> candidates = new TreeSet<>();
      inventory.byName().keySet().stream()
          .filter(n -> n.startsWith(prefix))
          .forEach(candidates::add);
      inventory
          .aliases()
          .forEach(
              (alias, canonical) -> {
                if (alias.startsWith("--") && alias.startsWith(prefix)) {
                  candidates.add(canonical);
                }
              });
      ReadToken read = reader.read(prefix).orElseThrow();
      String where = inventory.versions() + ": " + prefix + ", a prefix of " + flag + ",";
      if (inventory.byName().containsKey(prefix) || inventory.aliases().containsKey(prefix)) {
        assertThat(read.reading())
            .as("%s is a flag of its own", where)
            .isEqualTo(FlagReading.EXACT);
      } else if (!reader.dialect().abbreviations()) {
        assertThat(read.readsAs(flag))
            .as("%s is no option where the dialect's abbreviations() is false", where)
            .isFalse();
      } else if (candidates.size() == 1) {
        assertThat(read.readsAs(flag))
            .as(
                "%s is unique in flagInventories() and reads as it where the dialect's"
                    + " abbreviations() is true",
                where)
            .isTrue();
      } else {
        assertThat(read.reading())
            .as(
                "%s starts %s in flagInventories(), so the parser refuses it as ambiguous",
                where, candidates)
            .isEqualTo(FlagReading.AMBIGUOUS);
        assertThat(new TreeSet<>(read.candidates()))
            .as("%s names every candidate flagInventories() lists", where)
            .isEqualTo(candidates);
      }
    }
  }
}
