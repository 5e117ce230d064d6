package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The flags a workload may not pass itself on an engine: the cache connector's always, and the
 * dtype flags while the dtype is owned (the Setting on and a cache attached). Deployment admission,
 * Pod injection and preflight all scan with this, so a flag refused on one road is refused on all.
 */
public final class OwnedFlags {
  /** Reason word of a refused connector flag. */
  public static final String CONNECTOR_FLAG_OWNED = "ConnectorFlagOwned";

  /** Reason word of a refused dtype flag. */
  public static final String DTYPE_FLAG_OWNED = "DtypeFlagOwned";

  /** One owned flag found in an argv: where, as what, and whether it is the dtype flag. */
  public record Hit(FlagOccurrence occurrence, boolean dtype) {
    /** {@link #DTYPE_FLAG_OWNED} or {@link #CONNECTOR_FLAG_OWNED}. */
    public String reason() {
      return dtype ? DTYPE_FLAG_OWNED : CONNECTOR_FLAG_OWNED;
    }
  }

  /** A flag that changes the KV representation, found in an argv, and what it changes. */
  public record KvFormatHit(FlagOccurrence occurrence, String effect) {}

  private OwnedFlags() {}

  /**
   * Where entry {@code index} of an argv scanned as {@code commandSize} command entries followed by
   * the args lives: {@code commandPath[index]} or {@code argsPath[index - commandSize]}.
   */
  public static String entryPath(String commandPath, String argsPath, int commandSize, int index) {
    return index < commandSize
        ? commandPath + "[" + index + "]"
        : argsPath + "[" + (index - commandSize) + "]";
  }

  /**
   * Every flag in {@code argv} that changes the KV representation beside the dtype flag ({@link
   * FlagInventory#kvFormatFlags()} of the engine at {@code version}), as that version reads it. Not
   * refused, since the engines allow them; warned while the dtype is owned, since the domain's
   * other engines may not pass them. Ambiguous prefixes are left to the parser, which exits on
   * them.
   */
  public static List<KvFormatHit> kvFormatFlags(
      Engine engine, Optional<String> version, List<String> argv) {
    FlagReader reader = engine.flagReader(version);
    List<KvFormatHit> hits = new ArrayList<>();
    for (FlagSpec flag : engine.flagInventory(version).kvFormatFlags()) {
      reader.find(argv, flag.name()).stream()
          .filter(o -> !o.ambiguous())
          .forEach(o -> hits.add(new KvFormatHit(o, flag.kvEffect().orElseThrow())));
    }
    hits.sort(java.util.Comparator.comparingInt(h -> h.occurrence().index()));
    return hits;
  }

  /**
   * Every owned flag in {@code argv} as {@code reader} reads it: connector flags in name order,
   * then the dtype flags ({@link Engine#dtypeFlags()}) when {@code dtypeOwned}.
   */
  public static List<Hit> find(
      Engine engine, FlagReader reader, List<String> argv, boolean dtypeOwned) {
    List<Hit> hits = new ArrayList<>();
    for (String flag : new TreeSet<>(engine.ownedFlags())) {
      reader.find(argv, flag).forEach(o -> hits.add(new Hit(o, false)));
    }
    if (dtypeOwned) {
      for (String flag : engine.dtypeFlags()) {
        reader.find(argv, flag).forEach(o -> hits.add(new Hit(o, true)));
      }
    }
    return hits;
  }
}
