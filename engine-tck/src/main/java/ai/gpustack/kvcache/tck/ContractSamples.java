package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagReading;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.ManagedRole;
import ai.gpustack.kvcache.spi.ReadToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@link EngineContractTest} renders and reads with for one engine: a sample dtype, role and
 * attachment, the readers that find flags in what was rendered, and the shipped report fixtures.
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

  List<String> dtypeArgs() {
    return engine.dtypeArgs(dtype().value());
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

  /** A report fixture's text, shipped as a resource next to the engine's class. */
  String fixtureBody(DtypeReport.ReportFixture fixture) throws IOException {
    try (InputStream in = engine.getClass().getResourceAsStream(fixture.resource())) {
      assertThat(in).as("fixture %s next to %s", fixture.resource(), engine.getClass()).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
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
      List<String> candidates =
          inventory.flags().stream().map(FlagSpec::name).filter(n -> n.startsWith(prefix)).toList();
      ReadToken read = reader.read(prefix).orElseThrow();
      if (candidates.contains(prefix)) {
        assertThat(read.reading()).isEqualTo(FlagReading.EXACT);
      } else if (!reader.dialect().abbreviations()) {
        assertThat(read.readsAs(flag)).as(prefix).isFalse();
      } else if (candidates.size() == 1) {
        assertThat(read.readsAs(flag)).as("unique prefix %s", prefix).isTrue();
      } else {
        assertThat(read.reading()).as("prefix %s", prefix).isEqualTo(FlagReading.AMBIGUOUS);
        assertThat(read.candidates()).containsExactlyInAnyOrderElementsOf(candidates);
      }
    }
  }
}
